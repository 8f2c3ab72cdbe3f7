/** Shared pieces of the reference-model integration tests: a task, layouts per trial, SDK clients. */
import OpenAI from "openai";
import type { LayoutSource, PageLayout } from "../../../src/sim/grounding.js";
import type { ReferenceTask } from "../../../src/sim/policy.js";
import { samplePng, sampleRequest, type SampleMode, type SampleStep } from "../../../src/sim/sample-request.js";

export const INSTRUCTION =
  "On the cricket league website, find match BB-042 and save a note about it on its notes page.";

export const TASK: ReferenceTask = {
  id: "note-bb042",
  instruction: INSTRUCTION,
  reference: [
    { tool: "click", target: "search-box", args: { element: "Search matches box" } },
    { tool: "write", args: { content: "BB-042", press_enter: true } },
    { tool: "click", target: "result-BB-042" },
    { tool: "click", target: "note-save", note: "BB-042: Pune Pioneers 168/6, Jaipur Kites 169/4" },
    { tool: "answer", args: { content: "Saved notes/BB-042.md" } },
  ],
  negatives: {
    loop: [
      { tool: "click", target: "search-box", args: { element: "Search matches box" } },
      { tool: "write", args: { content: "BB-042", press_enter: true } },
      { tool: "click", target: "note-save" },
    ],
    "wrong-record": [
      { tool: "click", target: "search-box" },
      { tool: "write", args: { content: "BB-024", press_enter: true } },
    ],
    "forget-save": [{ tool: "answer", args: { content: "Saved (I did not press Save)." } }],
    "premature-answer": [{ tool: "answer", args: { content: "Jaipur Kites won." } }],
  },
};

export const HOME_LAYOUT: PageLayout = {
  path: "/",
  title: "Cricket league",
  viewport: { width: 1280, height: 800 },
  marks: [
    { name: "search-box", x: 440, y: 380, width: 400, height: 40, visible: true, covered: false },
    { name: "result-BB-042", x: 100, y: 200, width: 300, height: 24, visible: true, covered: false },
    { name: "note-save", x: 1000, y: 600, width: 80, height: 32, visible: true, covered: true },
  ],
};

/** A layout source keyed by trial id, standing in for the fixture site's control client. */
export function layoutsByTrial(layouts: Record<string, PageLayout>): LayoutSource {
  return { layout: async (id) => layouts[id] ?? null };
}

export const SCREENSHOT = samplePng(320, 200);

export function request(
  mode: SampleMode,
  options: { history?: SampleStep[]; model?: string; user?: string; before?: string[] } = {},
): Record<string, unknown> {
  return sampleRequest({
    mode,
    instruction: INSTRUCTION,
    screenshot: SCREENSHOT,
    user: options.user ?? "trial-1",
    model: options.model,
    history: options.history,
    before: options.before,
  });
}

export const steps = (n: number): SampleStep[] =>
  Array.from({ length: n }, () => ({ tool: "wait", args: { seconds: 1 } }));

export function sdk(baseURL: string, options: { maxRetries?: number; timeout?: number } = {}): OpenAI {
  return new OpenAI({
    baseURL,
    apiKey: "not-needed",
    maxRetries: options.maxRetries ?? 0,
    timeout: options.timeout ?? 20_000,
  });
}

/** The SDK's create() with Holo's extra top-level fields (passed through as body properties). */
export async function create(client: OpenAI, body: Record<string, unknown>) {
  return client.chat.completions.create(body as never) as Promise<OpenAI.Chat.Completions.ChatCompletion>;
}

/** Streams a request and accumulates it the way a careful client does. */
export async function createStreamed(client: OpenAI, body: Record<string, unknown>) {
  const stream = (await client.chat.completions.create({
    ...body,
    stream: true,
    stream_options: { include_usage: true },
  } as never)) as unknown as AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>;
  const out = {
    content: "",
    reasoning: "",
    refusal: "",
    finishReason: null as string | null,
    usage: null as OpenAI.CompletionUsage | null,
    chunks: 0,
    toolCalls: [] as { id: string; name: string; arguments: string }[],
  };
  for await (const chunk of stream) {
    out.chunks += 1;
    if (chunk.usage) out.usage = chunk.usage;
    const choice = chunk.choices[0];
    if (!choice) continue;
    const delta = choice.delta as typeof choice.delta & { reasoning?: string };
    out.content += delta.content ?? "";
    out.reasoning += delta.reasoning ?? "";
    out.refusal += delta.refusal ?? "";
    for (const call of delta.tool_calls ?? []) {
      const slot = (out.toolCalls[call.index] ??= { id: "", name: "", arguments: "" });
      slot.id ||= call.id ?? "";
      slot.name ||= call.function?.name ?? "";
      slot.arguments += call.function?.arguments ?? "";
    }
    if (choice.finish_reason) out.finishReason = choice.finish_reason;
  }
  return out;
}
