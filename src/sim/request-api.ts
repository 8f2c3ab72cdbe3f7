/**
 * Which HTTP API a recorded request is for, and that API's lint. The reference model picks the API
 * by URL path (server.ts: /chat/completions, /responses, /messages, /v1beta/models/{model}:generateContent);
 * a recorded file may not carry its path, so then its headers and the body's shape decide. A body
 * whose signs fit more than one API, or none, is not guessed: the caller is told to name the API.
 * Pure: `umpire lint` reads files and prints, this decides.
 */
import type { ProtocolApi } from "../agent/protocols/protocol.js";
import { geminiCall } from "./gemini-wire.js";
import { lintRequest, type RequestHeaders, type Violation } from "./lint.js";
import { isRecord } from "./request.js";
import { lintVendorRequest } from "./vendor-lint.js";
import type { Vendor } from "./vendor-wire.js";

/** Each API and the vendor lint that checks it (`null`: the chat-completions lint, Holo's and the others'). */
const API_LINT: Record<ProtocolApi, Vendor | null> = {
  "chat-completions": null,
  responses: "openai",
  messages: "anthropic",
  "generate-content": "gemini",
};

/** The APIs a request can be checked as, in the words of `ProtocolApi` (`umpire lint --api`). */
export const REQUEST_APIS = Object.keys(API_LINT) as ProtocolApi[];

/** A request as recorded: its body, and the headers and URL path when the recording kept them. */
export interface RecordedRequest {
  body: unknown;
  /** Names in lower case, as Node's server gives them. Absent: not recorded, so no header rule is checked. */
  headers?: RequestHeaders;
  path?: string;
}

/** The keys that hold a body's conversation, one per API (Messages and chat completions share theirs). */
const CONVERSATION_KEYS = ["messages", "input", "contents"];

/**
 * The request inside a recorded file: the body itself, or `{body, headers?, path?}` (an entry of
 * the reference model's log is one: it has `path` and `body`).
 */
export function recordedRequest(recorded: unknown): RecordedRequest {
  if (!isRecord(recorded) || !isRecord(recorded.body) || CONVERSATION_KEYS.some((k) => k in recorded))
    return { body: recorded };
  const headers = isRecord(recorded.headers)
    ? Object.fromEntries(Object.entries(recorded.headers).map(([name, value]) => [name.toLowerCase(), value]))
    : undefined;
  return {
    body: recorded.body,
    ...(headers && { headers: headers as RequestHeaders }),
    ...(typeof recorded.path === "string" && { path: recorded.path }),
  };
}

/** The API a URL path is routed to, as the reference model routes it; null for any other path. */
export function apiOfPath(path: string): ProtocolApi | null {
  const bare = path.split("?")[0]!;
  if (bare.endsWith("/chat/completions")) return "chat-completions";
  if (bare.endsWith("/responses")) return "responses";
  if (bare.endsWith("/messages")) return "messages";
  const segments = bare.split("/");
  if (segments.at(-2) === "models" && geminiCall(segments.at(-1)!).method === "generateContent")
    return "generate-content";
  return null;
}

/** How the API was decided: named by the caller, by the recorded path, or by the body's (and headers') signs. */
export type ApiDecision =
  | { api: ProtocolApi; by: "--api" | "path" | "shape" }
  | { api: null; problem: string; candidates: ProtocolApi[] };

type Item = Record<string, unknown>;

/** A sign of an API in a request: something the APIs it names send, and the others do not. */
interface Sign {
  what: string;
  apis: readonly ProtocolApi[];
  seen(body: Item, headers: RequestHeaders): boolean;
}

const CHAT: ProtocolApi = "chat-completions";
const list = (value: unknown): Item[] => (Array.isArray(value) ? value.filter(isRecord) : []);
const has = (body: Item, keys: readonly string[]) => keys.some((k) => body[k] !== undefined);
const blocks = (body: Item): Item[] => list(body.messages).flatMap((m) => list(m.content));

