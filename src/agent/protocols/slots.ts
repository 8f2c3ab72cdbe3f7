/**
 * The call slots of one reply in a vendor protocol: each vendor action, mapped onto one of umpire's
 * tools and validated, or refused with the reason. As in every protocol, actions run in order, so
 * once one is refused every later one of the same reply is `skipped`.
 */
import type { ProposedAction, ToolName } from "../../toolbox/tools.js";
import { validateToolCall, type InvalidKind } from "../action-validation.js";
import { actionId, type CallSlot, type InvalidProposal } from "../parse.js";

/**
 * Why a vendor action is refused, in the kinds every protocol reports (action-validation.ts): an action
 * outside the family's documented vocabulary is `unknown_tool`; a documented one umpire has no equivalent
 * for (a right-click, a drag) is `unsupported_action`, the default; a documented one with its arguments
 * missing or wrong is `missing_fields`, `wrong_type` or `invalid_value`, as a Holo tool call's would be.
 */
export type RefusalKind = Extract<
  InvalidKind,
  "unknown_tool" | "unsupported_action" | "missing_fields" | "wrong_type" | "invalid_value"
>;

/** What one vendor action becomes: an umpire tool call, or why it cannot be one. */
export type Mapped = { tool: ToolName; args: Record<string, unknown> } | { refuse: string; kind?: RefusalKind };

export class ReplySlots {
  readonly actions: ProposedAction[] = [];
  readonly invalid: InvalidProposal[] = [];
  readonly slots: CallSlot[] = [];
  private rejected: string | null = null;

  constructor(
    private readonly trialId: string,
    private readonly turn: number,
    private readonly offered: readonly ToolName[],
  ) {}

  /** Adds one action (or one proposal already known to be invalid); returns its slot id. */
  add(
    vendorName: string,
    mapped: Mapped | { invalid: { kind: InvalidKind; message: string } },
    answered = true,
  ): string {
    const id = actionId(this.trialId, this.turn, this.slots.length + 1);
    let problem: { kind: InvalidKind; message: string } | null = null;
    if ("refuse" in mapped)
      problem = { kind: mapped.kind ?? "unsupported_action", message: `not run: ${mapped.refuse}` };
    else if ("invalid" in mapped) problem = mapped.invalid;
    else {
      const checked = validateToolCall(id, mapped.tool, mapped.args, this.offered);
      if (!checked.ok) problem = { kind: checked.kind, message: checked.message };
      else if (this.rejected !== null) {
        problem = {
          kind: "skipped",
          message: `not run: action ${this.rejected} before it in the same reply was rejected`,
        };
      } else this.actions.push(checked.action);
    }
    if (problem) {
      this.rejected ??= id;
      this.invalid.push({ id, tool: vendorName, kind: problem.kind, message: problem.message });
    }
    this.slots.push({ id, tool: vendorName, valid: problem === null, inAssistantMessage: answered });
    return id;
  }

  /**
   * A reply with nothing to run: empty, text without the tool, or (`malformed`) a call the API itself could
   * not parse, which is `invalid_json` as a Holo tool call's unparseable arguments are.
   */
  nothing(text: string | null, hint: string, malformed = false): void {
    const id = actionId(this.trialId, this.turn, 1);
    const [kind, message]: [InvalidKind, string] = malformed
      ? ["invalid_json", `your function call was malformed and could not be read; ${hint}`]
      : text === null
        ? ["empty_output", `your reply was empty; ${hint}`]
        : ["no_tool_call", `your reply called no tool; ${hint}`];
    this.invalid.push({ id, kind, message });
    this.slots.push({ id, tool: "none", valid: false, inAssistantMessage: false });
  }
}

/** The text a result is told to the model with, when it did not simply succeed. */
export function unsuccessful(text: string): boolean {
  return text.startsWith("Rejected: ") || text.startsWith("Failed: ") || text.startsWith("Skipped: ");
}
