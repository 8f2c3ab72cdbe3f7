/**
 * The words the detector speaks: what the agent did, the reflection turn, the stuck report.
 *
 * They name what was observed and nothing the harness knows but the agent does not: no
 * expected answers, no hint at the fix (the reflection asks the model to look, not what to do).
 */
import type { ProposedAction } from "../../../toolbox/tools.js";

type Tense = "past" | "bare";

const MAX_QUOTED = 60;

/** One action in words, e.g. `clicked "Save button" at (512, 640)` or bare `click "Save button" at (512, 640)`. */
export function describeAction(action: Pick<ProposedAction, "tool" | "args">, tense: Tense = "past"): string {
  const a = action.args;
  const verb = (past: string, bare: string) => (tense === "past" ? past : bare);
  const at = typeof a.x === "number" && typeof a.y === "number" ? ` at (${a.x}, ${a.y})` : "";
  const element = typeof a.element === "string" ? ` ${quote(a.element)}` : "";
  switch (action.tool) {
    case "click":
      return `${verb("clicked", "click")}${element}${at}`;
    case "double_click":
      return `${verb("double-clicked", "double-click")}${element}${at}`;
    case "write":
      return `${verb("typed", "type")} ${quote(String(a.content ?? ""))}${a.press_enter ? verb(" and pressed Enter", " and press Enter") : ""}`;
    case "press":
      return `${verb("pressed", "press")} ${Array.isArray(a.keys) ? a.keys.join("+") : String(a.keys)}`;
    case "scroll":
      return `${verb("scrolled", "scroll")} ${String(a.direction)} ${String(a.amount)} notch${a.amount === 1 ? "" : "es"}${at}`;
    case "wait":
      return `${verb("waited", "wait")} ${String(a.seconds)} s`;
    case "navigate":
      return `${verb("opened", "open")} ${quote(String(a.url))}`;
    case "go_back":
      return verb("went back", "go back");
    case "answer":
      return verb("answered", "answer");
    case "http_get":
      return `${verb("read", "read")} ${quote(String(a.path))}`;
    case "write_note":
      return `${verb("wrote the note", "write the note")} ${quote(String(a.name))}`;
    default:
      return `${verb("used", "use")} ${action.tool}`;
  }
}

/** A turn's actions in words, joined in order ("clicked ... then typed ..."). */
export function describeActions(
  actions: ReadonlyArray<Pick<ProposedAction, "tool" | "args">>,
  tense: Tense = "past",
): string {
  if (actions.length === 0) return tense === "past" ? "proposed no action" : "propose no action";
  return actions.map((action) => describeAction(action, tense)).join(" then ");
}

/**
 * The reflection turn's text: names the unchanged condition and asks the model to describe the
 * evidence on screen before it acts again. Wrapped in `<reflection>` (the reference model and
 * the event log recognise it by that tag).
 */
export function reflectionMessage(condition: string): string {
  return [
    "<reflection>",
    `The task is paused because ${condition}.`,
    "Before you act again, look at the current screenshot and describe what you see that could explain why",
    "the screen did not change. Then propose your next action based on that evidence; an action that has",
    "already failed several times is unlikely to work if repeated unchanged.",
    "</reflection>",
  ].join("\n");
}

/**
 * The stuck report's sentence: "Save stayed covered after 3 attempts" (`condition` says what
 * stayed unchanged; `attempted`, if given, what the agent kept trying: "... attempts to click ...").
 */
export function stuckReport(condition: string, attempts: number, attempted?: string): string {
  const sentence = `${capitalise(condition.trim())} after ${attempts} attempt${attempts === 1 ? "" : "s"}`;
  return attempted ? `${sentence} to ${attempted}` : sentence;
}

function quote(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return JSON.stringify(flat.length > MAX_QUOTED ? `${flat.slice(0, MAX_QUOTED - 1)}…` : flat);
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
