/**
 * Step events an external agent streams (one JSON object a line, the Agents API envelope that
 * umpire's own events.jsonl uses), validated before any of it reaches the trial log.
 *
 * The agent's output is untrusted input: a line that is not JSON, too long, of a type only umpire
 * may write (`AgentStartedEvent`, `AgentCompletionEvent`, ...), or an `AgentEvent` whose `data`
 * does not fit its kind, is refused with a reason and the line number; nothing it sends can
 * break the trial or fake umpire's own verdict events.
 */
import { z } from "zod";

/** A longer line is refused (a base64 screenshot inlined by mistake, or a flood). */
export const MAX_EVENT_LINE = 64 * 1024;
/** Events past this many are counted, not merged. */
export const MAX_AGENT_EVENTS = 2_000;

const ToolRequest = z
  .object({
    tool_name: z.string().min(1).max(100),
    args: z.record(z.string(), z.unknown()).optional(),
    id: z.string().max(200).optional(),
  })
  .passthrough();
const text = z.string().max(20_000).nullable().optional();

/** The `AgentEvent` kinds an agent may report, with the fields umpire reads from each. */
const AgentEventData = z.discriminatedUnion("kind", [
  z
    .object({
      kind: z.literal("policy_event"),
      reasoning_content: text,
      content: text,
      tool_reqs: z.array(ToolRequest).max(50).default([]),
      validation_errors: z.array(z.string()).optional(),
    })
    .passthrough(),
  z.object({ kind: z.literal("tool_result"), tool_req: ToolRequest, result: z.unknown().optional() }).passthrough(),
  z
    .object({
      kind: z.literal("answer_event"),
      answer: z.union([z.string(), z.record(z.string(), z.unknown())]),
      outcome: z.string().max(100).nullable().optional(),
    })
    .passthrough(),
  z
    .object({ kind: z.literal("error_event"), error: z.string().max(20_000), origin: z.string().max(100).optional() })
    .passthrough(),
  z.object({ kind: z.literal("message_event"), content: z.unknown() }).passthrough(),
  z.object({ kind: z.literal("flow_event"), flow: z.string().max(100) }).passthrough(),
]);

const Envelope = z.discriminatedUnion("type", [
  z.object({ type: z.literal("AgentEvent"), data: AgentEventData, timestamp: z.string().max(64).optional() }).strict(),
  z
    .object({
      type: z.literal("MetricsUpdateEvent"),
      data: z.object({ metrics: z.record(z.string(), z.unknown()) }).passthrough(),
      timestamp: z.string().max(64).optional(),
    })
    .strict(),
]);
export type AgentEnvelope = z.infer<typeof Envelope>;

export type ParsedLine = { ok: true; event: AgentEnvelope } | { ok: false; reason: string };

/** Parses one line the agent wrote. */
export function parseAgentEventLine(line: string): ParsedLine {
  if (line.length > MAX_EVENT_LINE)
    return { ok: false, reason: `line is ${line.length} characters, more than ${MAX_EVENT_LINE}` };
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    return { ok: false, reason: "not JSON" };
  }
  const type = (json as { type?: unknown } | null)?.type;
  if (typeof type === "string" && ["AgentStartedEvent", "AgentCompletionEvent", "AgentErrorEvent"].includes(type)) {
    return { ok: false, reason: `${type} is written by umpire only (the trial's start and end are umpire's to say)` };
  }
  const parsed = Envelope.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { ok: false, reason: `${issue.path.length ? issue.path.join(".") : "(event)"}: ${issue.message}` };
  }
  return { ok: true, event: parsed.data };
}

/** Splits appended text into complete lines, keeping the unfinished tail for the next read. */
export class LineBuffer {
  private tail = "";
  push(chunk: string): string[] {
    const text = this.tail + chunk;
    const lines = text.split("\n");
    this.tail = lines.pop() ?? "";
    return lines.filter((l) => l.trim().length > 0);
  }
  /** The last line, when the agent ended without a newline. */
  flush(): string[] {
    const rest = this.tail.trim();
    this.tail = "";
    return rest ? [rest] : [];
  }
}

/** The result file the agent writes at `UMPIRE_RESULT_FILE`. */
export const AgentResultSchema = z
  .object({
    answer: z
      .string()
      .max(20_000)
      .nullable()
      .optional()
      .describe("The agent's final answer (what an `answer` action would carry)"),
    outcome: z
      .enum(["success", "failure", "infeasible", "unknown"])
      .optional()
      .describe("The agent's own assessment; the checks decide the verdict"),
    usage: z
      .object({
        inputTokens: z.number().int().min(0),
        outputTokens: z.number().int().min(0),
        reasoningTokens: z.number().int().min(0).optional(),
        cachedTokens: z.number().int().min(0).optional(),
      })
      .strict()
      .optional()
      .describe("Tokens the agent's own model calls used, for cost"),
    model: z
      .string()
      .max(200)
      .optional()
      .describe("The model the agent used, for pricing (default: the agent definition's model)"),
  })
  .strict();
export type AgentResult = z.infer<typeof AgentResultSchema>;

/** A larger result file is refused (read at most one byte past it). */
export const MAX_RESULT_BYTES = 100_000;

/** Reads the result file's text; a clear reason when it is not one. */
export function parseAgentResult(text: string): { ok: true; result: AgentResult } | { ok: false; reason: string } {
  if (text.length > MAX_RESULT_BYTES) return { ok: false, reason: "the result file is larger than 100 KB" };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, reason: "the result file is not JSON" };
  }
  const parsed = AgentResultSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return {
      ok: false,
      reason: `the result file's ${issue.path.length ? issue.path.join(".") : "top level"}: ${issue.message}`,
    };
  }
  return { ok: true, result: parsed.data };
}
