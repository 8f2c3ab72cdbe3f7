/**
 * A `fetch` for model endpoints with a connect timeout of its own, apart from the response
 * timeout: an unreachable host (packets dropped, nothing listening behind a firewall) fails in
 * about a second instead of waiting out the response timeout, which must stay long because a
 * reasoning model may think for minutes once connected.
 *
 * Built on node:http(s) rather than the global fetch because Node 20's fetch has no per-request
 * connect timeout (that needs an undici Agent, which Node does not expose). Keep-alive agents keep
 * the connection reuse the global fetch had. The body is streamed as it arrives (SSE works).
 */
import http from "node:http";
import https from "node:https";
import { Readable } from "node:stream";

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

async function bodyBytes(body: BodyInit | null | undefined): Promise<Buffer | undefined> {
  if (body === null || body === undefined) return undefined;
  if (typeof body === "string") return Buffer.from(body);
  return Buffer.from(await new Response(body).arrayBuffer());
}

function plainHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => (out[name] = value));
  return out;
}

function headersOf(res: http.IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return headers;
}

/** A fetch whose TCP connect must succeed within `connectTimeoutMs`. */
export function createEndpointFetch(connectTimeoutMs = DEFAULT_CONNECT_TIMEOUT_MS): FetchFunction {
  const agents = { "http:": new http.Agent({ keepAlive: true }), "https:": new https.Agent({ keepAlive: true }) };
  return async (input, init = {}) => {
    const request = input instanceof Request ? input : undefined;
    const url = new URL(request ? request.url : input.toString());
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new TypeError(`unsupported URL scheme ${url.protocol}`);
    const method = init.method ?? request?.method ?? "GET";
    const headers = new Headers(init.headers ?? request?.headers);
    // node:http does not decompress: ask for the body as it is.
    headers.delete("accept-encoding");
    const body = await bodyBytes(init.body ?? (request?.body as BodyInit | null | undefined));
    if (body) headers.set("content-length", String(body.length));
    const signal = init.signal ?? request?.signal ?? undefined;
    signal?.throwIfAborted();
    const transport = url.protocol === "https:" ? https : http;

    return new Promise<Response>((resolve, reject) => {
      const req = transport.request(url, { method, headers: plainHeaders(headers), agent: agents[url.protocol as "http:" | "https:"] });
      const onAbort = () => req.destroy(signal?.reason instanceof Error ? signal.reason : new DOMException("The operation was aborted.", "AbortError"));
      signal?.addEventListener("abort", onAbort, { once: true });
      req.on("close", () => signal?.removeEventListener("abort", onAbort));
      req.on("socket", (socket) => {
        // A reused keep-alive socket is already connected: only a fresh connect is timed.
        if (!socket.connecting) return;
        const timer = setTimeout(() => req.destroy(new ConnectTimeoutError(url.host, connectTimeoutMs)), connectTimeoutMs);
        socket.once("connect", () => clearTimeout(timer));
        socket.once("close", () => clearTimeout(timer));
      });
      req.on("error", reject);
      req.on("response", (res) => {
        const empty = method === "HEAD" || res.statusCode === 204 || res.statusCode === 304;
        const stream = empty ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
        resolve(new Response(stream, { status: res.statusCode ?? 500, statusText: res.statusMessage ?? "", headers: headersOf(res) }));
      });
      req.end(body);
    });
  };
}
