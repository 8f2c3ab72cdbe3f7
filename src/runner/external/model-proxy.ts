/**
 * The model proxy of a command agent with `modelProxy` (docs/external-agents.md): an HTTP server on
 * 127.0.0.1, one per trial, that forwards the agent's OpenAI-compatible calls (`POST /chat/completions`,
 * streamed or not, `GET /models[/id]`) to the declared upstream with the key umpire holds, and measures
 * each call itself: tokens from the response's `usage` (streamed usage asked for when the agent did not),
 * latency, time to first byte. So a command agent's usage is umpire's measurement, not its own claim,
 * and the key never enters the sandbox.
 *
 * A call is attributed to the trial by a random token in its path (`/<token>/v1/...`): a request without
 * it is refused (403) and reported, never forwarded. Whatever the upstream sends back is scrubbed of
 * umpire's registered secrets before the agent reads it (an endpoint that echoes its headers would
 * otherwise hand the agent the key).
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { readUsage } from "../../agent/usage.js";
import { scrub } from "../../safety/secrets.js";
import { UNKNOWN_USAGE, type ReportedUsage } from "../../vocabulary.js";
import type { ModelCall } from "../trial/measured-use.js";
import { messageOf } from "../../errors.js";

/** The upstream a proxy forwards to: its base URL (ending where `/chat/completions` begins) and key. */
export interface ModelUpstream {
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>`; null sends none. */
  apiKey: string | null;
}

export interface ModelProxy {
  /** What the agent gets as its OpenAI base URL: `http://127.0.0.1:<port>/<token>/v1`. */
  baseUrl: string;
  /** The per-trial placeholder key the agent gets (SDKs want one); it opens nothing by itself. */
  agentKey: string;
  /** The proxy's origin, for the sandbox's network allow-list. */
  origin: string;
  calls(): readonly ModelCall[];
  close(): Promise<void>;
}

export interface ModelProxyOptions {
  upstream: ModelUpstream;
  /** Each measured call, as it ends. */
  onCall?: (call: ModelCall) => void;
  /** Each refused request (no trial token, a route the proxy does not forward, a spent budget). */
  onRefused?: (reason: string) => void;
  /** Asked before each chat completion is forwarded: why it may not be (the trial's budget is spent), or null. */
  admit?: () => string | null;
}

/** Request bodies larger than this are refused (screenshots as base64 make large bodies; not this large). */
export const MAX_REQUEST_BYTES = 64 * 1024 * 1024;
const ROUTES: readonly { method: string; pattern: RegExp }[] = [
  { method: "POST", pattern: /^chat\/completions$/ },
  { method: "GET", pattern: /^models$/ },
  { method: "GET", pattern: /^models\/[^/]+$/ },
];
/** Response headers the agent gets from the upstream (the rest are hop-by-hop, encodings fetch undid, or cookies). */
const PASSED_HEADERS = ["content-type", "retry-after", "retry-after-ms", "x-request-id", "openai-processing-ms"];

/** Starts a trial's model proxy on 127.0.0.1 (a free port). */
export async function startModelProxy(options: ModelProxyOptions): Promise<ModelProxy> {
  const token = randomBytes(18).toString("base64url");
  const calls: ModelCall[] = [];
  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) answer(res, 500, `umpire's model proxy failed: ${messageOf(error)}`);
      else res.destroy();
    });
  });
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? "/").split("?")[0]!;
    const [, given = "", v1, ...rest] = path.split("/");
    const route = rest.join("/");
    if (!sameToken(given, token) || v1 !== "v1") {
      options.onRefused?.(`${req.method} ${path.slice(0, 120)}: no trial token in the path`);
      const fix = "use the base URL in UMPIRE_MODEL_BASE_URL";
      return answer(res, 403, `umpire's model proxy: this path carries no trial token; ${fix}`);
    }
    if (!ROUTES.some((r) => r.method === req.method && r.pattern.test(route))) {
      options.onRefused?.(`${req.method} /v1/${route.slice(0, 120)}: not a route the proxy forwards`);
      return answer(res, 404, "umpire's model proxy forwards POST /v1/chat/completions and GET /v1/models only");
    }
    const spent = route === "chat/completions" ? options.admit?.() : null;
    if (spent) {
      options.onRefused?.(`POST /v1/chat/completions: ${spent}`);
      return answer(res, 403, `umpire's model proxy: ${spent}`);
    }
    const call = await forward(req, res, route, options.upstream);
    calls.push(call);
    options.onCall?.(call);
  };
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl: `${origin}/${token}/v1`,
    agentKey: `umpire-proxy-${token}`,
    origin,
    calls: () => calls,
    close: () => closeServer(server),
  };
}

