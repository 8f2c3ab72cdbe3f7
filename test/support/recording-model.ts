/**
 * A small OpenAI-compatible server for tests: it records every request (body as sent, raw
 * text, headers) and answers from a scripted queue: JSON bodies, SSE streams (optionally
 * broken off mid-way), status codes with headers such as `retry-after`, dropped connections,
 * and requests that never get an answer. An empty queue answers 500 "nothing scripted", so a
 * test that sends more requests than it expected fails loudly.
 */
import type { AddressInfo } from "node:net";
import type { Server, ServerResponse } from "node:http";
import express from "express";

export interface RecordedRequest {
  method: string;
  path: string;
  /** Path and query string as sent. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** The raw request body text. */
  raw: string;
  /** The parsed JSON body (undefined when not JSON). */
  body: any;
}

export type ScriptedResponse =
  | { kind: "json"; status?: number; body: unknown; headers?: Record<string, string> }
  | {
      kind: "sse";
      chunks: unknown[];
      /** Send `data: [DONE]` at the end (default true). */
      done?: boolean;
      /** Destroy the connection after this many chunks. */
      breakAfter?: number;
    }
  /** Close the connection without answering. */
  | { kind: "drop" }
  /** Never answer (until the server closes). */
  | { kind: "hang" };

export interface RecordingModel {
  /** e.g. http://127.0.0.1:41234/v1 */
  baseUrl: string;
  requests: RecordedRequest[];
  enqueue(...responses: ScriptedResponse[]): void;
  /** Scripted responses not yet used. */
  remaining(): number;
  close(): Promise<void>;
}

export async function startRecordingModel(): Promise<RecordingModel> {
  const queue: ScriptedResponse[] = [];
  const requests: RecordedRequest[] = [];
  const hanging = new Set<ServerResponse>();
  const app = express();
  app.use(express.text({ type: () => true, limit: "100mb" }));

  app.all(/.*/, (req, res) => {
    const raw = typeof req.body === "string" ? req.body : "";
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      body = undefined;
    }
    requests.push({ method: req.method, path: req.path, url: req.originalUrl, headers: { ...req.headers }, raw, body });
    const next = queue.shift();
    if (!next) {
      res.status(500).json({ error: { message: "recording-model: nothing scripted for this request" } });
      return;
    }
    switch (next.kind) {
      case "json":
        res.status(next.status ?? 200);
        for (const [name, value] of Object.entries(next.headers ?? {})) res.setHeader(name, value);
        res.json(next.body);
        return;
      case "drop":
        req.socket.destroy();
        return;
      case "hang":
        hanging.add(res);
        return;
      case "sse": {
        res.status(200);
        res.setHeader("content-type", "text/event-stream");
        res.setHeader("cache-control", "no-cache");
        res.flushHeaders();
        next.chunks.forEach((chunk, i) => {
          if (next.breakAfter !== undefined && i >= next.breakAfter) return;
          res.write(`data: ${JSON.stringify(chunk)}\n\n`);
        });
        if (next.breakAfter !== undefined) {
          // Let the written chunks reach the client, then cut the connection mid-stream.
          setTimeout(() => res.socket?.destroy(), 20);
          return;
        }
        if (next.done !== false) res.write("data: [DONE]\n\n");
        res.end();
        return;
      }
    }
  });

  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    enqueue: (...responses) => queue.push(...responses),
    remaining: () => queue.length,
    close: async () => {
      for (const res of hanging) res.socket?.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface CompletionSpec {
  content?: string | null;
  reasoning?: string;
  /** Which field carries the reasoning (H's pages use both). */
  reasoningField?: "reasoning" | "reasoning_content";
  refusal?: string;
  toolCalls?: Array<{ id?: string; name: string; arguments: string }>;
  finishReason?: string | null;
  usage?: unknown;
}

/** A chat completion JSON body. */
export function completionBody(spec: CompletionSpec): unknown {
  const message: Record<string, unknown> = { role: "assistant", content: spec.content ?? null };
  if (spec.reasoning !== undefined) message[spec.reasoningField ?? "reasoning"] = spec.reasoning;
  if (spec.refusal !== undefined) message.refusal = spec.refusal;
  if (spec.toolCalls) {
    message.tool_calls = spec.toolCalls.map((c, i) => ({
      ...(c.id !== undefined && { id: c.id }),
      type: "function",
      index: i,
      function: { name: c.name, arguments: c.arguments },
    }));
  }
  const finish = spec.finishReason === undefined ? (spec.toolCalls ? "tool_calls" : "stop") : spec.finishReason;
  return {
    id: "chatcmpl-test",
    object: "chat.completion",
    created: 1_700_000_000,
    model: "test-model",
    choices: [{ index: 0, message, finish_reason: finish }],
    ...(spec.usage !== undefined
      ? { usage: spec.usage }
      : { usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 } }),
  };
}

/** A scripted JSON completion. */
export function reply(spec: CompletionSpec): ScriptedResponse {
  return { kind: "json", body: completionBody(spec) };
}

/** A structured-mode step reply. */
export function stepReply(step: unknown, extra: Omit<CompletionSpec, "content"> = {}): ScriptedResponse {
  return reply({ ...extra, content: JSON.stringify(step) });
}

/**
 * SSE chunks for a completion: reasoning and content split into `pieces` fragments each,
 * tool-call arguments split in two, a final chunk with the finish reason, then usage.
 */
export function streamChunks(spec: CompletionSpec & { pieces?: number }): unknown[] {
  const pieces = spec.pieces ?? 3;
  const chunk = (delta: unknown, finish: string | null = null) => ({
    id: "chatcmpl-stream",
    object: "chat.completion.chunk",
    created: 1_700_000_000,
    model: "test-model",
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const out: unknown[] = [chunk({ role: "assistant" })];
  for (const part of split(spec.reasoning ?? "", pieces))
    out.push(chunk({ [spec.reasoningField ?? "reasoning"]: part }));
  for (const part of split(spec.content ?? "", pieces)) out.push(chunk({ content: part }));
  (spec.toolCalls ?? []).forEach((call, index) => {
    const [a, b] = split(call.arguments, 2);
    out.push(
      chunk({
        tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: a ?? "" } }],
      }),
    );
    if (b !== undefined) out.push(chunk({ tool_calls: [{ index, function: { arguments: b } }] }));
  });
  const finish = spec.finishReason === undefined ? (spec.toolCalls ? "tool_calls" : "stop") : spec.finishReason;
  if (finish !== null) out.push(chunk({}, finish));
  if (spec.usage !== undefined)
    out.push({ id: "chatcmpl-stream", object: "chat.completion.chunk", choices: [], usage: spec.usage });
  return out;
}

function split(text: string, pieces: number): string[] {
  if (text === "") return [];
  const size = Math.ceil(text.length / pieces);
  const parts: string[] = [];
  for (let i = 0; i < text.length; i += size) parts.push(text.slice(i, i + size));
  return parts;
}
