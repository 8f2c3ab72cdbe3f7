/**
 * Where trials get their browser. Locally: one Chromium per process, relaunched when it
 * crashes. The interface leaves room for remote endpoints (a Playwright browser server or CDP),
 * which lease capacity per endpoint.
 */
import type { Browser } from "playwright";
import { launchChromium } from "../browser/chromium.js";

export interface BrowserLease {
  browser: Browser;
  /** Where the browser runs, for the trial record ("local" or an endpoint URL). */
  endpoint: string;
  release(): void;
}

export interface BrowserProvider {
  acquire(signal?: AbortSignal): Promise<BrowserLease>;
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
