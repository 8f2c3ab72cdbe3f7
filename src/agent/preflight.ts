/**
 * The preflight: before the first trial, each distinct endpoint + model is asked whether it is
 * reachable, accepts the key and serves the model. A dead or misconfigured endpoint then stops
 * the run in seconds, before any browser starts, with a message naming the URL, the model and the
 * fix, instead of every trial burning its retries and ending in `error`.
 *
 * How: `GET <base>/models` (reachable + authenticated + the model listed). A model the list does not
 * name is not yet refused: routing proxies serve wildcard routes they never list, and many servers
 * list aliases or nothing at all. It, like an endpoint without a usable list (404, 405, not a list),
 * gets a one-token chat completion, and only a definite "no such model" (model_not_found, or a 404
 * about the model) refuses it. The other definite answers are no connection and 401/403; anything
 * else (a 5xx, an odd body) is reported as inconclusive and the run goes on, since trials retry those.
 *
 * Requests are built as the model client builds them (`splitBaseUrl`): a query string on the base
 * URL (`?api-key=...`) goes after the path, user info becomes Basic auth when no key is given.
 *
 * Each request is retried on a transient failure, as the model client retries (retry.ts): a dropped
 * or refused connection, a timeout, 429, 502, 503, 504; up to PREFLIGHT_RETRIES times with growing
 * waits. One dropped connection used to refuse the whole run ("other side closed") while the endpoint
 * was up and answered the next request (issue #38).
 */
import { splitBaseUrl } from "./client.js";
import { createEndpointFetch, DEFAULT_CONNECT_TIMEOUT_MS, type FetchFunction } from "./http-fetch.js";
import { messageOf } from "../errors.js";

export interface PreflightTarget {
  /** OpenAI-compatible base URL, e.g. http://localhost:8000/v1 (without credentials for messages). */
  baseUrl: string;
  /** The URL as shown to the user: no user info, no query string. */
  shownUrl: string;
  model: string;
  /** Sent as `Authorization: Bearer`; absent: no header. */
  apiKey?: string;
  /** The environment variable the key came from, for the fix line. */
  apiKeyEnv: string | null;
}

export type PreflightProblem = "unreachable" | "auth" | "model";

export type PreflightResult =
  | { ok: true; via: "models" | "completion"; note?: string }
  | { ok: false; problem: PreflightProblem; message: string; hint: string };

export interface PreflightOptions {
  fetch?: FetchFunction;
  connectTimeoutMs?: number;
  /** Limit on each preflight request once connected (default 15 s). */
  timeoutMs?: number;
  /** Waits before the retries of a transient failure, in ms (default PREFLIGHT_BACKOFF_MS). */
  backoffMs?: readonly number[];
}

/** Waits before each retry of a transient failure: three retries, about 3.5 s in all. */
export const PREFLIGHT_BACKOFF_MS = [500, 1_000, 2_000] as const;
/** Statuses that say "try again" rather than answer the question. */
const TRANSIENT_STATUSES = new Set([429, 502, 503, 504]);

/**
 * One preflight request with its retries: a thrown transport error or a transient status is tried
 * again after the next wait; the last attempt's response (or error) is the answer.
 */
async function fetchRetrying(
  doFetch: FetchFunction,
  url: string,
  init: Omit<RequestInit, "signal">,
  timeoutMs: number,
  backoffMs: readonly number[],
): Promise<{ res: Response; text: string }> {
  for (let attempt = 0; ; attempt++) {
    const last = attempt >= backoffMs.length;
    try {
      const res = await doFetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
      const text = await res.text();
      if (last || !TRANSIENT_STATUSES.has(res.status)) return { res, text };
    } catch (error) {
      if (last) throw error;
    }
    await new Promise((r) => setTimeout(r, backoffMs[attempt]));
  }
}

const errorText = (error: unknown) => {
  const cause = (error as { cause?: unknown }).cause;
  const own = messageOf(error);
  return cause instanceof Error && !own.includes(cause.message) ? `${own}: ${cause.message}` : own;
};

/** The `error.message` of an OpenAI-style error body, or the start of the text. */
function bodyMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown; detail?: unknown };
    const m = typeof body.error === "object" ? body.error?.message : (body.error ?? body.message ?? body.detail);
    if (typeof m === "string") return m;
  } catch {
    // not JSON
  }
  return text.slice(0, 200);
}

