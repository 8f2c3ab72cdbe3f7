/**
 * The normalize step of loading: turns zod's output (defaults filled) into the resolved `Task`
 * the rest of umpire reads, with paths in one canonical form so the rules judge what the
 * checks will actually use.
 */
import path from "node:path";
import type { z } from "zod";
import type { Task, TaskFileSchema } from "./schema.js";

/**
 * A workspace-relative path in canonical form: forward slashes, `.` and `..` segments folded,
 * no leading `./`. Absolute paths and escapes stay visible (`/etc`, `../x`) for the rules to reject.
 */
export function normalizeWorkspacePath(raw: string): string {
  const slashes = raw.trim().replace(/\\/g, "/");
  if (slashes === "") return "";
  const folded = path.posix.normalize(slashes);
  return folded === "." || folded === "./" ? "" : folded.replace(/^\.\//, "");
}

/** True when a canonical workspace path stays inside the workspace. */
export function staysInWorkspace(canonical: string): boolean {
  if (canonical.startsWith("/") || /^[A-Za-z]:/.test(canonical)) return false;
  return canonical !== ".." && !canonical.startsWith("../");
}

/** A folder prefix ends with one '/' so `notes/` never also matches `notes-old/`. */
function asFolder(canonical: string): string {
  return canonical === "" || canonical.endsWith("/") ? canonical : `${canonical}/`;
}

export function normalizeTask(parsed: z.output<typeof TaskFileSchema>, file: string): Task {
  const negatives = Object.fromEntries(
    Object.entries(parsed.negatives).map(([name, n]) => [name, Array.isArray(n) ? n : n.steps]),
  );
  const failsOn = Object.fromEntries(
    Object.entries(parsed.negatives).flatMap(([name, n]) => (Array.isArray(n) ? [] : [[name, n.failsOn]])),
  );
  return {
    ...parsed,
    negatives,
    ...(Object.keys(failsOn).length > 0 ? { negativeFailsOn: failsOn } : {}),
    // Block scalars end with a newline; the instruction is quoted verbatim elsewhere, so trim once here.
    instruction: parsed.instruction.trim(),
    title: parsed.title.trim(),
    checks: parsed.checks.map((check) =>
      check.kind === "file" ? { ...check, path: normalizeWorkspacePath(check.path) } : check,
    ),
    permissions: {
      ...parsed.permissions,
      // On the fixture, "target" and "fixture" name the same site: keep the fixture's word so its tasks resolve as before.
      allowedOrigins:
        parsed.target === "fixture"
          ? parsed.permissions.allowedOrigins.map((o) => (o === "target" ? "fixture" : o))
          : parsed.permissions.allowedOrigins,
      writeScope: asFolder(normalizeWorkspacePath(parsed.permissions.writeScope)),
    },
    tags: [...new Set(parsed.tags)],
    file,
  };
}
