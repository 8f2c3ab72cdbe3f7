/**
 * Remote browser endpoints: what a `--browser-endpoint URL` means and how to connect to one.
 *
 * Which protocol a URL speaks (decided here, documented in docs/scale-out.md):
 * - `cdp+ws://`, `cdp+wss://`, `cdp+http://`, `cdp+https://`: CDP, explicitly (the prefix is
 *   removed before connecting). Needed for services whose CDP socket has no telling path, e.g.
 *   Browserless's `ws://host:3000?token=...`.
 * - `http://`, `https://`: CDP (Playwright reads `/json/version` to find the socket).
 * - `ws://`, `wss://` whose path starts with `/devtools/browser/`: CDP (what Chromium prints for
 *   `--remote-debugging-port`).
 * - any other `ws://` or `wss://`: a Playwright browser server (`launchServer`,
 *   `npx playwright run-server`, Browserless's `/playwright/chromium`, Moon, ...).
 * `?capacity=N` (default 4) says how many trials may use the endpoint at once; it is removed from
 * the URL before connecting, every other query parameter (a token) is kept.
 */
import type { Browser } from "playwright";
import { chromium } from "../../browser/playwright.js";
import { processTempDir } from "../../browser/scratch.js";
import { UmpireError, firstLineOf } from "../../errors.js";

export type EndpointProtocol = "playwright" | "cdp";

export interface BrowserEndpoint {
  /** The URL handed to Playwright: capacity and any `cdp+` prefix removed. */
  connectUrl: string;
  protocol: EndpointProtocol;
  /** Trials that may hold a lease on this endpoint at once. */
  capacity: number;
  /** The URL for messages and records: no credentials, no query, no token-like path segments. */
  label: string;
}

export const DEFAULT_ENDPOINT_CAPACITY = 4;
const MAX_CAPACITY = 1000;

/** Parses one `--browser-endpoint` value; throws a `usage` error that names the value and the fix. */
export function parseBrowserEndpoint(raw: string): BrowserEndpoint {
  const explicitCdp = /^cdp\+/i.test(raw);
  const text = explicitCdp ? raw.slice(4) : raw;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UmpireError(
      "usage",
      `--browser-endpoint ${raw}: not a URL`,
      "e.g. --browser-endpoint ws://browsers.internal:3000/?capacity=8",
    );
  }
  const scheme = url.protocol.replace(/:$/, "").toLowerCase();
  if (!["ws", "wss", "http", "https"].includes(scheme)) {
    throw new UmpireError(
      "usage",
      `--browser-endpoint ${labelOf(url)}: unsupported scheme "${scheme}"`,
      "use ws:// or wss:// (a Playwright browser server), http(s):// or ws://.../devtools/browser/... (CDP), or prefix cdp+ to force CDP",
    );
  }
  let capacity = DEFAULT_ENDPOINT_CAPACITY;
  const given = url.searchParams.get("capacity");
  if (given !== null) {
    const n = Number(given);
    if (!Number.isInteger(n) || n < 1 || n > MAX_CAPACITY) {
      throw new UmpireError(
        "usage",
        `--browser-endpoint ${labelOf(url)}: capacity=${given} is not a whole number from 1 to ${MAX_CAPACITY}`,
        "e.g. ?capacity=8",
      );
    }
    capacity = n;
    url.searchParams.delete("capacity");
  }
  const cdp = explicitCdp || scheme === "http" || scheme === "https" || url.pathname.startsWith("/devtools/browser/");
  // URL keeps a lone "?" after the last parameter is deleted; Playwright does not need it.
  const connectUrl = url.toString().replace(/\?$/, "");
  return { connectUrl, protocol: cdp ? "cdp" : "playwright", capacity, label: labelOf(url) };
}

/**
 * A URL fit for messages: scheme, host and path, without user info or query, and with path
 * segments that look like access tokens (Playwright's random server path, CDP browser ids)
 * shortened to "…".
 */
export function labelOf(url: URL): string {
  const path = url.pathname
    .split("/")
    .map((segment) => (/^[0-9a-f-]{16,}$/i.test(segment) || segment.length > 40 ? "…" : segment))
    .join("/");
  return `${url.protocol}//${url.host}${path === "/" ? "" : path}`;
}

/**
 * Connects to an endpoint within `timeoutMs`. Playwright's own timeout covers the handshake; the
 * race covers anything slower (a server that accepts and never answers), and a browser that
 * arrives after the deadline is closed rather than leaked.
 */
export async function connectEndpoint(endpoint: BrowserEndpoint, timeoutMs: number): Promise<Browser> {
  const attempt =
    endpoint.protocol === "cdp"
      ? // Its artifacts folder in this process's temp folder (a killed umpire's is removed by the next one).
        chromium.connectOverCDP(endpoint.connectUrl, { timeout: timeoutMs, artifactsDir: processTempDir("artifacts-") })
      : chromium.connect(endpoint.connectUrl, { timeout: timeoutMs });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${(timeoutMs / 1000).toFixed(1)} s`)), timeoutMs + 500);
  });
  try {
    return await Promise.race([attempt, deadline]);
  } catch (error) {
    attempt.then(
      (late) => late.close().catch(() => undefined),
      () => undefined,
    );
    throw new Error(firstLine(error));
  } finally {
    clearTimeout(timer);
  }
}

/** Playwright errors carry a call log after the first line; messages keep the first line only. */
export function firstLine(error: unknown): string {
  return firstLineOf(error).replace(/^browserType\.connect(OverCDP)?: /, "");
}
