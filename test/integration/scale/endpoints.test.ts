/** What a `--browser-endpoint` URL means: protocol, capacity, the label used in messages. */
import { describe, expect, it } from "vitest";
import { isUmpireError } from "../../../src/errors.js";
import { parseBrowserEndpoint } from "../../../src/runner/schedule/browser-endpoint.js";
import { totalCapacity } from "../../../src/runner/schedule/browser-pool.js";

describe("parseBrowserEndpoint", () => {
  it("takes ws:// for a Playwright server, and strips ?capacity before connecting", () => {
    expect(parseBrowserEndpoint("ws://browsers:3000/playwright/chromium?capacity=8&token=abc")).toEqual({
      connectUrl: "ws://browsers:3000/playwright/chromium?token=abc",
      protocol: "playwright",
      capacity: 8,
      label: "ws://browsers:3000/playwright/chromium",
    });
    expect(parseBrowserEndpoint("ws://127.0.0.1:4000/0123456789abcdef0123?capacity=2")).toMatchObject({
      connectUrl: "ws://127.0.0.1:4000/0123456789abcdef0123",
      capacity: 2,
      label: "ws://127.0.0.1:4000/…",
    });
  });

  it("takes http(s)://, /devtools/browser/ sockets and cdp+ URLs for CDP, with a default capacity of 4", () => {
    expect(parseBrowserEndpoint("http://10.0.0.7:9222")).toMatchObject({
      protocol: "cdp",
      connectUrl: "http://10.0.0.7:9222/",
      capacity: 4,
    });
    expect(
      parseBrowserEndpoint("ws://127.0.0.1:9222/devtools/browser/6f1c2d3e-aaaa-bbbb-cccc-123456789abc"),
    ).toMatchObject({ protocol: "cdp", label: "ws://127.0.0.1:9222/devtools/browser/…" });
    expect(parseBrowserEndpoint("cdp+wss://chrome.browserless.io?token=s3cret&capacity=3")).toMatchObject({
      protocol: "cdp",
      connectUrl: "wss://chrome.browserless.io/?token=s3cret",
      capacity: 3,
      label: "wss://chrome.browserless.io",
    });
  });

  it("never puts user info or tokens in the label", () => {
    const label = parseBrowserEndpoint("wss://user:pass@grid.example:4444/session/x/se/cdp?token=t0ken").label;
    expect(label).toBe("wss://grid.example:4444/session/x/se/cdp");
  });

  it("refuses bad URLs and capacities with the flag, the value and an example", () => {
    const refuse = (raw: string) => {
      try {
        parseBrowserEndpoint(raw);
      } catch (error) {
        expect(isUmpireError(error) && error.code).toBe("usage");
        return `${(error as Error).message} | ${(error as { hint?: string }).hint}`;
      }
      throw new Error(`accepted ${raw}`);
    };
    expect(refuse("browsers:3000")).toMatch(/unsupported scheme "browsers"/);
    expect(refuse("not a url")).toMatch(/--browser-endpoint not a url: not a URL \| e\.g\. --browser-endpoint ws:\/\//);
    expect(refuse("ws://b:3000/?capacity=0")).toMatch(/capacity=0 is not a whole number from 1 to 1000/);
    expect(refuse("ws://b:3000/?capacity=2.5")).toMatch(/capacity=2\.5/);
  });

  it("adds up capacities for the default concurrency", () => {
    expect(totalCapacity(["ws://a:1/?capacity=3", "http://b:2", "ws://c:3/?capacity=5"])).toBe(12);
  });
});
