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
import { launchChromium } from "../../browser/chromium.js";
import { UmpireError } from "../../errors.js";
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
        (browser) =>
          browser.on("disconnected", () => {
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
  if (options.endpoints.length === 0)
    throw new UmpireError("usage", "no browser endpoint given", "pass --browser-endpoint URL at least once");
  return new RemoteBrowsers(options);
}

/** The provider behind `createRemoteBrowserProvider`; its public methods are bound (callers may pass them around). */
class RemoteBrowsers implements RemoteBrowserProvider {
  private readonly timeoutMs: number;
  private readonly retryDownAfterMs: number;
  private readonly connect: (endpoint: BrowserEndpoint, timeoutMs: number) => Promise<Browser>;
  private readonly notice: (message: string) => void;
  private readonly slots: EndpointSlot[];
  private fallback: BrowserProvider | undefined;
  private closed = false;
  private waiters: (() => void)[] = [];

  constructor(private readonly options: RemoteProviderOptions) {
    this.timeoutMs = options.connectTimeoutMs ?? 5_000;
    this.retryDownAfterMs = options.retryDownAfterMs ?? 30_000;
    this.connect = options.connect ?? connectEndpoint;
    this.notice = options.onNotice ?? (() => {});
    this.slots = options.endpoints.map((e) => ({
      spec: typeof e === "string" ? parseBrowserEndpoint(e) : e,
      browser: undefined,
      connecting: undefined,
      inUse: 0,
      downSince: undefined,
      lastError: null,
    }));
  }

  start = async (): Promise<void> => {
    const { slots } = this;
    await Promise.all(slots.map((slot) => this.dial(slot)));
    const failed = slots.filter((s) => !s.browser);
    if (failed.length > 0) {
      await this.close();
      const [first] = failed;
      throw new UmpireError(
        "browser",
        `browser endpoint ${first.spec.label} did not answer (${first.lastError})${failed.length > 1 ? `; ${failed.length - 1} more endpoint(s) failed too` : ""}`,
        "check that the browser server is running and reachable from here, and that the URL (path, token) is the one it printed; ws://... is taken for a Playwright server, http://... or cdp+ws://... for CDP",
      );
    }
  };

  acquire = async (signal?: AbortSignal): Promise<BrowserLease> => {
    const { slots } = this;
    for (;;) {
      if (this.closed) throw new Error("browser provider closed");
      this.redial();
      let best: EndpointSlot | undefined;
      for (const slot of slots) {
        const free = slot.spec.capacity - slot.inUse;
        if (slot.browser && free > 0 && (!best || free > best.spec.capacity - best.inUse)) best = slot;
      }
      if (best) return this.lease(best);
      if (slots.some((s) => s.browser || s.connecting)) {
        await this.waitForChange(signal);
        continue;
      }
      if (!this.fallback) {
        this.notice("every browser endpoint is down; trials run on a local Chromium until one comes back");
        this.fallback = (this.options.fallback ?? (() => createLocalBrowserProvider()))();
      }
      return this.fallback.acquire(signal);
    }
  };

  status = (): EndpointStatus[] =>
    this.slots.map((s) => ({
      label: s.spec.label,
      capacity: s.spec.capacity,
      inUse: s.inUse,
      state: s.browser ? "up" : s.connecting ? "connecting" : "down",
      lastError: s.lastError,
    }));

  close = async (): Promise<void> => {
    this.closed = true;
    this.wake();
    const browsers = this.slots.map((s) => s.browser).filter((b): b is Browser => b !== undefined);
    for (const s of this.slots) s.browser = undefined;
    await Promise.all(browsers.map((b) => b.close().catch(() => undefined)));
    await this.fallback?.close();
  };

  /** Notices lost connections, and dials endpoints never tried yet or down long enough to deserve another try. */
  private redial(): void {
    const now = Date.now();
    for (const slot of this.slots) {
      if (slot.browser && !slot.browser.isConnected()) this.onDisconnected(slot, slot.browser);
      if (
        !slot.browser &&
        !slot.connecting &&
        (slot.downSince === undefined || now - slot.downSince >= this.retryDownAfterMs)
      )
        void this.dial(slot);
    }
  }

  private wake(): void {
    const woken = this.waiters;
    this.waiters = [];
    for (const w of woken) w();
  }

  /** Connects (or reconnects) one endpoint; never throws: failure marks it down. */
  private dial(slot: EndpointSlot): Promise<void> {
    slot.connecting ??= this.connect(slot.spec, this.timeoutMs)
      .then(
        (browser) => {
          if (this.closed) return void browser.close().catch(() => undefined);
          slot.browser = browser;
          slot.downSince = undefined;
          slot.lastError = null;
          browser.on("disconnected", () => this.onDisconnected(slot, browser));
        },
        (error: unknown) => {
          slot.downSince = Date.now();
          slot.lastError = firstLine(error);
        },
      )
      .finally(() => {
        slot.connecting = undefined;
        this.wake();
      });
    return slot.connecting;
  }

  private onDisconnected(slot: EndpointSlot, browser: Browser): void {
    if (slot.browser !== browser || this.closed) return;
    slot.browser = undefined;
    this.notice(
      `browser endpoint ${slot.spec.label} disconnected; its running trials end as environment_error and are retried; reconnecting`,
    );
    void this.dial(slot).then(() => {
      if (slot.browser) this.notice(`browser endpoint ${slot.spec.label} reconnected`);
      else {
        const others = this.slots.some((s) => s !== slot && s.browser) ? "" : " or run locally";
        this.notice(
          `browser endpoint ${slot.spec.label} is down (${slot.lastError}); trials go to the other endpoints${others}`,
        );
      }
    });
  }

  private lease(slot: EndpointSlot): BrowserLease {
    slot.inUse += 1;
    let released = false;
    return {
      browser: slot.browser!,
      endpoint: slot.spec.label,
      release: () => {
        if (released) return;
        released = true;
        slot.inUse -= 1;
        this.wake();
      },
    };
  }

  private waitForChange(signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason ?? new Error("aborted"));
      const onAbort = () => reject(signal!.reason ?? new Error("aborted"));
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiters.push(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      });
    });
  }
}

/** The total capacity of a list of `--browser-endpoint` values: the natural default concurrency. */
export function totalCapacity(endpoints: readonly string[]): number {
  return endpoints.reduce((sum, e) => sum + parseBrowserEndpoint(e).capacity, 0);
}
