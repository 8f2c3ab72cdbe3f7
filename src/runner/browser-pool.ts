/**
 * Where trials get their browser. Locally: one Chromium per process, relaunched when it
 * crashes. Remotely: one connection per endpoint (a Playwright browser server or a CDP socket),
 * each leasing up to its capacity of trials at once, with a local fallback once every endpoint
 * is gone. Each trial makes its own context in the leased browser.
 *
 * Failure model: a lease never outlives its browser. When an endpoint drops, the trials using it
 * fail (Playwright rejects their pending calls), end as `environment_error`, and the scheduler's
 * one retry acquires again; by then the endpoint is reconnecting or down, so the retry runs on
 * another endpoint or locally.
 */
import type { Browser } from "playwright";
import { launchChromium } from "../browser/chromium.js";
import { UmpireError } from "../errors.js";
import { connectEndpoint, firstLine, parseBrowserEndpoint, type BrowserEndpoint } from "./browser-endpoint.js";

export interface BrowserLease {
  browser: Browser;
  /** Where the browser runs, for the trial record ("local" or an endpoint label). */
  endpoint: string;
  release(): void;
}

export interface BrowserProvider {
  acquire(signal?: AbortSignal): Promise<BrowserLease>;
  /** Connects eagerly, so an unusable configuration fails before any trial starts (optional). */
  start?(): Promise<void>;
  close(): Promise<void>;
}

/** One local Chromium shared by every trial (each trial gets its own context). */
export function createLocalBrowserProvider(launch: () => Promise<Browser> = () => launchChromium()): BrowserProvider {
  let current: Promise<Browser> | undefined;
  let closed = false;
  const get = (): Promise<Browser> => {
    if (!current) {
      const launching = launch();
      current = launching;
      launching.then(
        (browser) => browser.on("disconnected", () => {
          if (current === launching) current = undefined; // a crash: the next trial relaunches
        }),
        () => {
          if (current === launching) current = undefined;
        },
      );
    }
    return current;
  };
  return {
    async acquire() {
      if (closed) throw new Error("browser provider closed");
      const browser = await get();
      return { browser, endpoint: "local", release() {} };
    },
    async close() {
      closed = true;
      const browser = await current?.catch(() => undefined);
      current = undefined;
      await browser?.close().catch(() => undefined);
    },
  };
}

export interface RemoteProviderOptions {
  /** `--browser-endpoint` values (or parsed endpoints), at least one. */
  endpoints: readonly (string | BrowserEndpoint)[];
  /** How long a connection attempt may take before the endpoint counts as not answering. Default 5 s. */
  connectTimeoutMs?: number;
  /** How long a dead endpoint is left alone before it is tried again. Default 30 s. */
  retryDownAfterMs?: number;
  /** Where trials go once every endpoint is down. Default: a local Chromium, launched on first need. */
  fallback?: () => BrowserProvider;
  /** Connects to one endpoint (tests of the provider may pass their own). */
  connect?: (endpoint: BrowserEndpoint, timeoutMs: number) => Promise<Browser>;
  /** One line per state change worth telling the user (an endpoint dropped, the fallback started). */
  onNotice?: (message: string) => void;
}

/** An endpoint's state as the provider sees it, for messages and tests. */
export interface EndpointStatus {
  label: string;
  capacity: number;
  inUse: number;
  state: "connecting" | "up" | "down";
  lastError: string | null;
}

export interface RemoteBrowserProvider extends BrowserProvider {
  start(): Promise<void>;
  status(): EndpointStatus[];
}

interface EndpointSlot {
  spec: BrowserEndpoint;
  browser: Browser | undefined;
  connecting: Promise<void> | undefined;
  inUse: number;
  downSince: number | undefined;
  lastError: string | null;
}

/**
 * Leases browsers from remote endpoints, spreading trials by free capacity: each acquire takes the
 * connected endpoint with the most free slots (the first listed on a tie), waits when all are
 * full, and uses the local fallback only when no endpoint is up or coming up.
 */
