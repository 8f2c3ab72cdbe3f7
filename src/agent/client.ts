/**
 * The HTTP side of a model turn: the openai SDK client (its own retries off), umpire's retry
 * loop (retry.ts), a per-request timeout that also covers reading a stream, and the caller's
 * AbortSignal honoured at every await (request, stream, backoff sleep).
 *
 * Abort semantics: when the caller's signal aborts, `complete()` rejects with the signal's
 * reason (cancellation and the trial timeout are the caller's to tell apart). Every other
 * failure is returned as data, never thrown.
 */
import OpenAI from "openai";
import type { RetryPolicy } from "./config.js";
import type { ModelReply } from "./reply.js";
import { replyFromCompletion, replyFromGenerateContent, replyFromMessage, replyFromResponse } from "./reply.js";
import { abortReason, classifyFailure, retryDelayMs, sleep, type FailureKind, type ModelFailure } from "./retry.js";
import { createEndpointFetch, type FetchFunction } from "./http-fetch.js";
import { StreamAccumulator } from "./stream.js";
import { ERROR_BODY_LIMIT, capText } from "../safety/limits.js";
import type { ProtocolApi } from "./protocols/protocol.js";

/** The SDK's base URL (no user info, no query), the query as default parameters, and user info as Basic auth. */
export function splitBaseUrl(raw: string): { baseURL: string; query?: Record<string, string>; basicAuth?: string } {
  const url = new URL(raw);
  const query = url.search.length > 1 ? Object.fromEntries(url.searchParams) : undefined;
  const basicAuth =
    url.username || url.password
      ? `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString("base64")}`
      : undefined;
  url.username = "";
  url.password = "";
  url.search = "";
  url.hash = "";
  return { baseURL: url.toString().replace(/\/+$/, ""), ...(query && { query }), ...(basicAuth && { basicAuth }) };
}

export interface ModelClientOptions {
  /** OpenAI-compatible base URL, e.g. https://api.hcompany.ai/v1 */
  baseUrl: string;
  /** Sent as `Authorization: Bearer`; without it no Authorization header is sent at all. */
  apiKey?: string;
  requestTimeoutMs: number;
  /** Limit on opening the TCP connection, apart from the response timeout (default 1 s). */
  connectTimeoutMs?: number;
  retry: RetryPolicy;
  fetch?: FetchFunction;
  /** Jitter source, injectable for tests. */
  random?: () => number;
  /** Which API the requests go to (the protocol's); default Chat Completions. */
  api?: ProtocolApi;
}

/** One failed attempt, for the trial log. `waitMs` is the backoff before the next attempt, null for the last. */
export interface AttemptFailure {
  attempt: number;
  kind: FailureKind;
  status?: number;
  message: string;
  waitMs: number | null;
}

interface CallTiming {
  /** Wall time of the whole call, retries and waits included. */
  modelMs: number;
  /** Time to first token of the attempt that produced the result (streaming only). */
  ttftMs: number | null;
  retries: number;
  failures: AttemptFailure[];
}

export type ModelCallResult =
  | ({ ok: true; reply: ModelReply } & CallTiming)
  | ({ ok: false; failure: ModelFailure; partial: ModelReply | null } & CallTiming);

type AttemptResult =
  | { ok: true; reply: ModelReply; ttftMs: number | null }
  | { ok: false; failure: ModelFailure; partial: ModelReply | null; ttftMs: number | null };

export class ModelClient {
  private readonly sdk: OpenAI;
  /** Anthropic's SDK, loaded on first use: only Messages API protocols need it. */
  private anthropicSdk: Promise<{
    messages: { create: (...args: never[]) => unknown };
    beta: { messages: { create: (...args: never[]) => unknown } };
  }> | null = null;
  /** Google's SDK, loaded on first use: only Gemini's generateContent protocol needs it. */
  private googleSdk: Promise<{ models: { generateContent: (params: never) => Promise<unknown> } }> | null = null;
  private readonly recordingFetch: FetchFunction;
  /** Body of the latest non-2xx response (see classifyFailure for why it is kept). */
  private lastErrorBody: string | undefined;