/** Checks one endpoint + model. Never throws. */
export async function preflight(target: PreflightTarget, options: PreflightOptions = {}): Promise<PreflightResult> {
  const doFetch = options.fetch ?? createEndpointFetch(options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS);
  const timeoutMs = options.timeoutMs ?? 15_000;
  const endpoint = splitBaseUrl(target.baseUrl);
  const headers: Record<string, string> = { accept: "application/json" };
  const authorization = target.apiKey !== undefined ? `Bearer ${target.apiKey}` : endpoint.basicAuth;
  if (authorization !== undefined) headers.authorization = authorization;
  const query = endpoint.query ? `?${new URLSearchParams(endpoint.query)}` : "";
  const urlOf = (path: string) => `${endpoint.baseURL}${path}${query}`;
  const send = (path: string, init: Omit<RequestInit, "signal">) =>
    fetchRetrying(doFetch, urlOf(path), init, timeoutMs, options.backoffMs ?? PREFLIGHT_BACKOFF_MS);
  const where = `${target.model} at ${target.shownUrl}`;

  const unreachable = (error: unknown): PreflightResult => ({
    ok: false,
    problem: "unreachable",
    message: `cannot reach the model endpoint ${target.shownUrl} (model ${target.model}): ${errorText(error)}`,
    hint: `start the server or correct --base-url (it must be the OpenAI-compatible base, e.g. http://localhost:8000/v1); --no-preflight skips this check`,
  });
  const refused = (status: number, text: string): PreflightResult => ({
    ok: false,
    problem: "auth",
    message: `the model endpoint ${target.shownUrl} refused the request for ${target.model} with HTTP ${status}: ${bodyMessage(text)}`,
    hint:
      target.apiKeyEnv === null
        ? `this endpoint wants a key: name the environment variable that holds it with --api-key-env`
        : `check that ${target.apiKeyEnv} holds a valid key for ${target.shownUrl}, or name another variable with --api-key-env`,
  });
  const missing = (served: string[] | null, detail?: string): PreflightResult => ({
    ok: false,
    problem: "model",
    message: `the model endpoint ${target.shownUrl} does not serve the model '${target.model}'${detail ? ` (${detail})` : ""}`,
    hint:
      served && served.length > 0
        ? `use --model with one of: ${served.slice(0, 20).join(", ")}`
        : `check the model id given to --model`,
  });

  // 1. The model list.
  let listStatus: number;
  /** The ids the list names, when it is a list that lacks the model. */
  let listed: string[] | null = null;
  try {
    const { res, text } = await send("/models", { method: "GET", headers });
    listStatus = res.status;
    if (res.status === 401 || res.status === 403) return refused(res.status, text);
    if (res.ok) {
      const ids = modelIds(text);
      if (ids?.includes(target.model)) return { ok: true, via: "models" };
      listed = ids;
    }
  } catch (error) {
    return unreachable(error);
  }

  // 2. No usable list, or one without the model: a one-token request names the model directly.
  const unlisted =
    listed === null ? "" : ` (GET /models does not list it${listed.length === 0 ? ": the list is empty" : ""})`;
  try {
    const { res, text } = await send("/chat/completions", {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ model: target.model, messages: [{ role: "user", content: "ping" }], max_tokens: 1 }),
    });
    if (res.status === 401 || res.status === 403) return refused(res.status, text);
    if (res.ok)
      return {
        ok: true,
        via: "completion",
        ...(unlisted && { note: `${where}: served${unlisted}, the one-token request was answered` }),
      };
    const message = bodyMessage(text);
    if (/model_not_found/.test(text) || (res.status === 404 && /model/i.test(message))) return missing(listed, message);
    if (res.status === 404) {
      return {
        ok: false,
        problem: "unreachable",
        message: `${target.shownUrl} answers, but not as an OpenAI-compatible API (GET /models: ${listStatus}, POST /chat/completions: 404)`,
        hint: "check --base-url: it usually ends in /v1",
      };
    }
    // 400 (our ping judged on its content), 429, 5xx: reachable; the trials' own retries deal with the rest.
    return {
      ok: true,
      via: "completion",
      note: `${where}${unlisted}: the one-token check got HTTP ${res.status} (${message}); going on`,
    };
  } catch (error) {
    return unreachable(error);
  }
}

/** The model ids of an OpenAI-style `{data: [{id}]}` list, or null when the body is not one. */
function modelIds(text: string): string[] | null {
  try {
    const body = JSON.parse(text) as { data?: unknown };
    if (!Array.isArray(body.data)) return null;
    return body.data
      .map((m) =>
        m && typeof m === "object" && typeof (m as { id?: unknown }).id === "string" ? (m as { id: string }).id : null,
      )
      .filter((id): id is string => id !== null);
  } catch {
    return null;
  }
}
