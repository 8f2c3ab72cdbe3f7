/**
 * Issue 38: the trial's browser runs outside the sandbox, so every CDP method that names a host path
 * (file inputs, file chooser answers, drags with files, file: pages) is refused unless the path is in
 * the trial's workspace, links resolved.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { hostPathRefusal } from "../../../src/runner/external/trial-browser.js";

const dir = mkdtempSync(join(tmpdir(), "umpire-cdp-paths-"));
const workspace = join(dir, "workspace");
mkdirSync(join(workspace, "downloads"), { recursive: true });
writeFileSync(join(workspace, "downloads", "report.csv"), "a,b\n");
writeFileSync(join(dir, "secret.db"), "x");
symlinkSync(join(dir, "secret.db"), join(workspace, "downloads", "link.csv"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("host paths an agent names through CDP", () => {
  it("refuses a file input, a file chooser answer and a drag with a file outside the workspace", () => {
    for (const [method, params] of [
      ["DOM.setFileInputFiles", { files: ["/etc/passwd"], backendNodeId: 1 }],
      ["DOM.setFileInputFiles", { files: [join(workspace, "downloads", "report.csv"), join(dir, "secret.db")] }],
      ["Page.handleFileChooser", { action: "accept", files: ["/root/.bashrc"] }],
      ["Input.dispatchDragEvent", { type: "drop", x: 1, y: 1, data: { items: [], files: [join(dir, "secret.db")] } }],
      ["DOM.setFileInputFiles", { files: [join(workspace, "..", "secret.db")] }],
    ] as const) {
      expect(hostPathRefusal(method, params as Record<string, unknown>, workspace), method).toMatch(
        /outside the trial's workspace/,
      );
    }
  });

  it("follows links: a link in the workspace to a file outside is outside", () => {
    const params = { files: [join(workspace, "downloads", "link.csv")] };
    expect(hostPathRefusal("DOM.setFileInputFiles", params, workspace)).toMatch(/outside the trial's workspace/);
  });

  it("lets a file of the workspace through (an agent uploads what the browser downloaded)", () => {
    const params = { files: [join(workspace, "downloads", "report.csv")] };
    expect(hostPathRefusal("DOM.setFileInputFiles", params, workspace)).toBeNull();
    expect(hostPathRefusal("DOM.setFileInputFiles", { files: [] }, workspace)).toBeNull();
    expect(
      hostPathRefusal("Input.dispatchDragEvent", { type: "dragEnter", data: { items: [] } }, workspace),
    ).toBeNull();
  });

  it("refuses file:, view-source: and browser pages; web pages pass (the origin guard judges them)", () => {
    for (const url of ["file:///etc/passwd", " FILE:///root", "view-source:file:///etc/hosts", "chrome://version"]) {
      expect(hostPathRefusal("Page.navigate", { url }, workspace), url).toMatch(/not a web page/);
      expect(hostPathRefusal("Target.createTarget", { url }, workspace), url).toMatch(/not a web page/);
    }
    for (const url of ["http://127.0.0.1:9/", "https://example.com/", "about:blank", ""])
      expect(hostPathRefusal("Page.navigate", { url }, workspace), url).toBeNull();
  });

  it("refuses a relative path: Chromium would read it against its own working folder, not the workspace", () => {
    expect(hostPathRefusal("DOM.setFileInputFiles", { files: ["downloads/report.csv"] }, workspace)).toMatch(
      /not an absolute path/,
    );
  });

  it("without a workspace, every path is refused", () => {
    expect(hostPathRefusal("DOM.setFileInputFiles", { files: ["/tmp/x"] }, null)).toMatch(/outside/);
  });
});
