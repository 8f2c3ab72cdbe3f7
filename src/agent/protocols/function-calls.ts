/**
 * Reading a function-calling reply (`tool_calls`), as Holo's tools protocol and Qwen's both do: every
 * call gets an id (the model's, unless missing or repeated), its arguments parsed as JSON and resolved
 * by the protocol into an umpire action; after the first rejected call the rest are skipped (calls
 * run in order); the assistant message is rebuilt with every call, so each result answers one.
 * What differs (how a call resolves, which arguments history keeps) is the protocol's.
 */
import { messageOf } from "../../errors.js";
import type { ProposedAction } from "../../toolbox/tools.js";
import type { ArgsValidation, InvalidKind } from "../action-validation.js";
import type { AssistantToolCall } from "../history.js";
import { actionId, type CallSlot, type InvalidProposal, type ParsedReply, type RawReply } from "../parse.js";

export interface FunctionCallReading {
  trialId: string;
  turn: number;
  /** One call's name and parsed arguments, resolved into an umpire action or why not. */
  resolve(name: string, args: unknown, id: string): ArgsValidation;
  /** What history keeps of a valid call's arguments: the model's own, or umpire's validated ones. */
  historyArgs: "model" | "validated";
}

/** A reply with calls, read: `outcome` is `actions` when at least one call may run. */
export function readFunctionCalls(
  reply: RawReply,
  text: string | null,
  leaked: string | null,
  reading: FunctionCallReading,
): ParsedReply {
  const actions: ProposedAction[] = [];
  const invalid: InvalidProposal[] = [];
  const slots: CallSlot[] = [];
  const rebuilt: AssistantToolCall[] = [];
  const usedIds = new Set<string>();
  let firstRejected: string | null = null;
  reply.toolCalls.forEach((call, index) => {
    const id = call.id && !usedIds.has(call.id) ? call.id : actionId(reading.trialId, reading.turn, index + 1);
    usedIds.add(id);
    const name = call.name ?? "";
    let argsJson = call.arguments;
    let result: ArgsValidation;
    try {
      const args: unknown = call.arguments.trim() === "" ? {} : JSON.parse(call.arguments);
      argsJson = JSON.stringify(args);
      result = reading.resolve(name, args, id);
    } catch (error) {
      result = {
        ok: false,
        kind: "invalid_json",
        message: `${name || "call"}: the arguments are not valid JSON (${messageOf(error)})`,
      };
    }
    if (result.ok && firstRejected !== null) {
      result = {
        ok: false,
        kind: "skipped",
        message: `not run: call ${firstRejected} before it in the same reply was rejected, and calls run in order`,
      };
    }
    if (result.ok) {
      actions.push(result.action);
      if (reading.historyArgs === "validated") argsJson = JSON.stringify(result.action.args);
    } else {
      firstRejected ??= id;
      invalid.push({ id, ...(name !== "" && { tool: name }), kind: result.kind, message: result.message });
    }
    slots.push({
      id,
      tool: result.ok ? result.action.tool : name || "unknown",
      valid: result.ok,
      inAssistantMessage: true,
    });
    rebuilt.push({ id, type: "function", function: { name, arguments: argsJson } });
  });
  return {
    outcome: actions.length > 0 ? "actions" : "invalid",
    actions,
    invalid,
    slots,
    note: text,
    thought: null,
    leakedReasoning: leaked,
    assistant: { role: "assistant", content: text, tool_calls: rebuilt },
  };
}

/** A reply without a call: invalid, under the turn's first id; its text (if any) kept as the assistant message. */
export function noCallReply(
  id: string,
  kind: InvalidKind,
  message: string,
  text: string | null,
  leaked: string | null,
): ParsedReply {
  return {
    outcome: "invalid",
    actions: [],
    invalid: [{ id, kind, message }],
    slots: [{ id, tool: "none", valid: false, inAssistantMessage: false }],
    note: text,
    thought: null,
    leakedReasoning: leaked,
    assistant: text === null ? null : { role: "assistant", content: text },
  };
}