/** Forwards one call and measures it; always answers the agent. */
async function forward(
  req: IncomingMessage,
  res: ServerResponse,
  route: string,
  upstream: ModelUpstream,
): Promise<ModelCall> {
  const started = performance.now();
  const usage = { ...UNKNOWN_USAGE };
  const call: ModelCall = { route, model: null, stream: false, status: 0, usage, ms: 0, ttftMs: null };
  const done = (status: number, error?: string) => {
    Object.assign(call, { status, ms: performance.now() - started, ...(error ? { error } : {}) });
    return call;
  };
  let body: string | undefined;
  if (req.method === "POST") {
    const raw = await readBody(req);
    if (raw === null) {
      answer(res, 413, `umpire's model proxy: request body over ${MAX_REQUEST_BYTES} bytes`);
      return done(413, "request body too large");
    }
    body = withStreamedUsage(raw, call);
  }
  let response: Response;
  try {
    const headers: Record<string, string> = { accept: req.headers.accept ?? "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    if (upstream.apiKey) headers.authorization = `Bearer ${upstream.apiKey}`;
    const init = { method: req.method, headers, ...(body !== undefined ? { body } : {}) };
    response = await fetch(`${upstream.baseUrl}/${route}`, init);
  } catch (error) {
    const why = scrub(`the upstream model endpoint could not be reached: ${causeOf(error)}`);
    answer(res, 502, `umpire's model proxy: ${why}`);
    return done(502, why);
  }
  res.statusCode = response.status;
  for (const name of PASSED_HEADERS) {
    const value = response.headers.get(name);
    if (value !== null) res.setHeader(name, scrub(value));
  }
  const sse = (response.headers.get("content-type") ?? "").includes("text/event-stream");
  try {
    if (sse && response.body) await relayStream(response.body, res, call, started);
    else {
      const text = scrub(await response.text());
      res.end(text);
      call.usage = usageOfJson(text);
    }
  } catch (error) {
    res.destroy();
    return done(response.status, scrub(`the upstream's response broke off: ${causeOf(error)}`));
  }
  return done(response.status);
}

/**
 * The request body as forwarded: the agent's own, except that a streamed chat completion asks for
 * the usage chunk (`stream_options.include_usage`) when the agent did not, so the stream is measured.
 */
function withStreamedUsage(raw: string, call: ModelCall): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return raw; // the upstream answers a broken body itself
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return raw;
  const body = parsed as Record<string, unknown>;
  call.model = typeof body.model === "string" ? body.model.slice(0, 200) : null;
  call.stream = body.stream === true;
  if (!call.stream) return raw;
  const asked = body.stream_options;
  const options = asked !== null && typeof asked === "object" ? (asked as Record<string, unknown>) : {};
  if (options.include_usage === true) return raw;
  return JSON.stringify({ ...body, stream_options: { ...options, include_usage: true } });
}

/** Relays an SSE stream event by event (each scrubbed), keeping the last `usage` any event carried. */
async function relayStream(
  stream: ReadableStream<Uint8Array>,
  res: ServerResponse,
  call: ModelCall,
  started: number,
): Promise<void> {
  res.setHeader("cache-control", "no-cache");
  res.flushHeaders();
  const decoder = new TextDecoder();
  let pending = "";
  const flush = (final: boolean) => {
    const events = pending.split(/(?<=\r?\n\r?\n)/);
    pending = final ? "" : events.pop()!;
    for (const event of events) {
      res.write(scrub(event));
      for (const line of event.split(/\r?\n/)) {
        if (!line.startsWith("data:")) continue;
        const usage = usageOfJson(line.slice(5).trim());
        if (usage.inputTokens !== null || usage.outputTokens !== null) call.usage = usage;
      }
    }
  };
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) {
    call.ttftMs ??= performance.now() - started;
    pending += decoder.decode(chunk, { stream: true });
    flush(false);
  }
  pending += decoder.decode();
  if (pending) pending += "\n\n";
  flush(true);
  res.end();
}

function usageOfJson(text: string): ReportedUsage {
  try {
    const parsed = JSON.parse(text) as { usage?: unknown } | null;
    return readUsage(parsed?.usage);
  } catch {
    return { ...UNKNOWN_USAGE };
  }
}

/** The body, or null past MAX_REQUEST_BYTES. */
async function readBody(req: IncomingMessage): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_REQUEST_BYTES) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** An OpenAI-style error body, so the agent's SDK shows the message. */
function answer(res: ServerResponse, status: number, message: string): void {
  res.statusCode = status;
  res.setHeader("content-type", "application/json");
  res.end(JSON.stringify({ error: { message, type: "umpire_model_proxy", code: status } }));
}

function sameToken(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function causeOf(error: unknown): string {
  const cause = (error as { cause?: { message?: string; code?: string } } | null)?.cause;
  return cause?.code ?? cause?.message ?? messageOf(error);
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
