/**
 * Which command opens a report (issue 30: why umpire keeps its own opener rather than the `open`
 * package is in src/cli/open-in-browser.ts): $BROWSER wins; Windows gets the URL as one argument with
 * no shell to re-quote it; WSL's `wslview` when there is no xdg-open; nothing on a machine with none.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { opener } from "../../../src/cli/open-in-browser.js";

const bin = mkdtempSync(join(tmpdir(), "umpire-opener-"));
afterAll(() => rmSync(bin, { recursive: true, force: true }));
const install = (name: string) => {
  writeFileSync(join(bin, name), "#!/bin/sh\n");
  chmodSync(join(bin, name), 0o755);
};

describe("opener", () => {
  it("prefers $BROWSER on every platform", () => {
    expect(opener({ BROWSER: "firefox" }, "win32")).toEqual(["firefox"]);
    expect(opener({ BROWSER: "firefox" }, "linux")).toEqual(["firefox"]);
  });

  it("Windows: rundll32's URL handler, not cmd's start (cmd splits a URL at & and expands %)", () => {
    expect(opener({}, "win32")).toEqual(["rundll32", "url.dll,FileProtocolHandler"]);
  });

  it("Linux: xdg-open, else wslview (WSL), else nothing", () => {
    expect(opener({ PATH: bin }, "linux")).toBeNull();
    install("wslview");
    expect(opener({ PATH: bin }, "linux")).toEqual(["wslview"]);
    install("xdg-open");
    expect(opener({ PATH: bin }, "linux")).toEqual(["xdg-open"]);
  });
});
