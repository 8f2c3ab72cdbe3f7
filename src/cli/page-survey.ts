/**
 * The words for a page's controls (src/targets/page-controls.ts) as `umpire marks` prints them, and
 * `umpire try` writes beside each step's picture: a numbered line per control (what it is, where),
 * the declaration to paste, and the flags (ambiguous, inside an iframe).
 */
import type { PageControl } from "../targets/page-controls.js";

export function describeControl(c: PageControl): string {
  const what = `${c.role ?? c.tag}${c.name ? ` "${c.name}"` : ""}`;
  const lines = [
    `${String(c.n).padStart(3)}  ${what}${c.frame ? ` [in iframe ${c.frame}]` : ""}${c.inViewport ? "" : " (outside the viewport: not in the screenshot)"}`,
  ];
  lines.push(`     ${c.yaml}`);
  if (c.ambiguous) {
    lines.push(
      `     AMBIGUOUS: matches ${c.matches} elements${c.resolvable ? "; umpire takes the first" : ""}${c.unique ? `; this one alone: ${c.unique.yaml}` : ""}`,
    );
  }
  if (!c.resolvable)
    lines.push(
      "     NOT A MARK: umpire resolves marks in the main frame only; open the framed page itself (start.path) to aim at it",
    );
  return lines.join("\n");
}

/** `name, greet, about, ... (+4 more)`: the mark names a step's page offers, for one line of `try`. */
export function markNamesLine(controls: readonly PageControl[], max = 12): string {
  const names = controls.filter((c) => c.resolvable).map((c) => c.mark);
  if (names.length === 0) return "(no controls)";
  const shown = names.slice(0, max).join(", ");
  return names.length > max ? `${shown} (+${names.length - max} more)` : shown;
}
