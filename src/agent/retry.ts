/**
 * umpire's retry policy for model requests (the SDK's own retries are off: `maxRetries: 0`).
 *
 * - Retried: transport errors (connection refused or dropped, bad body), request timeouts,
 *   HTTP 429 and 5xx. Each wait is the server's `retry-after-ms` / `retry-after` (seconds or
 *   an HTTP date), capped at `retryAfterCapMs`; without one, exponential backoff
 *   `min(maxDelayMs, baseDelayMs * 2^n)` with "equal jitter" (a random point in its upper half).
 *   At most `maxRetries` retries, then the turn ends as an error (`model_error`).
 * - Not retried: 401/403 (auth), `model_not_found`, every other 4xx: the server's own message
 *   is reported at once. Repeating them can only fail the same way.
 */
import { APIConnectionError, APIConnectionTimeoutError, APIError } from "openai";
import type { RetryPolicy } from "./config.js";
import { messageOf } from "../errors.js";

export type FailureKind =
  | "rate_limited"
  | "server_error"
  | "transport"
  | "timeout"
  | "auth"
  | "model_not_found"
  | "client_error"
  | "stream_broken";

/** A failed model request, classified. */
export interface ModelFailure {
  kind: FailureKind;
  status?: number;
  /** The server's message when it sent one, else what the transport said. */
  message: string;
  retryable: boolean;
  /** The wait the server asked for, in ms, before any cap; `null` when it did not ask. */
  retryAfterMs: number | null;
}

/**
 * Classifies an error thrown by the openai SDK (or by reading its response). `errorBody` is the
 * raw body of a non-2xx response: the SDK only keeps `body.error`, so servers that answer
 * `{"message": ...}` or `{"detail": ...}` (vLLM, FastAPI) would otherwise lose their message.
 */
export function classifyFailure(error: unknown, errorBody?: string): ModelFailure {
  // Anthropic's SDK has its own error classes of the same shape (status, headers; connection errors by name).
  const name = (error as { constructor?: { name?: string } } | null)?.constructor?.name;
  if (!(error instanceof APIError) && typeof (error as { status?: unknown } | null)?.status === "number") {
    const status = (error as { status: number }).status;
    const message = serverMessage(errorBody) ?? messageOf(error);
    const headers = (error as { headers?: Pick<Headers, "get"> }).headers;
    const retryAfterMs = parseRetryAfter(headers && typeof headers.get === "function" ? headers : undefined);
    if (status === 429) return { kind: "rate_limited", status, message, retryable: true, retryAfterMs };
    if (status >= 500) return { kind: "server_error", status, message, retryable: true, retryAfterMs };
    if (status === 404 && /model/i.test(errorBody ?? ""))
      return { kind: "model_not_found", status, message, retryable: false, retryAfterMs: null };
    if (status === 401 || status === 403)
      return { kind: "auth", status, message, retryable: false, retryAfterMs: null };
    return { kind: "client_error", status, message, retryable: false, retryAfterMs: null };
  }
  if (name === "APIConnectionTimeoutError")
    return { kind: "timeout", message: "the request timed out", retryable: true, retryAfterMs: null };
  if (error instanceof APIError && typeof error.status === "number") {
    const status = error.status;
    const message = serverMessage(errorBody) ?? error.message;
    const retryAfterMs = parseRetryAfter(error.headers ?? undefined);
    const code = String(error.code ?? "");
    if (status === 429) return { kind: "rate_limited", status, message, retryable: true, retryAfterMs };
    if (status >= 500) return { kind: "server_error", status, message, retryable: true, retryAfterMs };
    if (code === "model_not_found" || /model_not_found/.test(errorBody ?? "")) {
      return { kind: "model_not_found", status, message, retryable: false, retryAfterMs: null };
    }
    if (status === 401 || status === 403)
      return { kind: "auth", status, message, retryable: false, retryAfterMs: null };
    return { kind: "client_error", status, message, retryable: false, retryAfterMs: null };
  }
  if (error instanceof APIConnectionTimeoutError) {
    return { kind: "timeout", message: "the request timed out", retryable: true, retryAfterMs: null };
  }
  if (error instanceof APIConnectionError) {
    const cause = (error as { cause?: unknown }).cause;
    const detail = cause instanceof Error ? `: ${cause.message}` : "";
    return { kind: "transport", message: `${error.message}${detail}`, retryable: true, retryAfterMs: null };
  }
  // Anything else while the response was being read (a dropped connection mid-body, a body
  // that is not JSON) is a transport failure too.
  const message = messageOf(error);
  return { kind: "transport", message, retryable: true, retryAfterMs: null };
}

/** The human message inside an error body: `error.message`, `message`, `detail`, or the text itself. */
export function serverMessage(body: string | undefined): string | null {
  if (body === undefined || body.trim() === "") return null;
  try {
    const json = JSON.parse(body) as Record<string, unknown>;
    const error = json.error;
    if (error !== null && typeof error === "object" && typeof (error as Record<string, unknown>).message === "string") {
      return (error as Record<string, unknown>).message as string;
    }
    if (typeof error === "string") return error;
    if (typeof json.message === "string") return json.message;
    if (typeof json.detail === "string") return json.detail;
  } catch {
    // not JSON: fall through to the raw text
  }
  return body.trim().slice(0, 500);
}

/**
 * The wait a response asks for, in ms: `retry-after-ms`, else `retry-after` as seconds or as
 * an HTTP date. `null` when absent or unreadable; never negative.
 */
export function parseRetryAfter(headers: Pick<Headers, "get"> | undefined, now: number = Date.now()): number | null {
  if (!headers) return null;
  const ms = headers.get("retry-after-ms");
  if (ms !== null && ms.trim() !== "" && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headers.get("retry-after");
  if (value === null || value.trim() === "") return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** How long to wait before retry number `retryIndex` (0-based) after `failure`. */
export function retryDelayMs(
  failure: ModelFailure,
  retryIndex: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number {
  if (failure.retryAfterMs !== null) return Math.min(failure.retryAfterMs, policy.retryAfterCapMs);
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retryIndex);
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal as AbortSignal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** The error to throw for an aborted signal: its reason, or a standard AbortError. */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("The operation was aborted.", "AbortError");
}