export function createRemoteBrowserProvider(options: RemoteProviderOptions): RemoteBrowserProvider {
  if (options.endpoints.length === 0) throw new UmpireError("usage", "no browser endpoint given", "pass --browser-endpoint URL at least once");
  const timeoutMs = options.connectTimeoutMs ?? 5_000;
  const retryDownAfterMs = options.retryDownAfterMs ?? 30_000;
  const connect = options.connect ?? connectEndpoint;
  const notice = options.onNotice ?? (() => {});
  const slots: EndpointSlot[] = options.endpoints.map((e) => ({
    spec: typeof e === "string" ? parseBrowserEndpoint(e) : e,
    browser: undefined,
    connecting: undefined,
    inUse: 0,
    downSince: undefined,
    lastError: null,
  }));
  let fallback: BrowserProvider | undefined;
  let closed = false;
  let waiters: (() => void)[] = [];
  const wake = () => {
    const woken = waiters;
    waiters = [];
    for (const w of woken) w();
  };

  /** Connects (or reconnects) one endpoint; never throws: failure marks it down. */
  const dial = (slot: EndpointSlot): Promise<void> => {
    slot.connecting ??= connect(slot.spec, timeoutMs)
      .then(
        (browser) => {
          if (closed) return void browser.close().catch(() => undefined);
          slot.browser = browser;
          slot.downSince = undefined;
          slot.lastError = null;
          browser.on("disconnected", () => onDisconnected(slot, browser));
        },
        (error: unknown) => {
          slot.downSince = Date.now();
          slot.lastError = firstLine(error);
        },
      )
      .finally(() => {
        slot.connecting = undefined;
        wake();
      });
    return slot.connecting;
  };

  const onDisconnected = (slot: EndpointSlot, browser: Browser) => {
    if (slot.browser !== browser || closed) return;
    slot.browser = undefined;
    notice(`browser endpoint ${slot.spec.label} disconnected; its running trials end as environment_error and are retried; reconnecting`);
    void dial(slot).then(() => {
      if (slot.browser) notice(`browser endpoint ${slot.spec.label} reconnected`);
      else notice(`browser endpoint ${slot.spec.label} is down (${slot.lastError}); trials go to the other endpoints${slots.some((s) => s !== slot && s.browser) ? "" : " or run locally"}`);
    });
  };

  const lease = (slot: EndpointSlot): BrowserLease => {
    slot.inUse += 1;
    let released = false;
    return {
      browser: slot.browser!,
      endpoint: slot.spec.label,
      release() {
        if (released) return;
        released = true;
        slot.inUse -= 1;
        wake();
      },
    };
  };

  const waitForChange = (signal?: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason ?? new Error("aborted"));
      const onAbort = () => reject(signal!.reason ?? new Error("aborted"));
      signal?.addEventListener("abort", onAbort, { once: true });
      waiters.push(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      });
    });

  const close = async () => {
    closed = true;
    wake();
    const browsers = slots.map((s) => s.browser).filter((b): b is Browser => b !== undefined);
    for (const s of slots) s.browser = undefined;
    await Promise.all(browsers.map((b) => b.close().catch(() => undefined)));
    await fallback?.close();
  };

  return {
    async start() {
      await Promise.all(slots.map(dial));
      const failed = slots.filter((s) => !s.browser);
      if (failed.length > 0) {
        await close();
        const [first] = failed;
        throw new UmpireError(
          "browser",
          `browser endpoint ${first.spec.label} did not answer (${first.lastError})${failed.length > 1 ? `; ${failed.length - 1} more endpoint(s) failed too` : ""}`,
          "check that the browser server is running and reachable from here, and that the URL (path, token) is the one it printed; ws://... is taken for a Playwright server, http://... or cdp+ws://... for CDP",
        );
      }
    },

    async acquire(signal) {
      for (;;) {
        if (closed) throw new Error("browser provider closed");
        const now = Date.now();
        for (const slot of slots) {
          if (slot.browser && !slot.browser.isConnected()) onDisconnected(slot, slot.browser);
          // Never tried yet, or down long enough to deserve another try.
          if (!slot.browser && !slot.connecting && (slot.downSince === undefined || now - slot.downSince >= retryDownAfterMs)) void dial(slot);
        }
        let best: EndpointSlot | undefined;
        for (const slot of slots) {
          const free = slot.spec.capacity - slot.inUse;
          if (slot.browser && free > 0 && (!best || free > best.spec.capacity - best.inUse)) best = slot;
        }
        if (best) return lease(best);
        if (slots.some((s) => s.browser || s.connecting)) {
          await waitForChange(signal);
          continue;
        }
        if (!fallback) {
          notice("every browser endpoint is down; trials run on a local Chromium until one comes back");
          fallback = (options.fallback ?? (() => createLocalBrowserProvider()))();
        }
        return fallback.acquire(signal);
      }
    },

    status() {
      return slots.map((s) => ({
        label: s.spec.label,
        capacity: s.spec.capacity,
        inUse: s.inUse,
        state: s.browser ? "up" : s.connecting ? "connecting" : "down",
        lastError: s.lastError,
      }));
    },

    close,
  };
}

/** The total capacity of a list of `--browser-endpoint` values: the natural default concurrency. */
export function totalCapacity(endpoints: readonly string[]): number {
  return endpoints.reduce((sum, e) => sum + parseBrowserEndpoint(e).capacity, 0);
}
