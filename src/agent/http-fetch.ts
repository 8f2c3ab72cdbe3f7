/**
 * A `fetch` for model endpoints with a connect timeout of its own, apart from the response
 * timeout: an unreachable host (packets dropped, nothing listening behind a firewall) fails in
 * about a second instead of waiting out the response timeout, which must stay long because a
 * reasoning model may think for minutes once connected.
 *
 * undici's own `fetch` with an `Agent({ connect: { timeout } })` as its dispatcher: Node 20's global
 * fetch is undici too, but exposes no dispatcher option, so the package is a direct dependency.
 * Pinned to undici 6: undici 7 needs Node >= 20.18.1 while umpire supports every Node 20. The agent
 * keeps connections alive (reuse as the global fetch had) and the body streams as it arrives (SSE).
 */
import { Agent, fetch as undiciFetch, type RequestInit as UndiciRequestInit } from "undici";

export type FetchFunction = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Default connect timeout: a local or LAN endpoint connects in milliseconds, a distant one well under a second. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 1_000;

/** The error a connect timeout rejects with; its message names the host and the limit. */
export class ConnectTimeoutError extends Error {
  readonly code = "UMPIRE_CONNECT_TIMEOUT";
  constructor(host: string, ms: number) {
    super(`connect timeout: no connection to ${host} within ${ms} ms (is the host reachable?)`);
    this.name = "ConnectTimeoutError";
  }
}

/** undici's fetch rejects with `TypeError("fetch failed")` whose cause says what failed. */
const isConnectTimeout = (error: unknown) =>
  (error as { cause?: { code?: unknown } } | null)?.cause?.code === "UND_ERR_CONNECT_TIMEOUT";

/**
 * A global `Request` is not undici's own class (the package is another copy than Node's bundled
 * one), so it is handed over as its URL and fields.
 */
async function requestParts(input: string | URL | Request, init: RequestInit): Promise<[string, RequestInit]> {
  if (!(input instanceof Request)) return [input.toString(), init];
  const body = input.body === null ? undefined : await input.arrayBuffer();
  const fields: RequestInit = {
    method: input.method,
    headers: input.headers,
    signal: input.signal,
    ...(body && { body }),
  };
  return [input.url, { ...fields, ...init }];
}

/** A fetch whose TCP connect must succeed within `connectTimeoutMs`. */
export function createEndpointFetch(connectTimeoutMs = DEFAULT_CONNECT_TIMEOUT_MS): FetchFunction {
  const dispatcher = new Agent({ connect: { timeout: connectTimeoutMs } });
  return async (input, init = {}) => {
    const [url, fields] = await requestParts(input, init);
    try {
      // undici's Response and the global one are the same WHATWG shape; only the class identity differs.
      return (await undiciFetch(url, { ...(fields as UndiciRequestInit), dispatcher })) as unknown as Response;
    } catch (error) {
      if (isConnectTimeout(error)) throw new ConnectTimeoutError(new URL(url).host, connectTimeoutMs);
      throw error;
    }
  };
}