  constructor(private readonly options: ModelClientOptions) {
    const baseFetch: FetchFunction = options.fetch ?? createEndpointFetch(options.connectTimeoutMs);
    const recordingFetch: FetchFunction = async (input, init) => {
      const response = await baseFetch(input, init);
      if (response.ok) return response;
      // Bounded: a hostile or broken server can send megabytes of error body; the log needs the start.
      const text = capText(await response.text().catch(() => ""), ERROR_BODY_LIMIT);
      this.lastErrorBody = text;
      return new Response(text, {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    };
    this.recordingFetch = recordingFetch;
    const endpoint = splitBaseUrl(options.baseUrl);
    this.sdk = new OpenAI({
      baseURL: endpoint.baseURL,
      // A query string on the base URL (`?api-key=...`, `?api-version=...`) goes on every request,
      // after the path: appending the path to the whole URL would put it inside the query.
      ...(endpoint.query && { defaultQuery: endpoint.query }),
      apiKey: options.apiKey ?? "no-key",
      // null values unset headers: no key means no Authorization header at all. User info in the
      // URL (fetch refuses URLs with credentials, quoting them) becomes Basic auth when no key is given.
      defaultHeaders: options.apiKey === undefined ? { Authorization: endpoint.basicAuth ?? null } : undefined,
      organization: null,
      project: null,
      maxRetries: 0,
      timeout: options.requestTimeoutMs,
      fetch: recordingFetch,
      logLevel: "off",
    });
  }

  /** The Anthropic client, with the same fetch, timeout and no retries of its own. */
  private anthropic() {
    this.anthropicSdk ??= import("@anthropic-ai/sdk").then(({ default: Anthropic }) => {
      const endpoint = splitBaseUrl(this.options.baseUrl);
      return new Anthropic({
        baseURL: endpoint.baseURL,
        apiKey: this.options.apiKey ?? "no-key",
        maxRetries: 0,
        timeout: this.options.requestTimeoutMs,
        fetch: this.recordingFetch,
        logLevel: "off",
      }) as never;
    });
    return this.anthropicSdk;
  }

  /**
   * The Google Gen AI client (Gemini API), with the same fetch and base URL, its own retries off
   * (`attempts: 1`); the SDK appends `/v1beta/models/{model}:generateContent` to the base URL.
   */
  private google() {
    this.googleSdk ??= import("@google/genai").then(({ GoogleGenAI }) => {
      const endpoint = splitBaseUrl(this.options.baseUrl);
      return new GoogleGenAI({
        apiKey: this.options.apiKey ?? "no-key",
        httpOptions: {
          baseUrl: endpoint.baseURL,
          timeout: this.options.requestTimeoutMs,
          retryOptions: { attempts: 1 },
          fetch: this.recordingFetch as never,
        },
      }) as never;
    });
    return this.googleSdk;
  }

  /** generateContent as a `create(body, options)`: the signal and the per-request headers go in its config. */
  private async generateContent(): Promise<(body: unknown, options: { signal: AbortSignal }) => Promise<unknown>> {
    const google = await this.google();
    return (body, options) => {
      const params = body as { config?: Record<string, unknown> };
      const config = { ...params.config, abortSignal: options.signal };
      return google.models.generateContent({ ...params, config } as never);
    };
  }

  /**
   * Sends one chat completion request (streamed when `body.stream` is true), retrying per the
   * policy. Resolves with the reply or a classified failure; rejects only when `signal` aborts.
   */
  async complete(body: Record<string, unknown>, signal?: AbortSignal): Promise<ModelCallResult> {
    const started = performance.now();
    const policy = this.options.retry;
    const failures: AttemptFailure[] = [];
    for (let attempt = 0; ; attempt++) {
      if (signal?.aborted) throw abortReason(signal);
      const result = await this.attempt(body, signal);
      const timing = () => ({
        modelMs: Math.round(performance.now() - started),
        ttftMs: result.ttftMs,
        retries: attempt,
        failures,
      });
      if (result.ok) return { ok: true, reply: result.reply, ...timing() };

      const { failure } = result;
      const retry = failure.retryable && attempt < policy.maxRetries;
      const waitMs = retry ? retryDelayMs(failure, attempt, policy, this.options.random) : null;
      failures.push({
        attempt: attempt + 1,
        kind: failure.kind,
        ...(failure.status !== undefined && { status: failure.status }),
        message: failure.message,
        waitMs,
      });
      if (waitMs === null) return { ok: false, failure, partial: result.partial, ...timing() };
      await sleep(waitMs, signal);
    }
  }

  private async attempt(body: Record<string, unknown>, signal: AbortSignal | undefined): Promise<AttemptResult> {
    const controller = new AbortController();
    const forwardAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener("abort", forwardAbort, { once: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.options.requestTimeoutMs);
    const started = performance.now();
    const requestOptions = { signal: controller.signal, maxRetries: 0, timeout: this.options.requestTimeoutMs };
    let accumulator: StreamAccumulator | null = null;
    let ttftMs: number | null = null;
    this.lastErrorBody = undefined;
    // The body is plain data with H's extra top-level fields; the SDK serialises it as given.
    const api = this.options.api ?? "chat-completions";
    const anthropic = api === "messages" ? await this.anthropic() : null;
    const gemini = api === "generate-content" ? await this.generateContent() : null;
    const create = (gemini ??
      (anthropic
        ? // A body with `betas` (a beta tool) goes through the beta call, which sends them as the
          // anthropic-beta header; one without (the generally available computer toolset) through
          // messages.create, which would send `betas` as a body field.
          body.betas !== undefined
          ? anthropic.beta.messages.create.bind(anthropic.beta.messages)
          : anthropic.messages.create.bind(anthropic.messages)
        : api === "responses"
          ? this.sdk.responses.create.bind(this.sdk.responses)
          : this.sdk.chat.completions.create.bind(this.sdk.chat.completions))) as (
      body: unknown,
      options: typeof requestOptions,
    ) => Promise<unknown>;
    const read = {
      "chat-completions": replyFromCompletion,
      responses: replyFromResponse,
      messages: replyFromMessage,
      "generate-content": replyFromGenerateContent,
    }[api];

    const timeoutFailure = (): AttemptResult => ({
      ok: false,
      failure: {
        kind: "timeout",
        message: `no complete response within ${this.options.requestTimeoutMs} ms`,
        // Once output has arrived, a retry would discard it: keep it and stop instead.
        retryable: !(accumulator?.hasOutput ?? false),
        retryAfterMs: null,
      },
      partial: accumulator?.reply() ?? null,
      ttftMs,
    });

    try {
      if (body.stream !== true) {
        return { ok: true, reply: read(await create(body, requestOptions)), ttftMs: null };
      }
      const stream = (await create(body, requestOptions)) as AsyncIterable<unknown>;
      accumulator = new StreamAccumulator();
      for await (const chunk of stream) {
        if (accumulator.add(chunk) && ttftMs === null) ttftMs = Math.round(performance.now() - started);
      }
      // The SDK ends a stream quietly when its signal aborts: find out why it ended.
      if (signal?.aborted) throw abortReason(signal);
      if (timedOut) return timeoutFailure();
      return { ok: true, reply: accumulator.reply(), ttftMs };
    } catch (error) {
      if (signal?.aborted) throw abortReason(signal);
      if (timedOut) return timeoutFailure();
      const failure = classifyFailure(error, this.lastErrorBody);
      if (accumulator?.hasOutput) {
        // The response had started: nothing of it is executed (a partial call can change meaning
        // as fragments arrive). What arrived is kept in the failure's message for the log, and
        // the request is retried like any transport error: no action of it ran, so a retry is safe.
        const partial = accumulator.reply();
        const arrived = [
          partial.content ?? "",
          ...partial.toolCalls.map((c) => `${c.name ?? ""}(${c.arguments ?? ""})`),
        ]
          .join(" ")
          .trim();
        return {
          ok: false,
          failure: {
            ...failure,
            kind: "stream_broken",
            message: `the stream broke off after ${arrived.length} characters (${JSON.stringify(arrived.slice(0, 200))}): ${failure.message}`,
            retryable: true,
          },
          partial,
          ttftMs,
        };
      }
      return { ok: false, failure, partial: null, ttftMs };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", forwardAbort);
    }
  }
}
