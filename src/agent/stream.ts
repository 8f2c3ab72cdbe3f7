/**
 * Accumulating a streamed chat completion (SSE chunks) into one reply.
 *
 * Content, reasoning (`delta.reasoning` or `delta.reasoning_content`) and refusal deltas are
 * concatenated; tool-call fragments are merged by `index` (the first fragment brings `id` and
 * `function.name`, later ones append to `function.arguments`). Nothing is handed to the parser
 * until the stream has ended, so a call is only ever used complete: a half-received
 * `{"x": 51` cannot become a click at 51.
 */
import { firstText, type ModelReply } from "./reply.js";

interface CallFragments {
  id: string | null;
  name: string | null;
  arguments: string;
}

export class StreamAccumulator {
  private content = "";
  private reasoning = "";
  private refusal = "";
  private readonly calls = new Map<number, CallFragments>();
  private finishReason: string | null = null;
  private usage: unknown = undefined;
  /** Chunks received so far. */
  chunks = 0;

  /**
   * Adds one chunk. Returns true when it carried model output (content, reasoning, refusal or
   * a tool-call fragment): the first such chunk marks the time to first token.
   */
  add(chunk: unknown): boolean {
    this.chunks += 1;
    const body = (chunk ?? {}) as Record<string, unknown>;
    if (body.usage !== undefined && body.usage !== null) this.usage = body.usage;
    const choices = Array.isArray(body.choices) ? body.choices : [];
    let carriedOutput = false;
    for (const rawChoice of choices) {
      const choice = (rawChoice ?? {}) as Record<string, unknown>;
      if ((choice.index ?? 0) !== 0) continue;
      if (typeof choice.finish_reason === "string") this.finishReason = choice.finish_reason;
      const delta = (choice.delta ?? {}) as Record<string, unknown>;
      const text = firstText(delta.content);
      const thinking = firstText(delta.reasoning, delta.reasoning_content);
      const refusal = firstText(delta.refusal);
      if (text !== null) this.content += text;
      if (thinking !== null) this.reasoning += thinking;
      if (refusal !== null) this.refusal += refusal;
      const toolCalls = Array.isArray(delta.tool_calls) ? delta.tool_calls : [];
      for (const fragment of toolCalls) this.addCallFragment(fragment);
      carriedOutput ||= text !== null || thinking !== null || refusal !== null || toolCalls.length > 0;
    }
    return carriedOutput;
  }

  /** True once a chunk said why generation stopped (the stream is complete). */
  get finished(): boolean {
    return this.finishReason !== null;
  }

  /** True when any model output has arrived. */
  get hasOutput(): boolean {
    return this.content !== "" || this.reasoning !== "" || this.refusal !== "" || this.calls.size > 0;
  }

  /** What has arrived, as a reply (complete only when `finished`). */
  reply(): ModelReply {
    const ordered = [...this.calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
    return {
      content: this.content === "" ? null : this.content,
      reasoning: this.reasoning === "" ? null : this.reasoning,
      refusal: this.refusal === "" ? null : this.refusal,
      toolCalls: ordered.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })),
      finishReason: this.finishReason,
      usage: this.usage,
    };
  }

  private addCallFragment(raw: unknown): void {
    const fragment = (raw ?? {}) as Record<string, unknown>;
    const fn = (fragment.function ?? {}) as Record<string, unknown>;
    const id = firstText(fragment.id);
    // Servers that omit `index` start a new call with each new id.
    let index: number;
    if (typeof fragment.index === "number") index = fragment.index;
    else if (id !== null && ![...this.calls.values()].some((c) => c.id === id)) index = this.calls.size;
    else index = Math.max(0, this.calls.size - 1);
    const call = this.calls.get(index) ?? { id: null, name: null, arguments: "" };
    call.id ??= id;
    call.name ??= firstText(fn.name);
    if (typeof fn.arguments === "string") call.arguments += fn.arguments;
    this.calls.set(index, call);
  }
}
