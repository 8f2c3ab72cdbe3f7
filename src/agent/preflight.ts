/**
 * The preflight: before the first trial, each distinct endpoint + model is asked whether it is
 * reachable, accepts the key and serves the model. A dead or misconfigured endpoint then stops
 * the run in seconds, before any browser starts, with a message naming the URL, the model and the
 * fix, instead of every trial burning its retries and ending in `error`.
 *
 * How: `GET <base>/models` (reachable + authenticated + the model listed). An endpoint without a
 * usable model list (404, 405, not a list) gets a one-token chat completion instead. Only definite
 * answers fail the preflight (no connection, 401/403, the model not served); anything else (a 5xx,
 * an odd body) is reported as inconclusive and the run goes on, since trials retry those.
 */
import { createEndpointFetch, DEFAULT_CONNECT_TIMEOUT_MS, type FetchFunction } from "./http-fetch.js";

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
}

const errorText = (error: unknown) => {
  const cause = (error as { cause?: unknown }).cause;
  const own = error instanceof Error ? error.message : String(error);
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
  const headers: Record<string, string> = { accept: "application/json" };
  if (target.apiKey !== undefined) headers.authorization = `Bearer ${target.apiKey}`;
  const base = target.baseUrl.replace(/\/+$/, "");
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
    hint: served && served.length > 0 ? `use --model with one of: ${served.slice(0, 20).join(", ")}` : `check the model id given to --model`,
  });

  // 1. The model list.
  let listStatus: number;
  try {
    const res = await doFetch(`${base}/models`, { method: "GET", headers, signal: AbortSignal.timeout(timeoutMs) });
    const text = await res.text();
    listStatus = res.status;
    if (res.status === 401 || res.status === 403) return refused(res.status, text);
    if (res.ok) {
      const ids = modelIds(text);
      if (ids !== null) return ids.includes(target.model) ? { ok: true, via: "models" } : missing(ids);
    }
  } catch (error) {
    return unreachable(error);
  }

  // 2. No usable list: a one-token request names the model directly.
  try {
    const res = await doFetch(`${base}/chat/completions`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ model: target.model, messages: [{ role: "user", content: "ping" }], max_tokens: 1 }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    if (res.status === 401 || res.status === 403) return refused(res.status, text);
    if (res.ok) return { ok: true, via: "completion" };
    const message = bodyMessage(text);
    if (res.status === 404 && (/model/i.test(message) || /model_not_found/.test(text))) return missing(null, message);
    if (res.status === 404) {
      return { ok: false, problem: "unreachable", message: `${target.shownUrl} answers, but not as an OpenAI-compatible API (GET /models: ${listStatus}, POST /chat/completions: 404)`, hint: "check --base-url: it usually ends in /v1" };
    }
    // 400 (our ping judged on its content), 429, 5xx: reachable; the trials' own retries deal with the rest.
    return { ok: true, via: "completion", note: `${where}: the one-token check got HTTP ${res.status} (${message}); going on` };
  } catch (error) {
    return unreachable(error);
  }
}

/** The model ids of an OpenAI-style `{data: [{id}]}` list, or null when the body is not one. */
function modelIds(text: string): string[] | null {
  try {
    const body = JSON.parse(text) as { data?: unknown };
    if (!Array.isArray(body.data)) return null;
    return body.data.map((m) => (m && typeof m === "object" && typeof (m as { id?: unknown }).id === "string" ? (m as { id: string }).id : null)).filter((id): id is string => id !== null);
  } catch {
    return null;
  }
}
