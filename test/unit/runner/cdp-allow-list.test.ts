/** The agent's CDP allow-list (trial-browser.ts): what a page needs passes, what leaves the trial's guard does not. */
import { describe, expect, it } from "vitest";
import { refusalOf } from "../../../src/runner/external/trial-browser.js";

describe("refusalOf", () => {
  it("lets through what Playwright, Puppeteer and a plain CDP client send for a page", () => {
    for (const method of [
      "Page.navigate",
      "Runtime.evaluate",
      "DOM.getDocument",
      "Input.dispatchMouseEvent",
      "Emulation.setDeviceMetricsOverride",
      "Network.enable",
      "Target.getTargets",
      "Browser.getVersion",
      "Storage.getCookies",
    ]) {
      expect(refusalOf(method, {}), method).toBeNull();
    }
    expect(refusalOf("Target.attachToTarget", { targetId: "x", flatten: true })).toBeNull();
    expect(
      refusalOf("Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: true, flatten: true }),
    ).toBeNull();
  });

  it("refuses new contexts, closing the browser, nested sessions, cookie writes and unknown domains, with a reason", () => {
    expect(refusalOf("Target.createBrowserContext", {})).toMatch(/origin guard/);
    expect(refusalOf("Browser.close", {})).toMatch(/umpire closes/);
    expect(refusalOf("Target.sendMessageToTarget", { message: "{}" })).toMatch(/flatten/);
    expect(refusalOf("Target.attachToTarget", { targetId: "x" })).toMatch(/flattened sessions/);
    expect(refusalOf("Network.setCookie", {})).toMatch(/cookies/);
    expect(refusalOf("Page.setBypassCSP", { enabled: true })).toMatch(/content security policy/);
    expect(refusalOf("Fetch.enable", {})).toMatch(/Fetch is not a domain/);
    expect(refusalOf("SystemInfo.getProcessInfo", {})).toMatch(/not a domain umpire relays/);
  });
});