const SIGNS: readonly Sign[] = [
  { what: "`messages`", apis: [CHAT, "messages"], seen: (b) => Array.isArray(b.messages) },
  { what: "`input`", apis: ["responses"], seen: (b) => b.input !== undefined },
  { what: "`contents`", apis: ["generate-content"], seen: (b) => b.contents !== undefined },
  {
    what: "a system, developer or tool message",
    apis: [CHAT],
    seen: (b) => list(b.messages).some((m) => m.role === "system" || m.role === "developer" || m.role === "tool"),
  },
  {
    what: "image_url parts or tool_calls",
    apis: [CHAT],
    seen: (b) => blocks(b).some((p) => p.type === "image_url") || list(b.messages).some((m) => "tool_calls" in m),
  },
  {
    what: "a `function` tool of chat completions' form",
    apis: [CHAT],
    seen: (b) => list(b.tools).some((t) => t.type === "function" && isRecord(t.function)),
  },
  {
    what: "a chat-completions field (chat_template_kwargs, structured_outputs, reasoning_effort, response_format)",
    apis: [CHAT],
    seen: (b) => has(b, ["chat_template_kwargs", "structured_outputs", "reasoning_effort", "response_format"]),
  },
  {
    what: "a top-level `system`, `thinking`, `stop_sequences` or `betas`",
    apis: ["messages"],
    seen: (b) => has(b, ["system", "thinking", "stop_sequences", "betas"]),
  },
  {
    what: "image, tool_use or tool_result blocks",
    apis: ["messages"],
    seen: (b) => blocks(b).some((p) => p.type === "image" || p.type === "tool_use" || p.type === "tool_result"),
  },
  {
    what: "an Anthropic computer tool (`computer_*`) or an `input_schema` tool",
    apis: ["messages"],
    seen: (b) => list(b.tools).some((t) => /^computer_(\d{8}|toolset_)/.test(String(t.type)) || "input_schema" in t),
  },
  {
    what: "an anthropic-version or anthropic-beta header",
    apis: ["messages"],
    seen: (_, h) => h["anthropic-version"] !== undefined || h["anthropic-beta"] !== undefined,
  },
  {
    what: "an OpenAI computer tool (`computer`, `computer_use_preview`)",
    apis: ["responses"],
    seen: (b) => list(b.tools).some((t) => t.type === "computer" || t.type === "computer_use_preview"),
  },
  {
    what: "`instructions`, `previous_response_id` or `max_output_tokens`",
    apis: ["responses"],
    seen: (b) => has(b, ["instructions", "previous_response_id", "max_output_tokens"]),
  },
  {
    what: "`systemInstruction`, `generationConfig` or a `computerUse`/`functionDeclarations` tool",
    apis: ["generate-content"],
    seen: (b) =>
      has(b, ["systemInstruction", "generationConfig"]) ||
      list(b.tools).some((t) => "computerUse" in t || "functionDeclarations" in t),
  },
  { what: "an x-goog-api-key header", apis: ["generate-content"], seen: (_, h) => h["x-goog-api-key"] !== undefined },
];

/**
 * The API to check `request` as: `forced` when given, else the recorded path's (as the reference
 * model routes it), else the one API every sign in the body and headers fits. Signs that fit
 * several APIs, or disagree, or no sign at all: `api: null` and the problem, in words.
 */
export function decideApi(request: RecordedRequest, forced?: ProtocolApi): ApiDecision {
  if (forced) return { api: forced, by: "--api" };
  if (request.path !== undefined) {
    const api = apiOfPath(request.path);
    if (api) return { api, by: "path" };
    return { api: null, problem: `its path ${request.path} is none of the APIs' routes`, candidates: REQUEST_APIS };
  }
  const body = isRecord(request.body) ? request.body : {};
  const seen = SIGNS.filter((s) => s.seen(body, request.headers ?? {}));
  if (seen.length === 0)
    return { api: null, problem: "it has none of `messages`, `input` or `contents`", candidates: REQUEST_APIS };
  const fit = REQUEST_APIS.filter((api) => seen.every((s) => s.apis.includes(api)));
  if (fit.length === 1) return { api: fit[0]!, by: "shape" };
  const named = seen.map((s) => `${s.what} (${s.apis.join(" or ")})`).join(", ");
  if (fit.length > 1)
    return { api: null, problem: `it has only signs that fit more than one API: ${named}`, candidates: fit };
  const candidates = REQUEST_APIS.filter((api) => seen.some((s) => s.apis.includes(api)));
  return { api: null, problem: `its signs disagree: ${named}`, candidates };
}

/** Lints a recorded request as a request of `api`: every violation of that API's rules, [] when conformant. */
export function lintAs(api: ProtocolApi, request: RecordedRequest): Violation[] {
  const vendor = API_LINT[api];
  return vendor ? lintVendorRequest(vendor, request.body, request.headers) : lintRequest(request.body, request.headers);
}
