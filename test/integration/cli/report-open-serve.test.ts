/**
 * `umpire report --open`, `umpire report --serve` and `umpire show-report` through the real CLI:
 * the browser named by $BROWSER receives the report's file URL; with no browser the user is told
 * how to serve it; the served report is on 127.0.0.1 only, with the CSP header, and never serves a
 * file outside the folder.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, startCli, waitFor } from "../../support/cli-child.js";
import { fileURLToPath } from "node:url";

let dir: string;
let reportDir: string;
const db = () => join(dir, "umpire.db");

/** The fixture suite's cricket checks (a custom check module), by absolute path: the task is written to a temp folder. */
const FIXTURE_CHECKS = fileURLToPath(new URL("../../../tasks/checks/cricket.ts", import.meta.url));

const TASK = `id: scores-bb042
title: Scores of BB-042 from its open scorecard
instruction: The scorecard of cricket match BB-042 is open. Answer with both teams' scores (runs/wickets) and the result line.
givens: [BB-042]
start: { path: /match/BB-042, scenario: plain }
tools: [answer]
checks:
  - kind: custom
    name: the answer states both scores and the result
    module: ${FIXTURE_CHECKS}
    export: answer
    options: { scores: [168/6, 169/4], result: Jaipur Kites won by 6 wickets }
reference:
  - tool: answer
    args: { content: "BB-042: Pune Pioneers 168/6 (20 ov), Jaipur Kites 169/4 (18.3 ov). Jaipur Kites won by 6 wickets." }
`;

/** GET with the path sent exactly as given (fetch would normalise `..` away). */
function rawGet(
  url: string,
  path: string,
  hostHeader?: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((ok, fail) => {
    const req = request(
      { host: hostname, port, path, method: "GET", ...(hostHeader && { headers: { host: hostHeader } }) },
      (res) => {
        let body = "";
        res.on("data", (c) => (body += c));
        res.on("end", () => ok({ status: res.statusCode!, headers: res.headers, body }));
      },
    );
    req.on("error", fail);
    req.end();
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "umpire-report-serve-"));
  writeFileSync(join(dir, "scores-bb042.yaml"), TASK);
  const run = await runCli([
    "run",
    join(dir, "scores-bb042.yaml"),
    "--mode",
    "structured",
    "--db",
    db(),
    "--out",
    join(dir, "runs"),
    "--json",
  ]);
  expect(run.code, run.stderr).toBe(0);
}, 300_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("umpire report --open", () => {
  it("hands the report's file URL to $BROWSER", async () => {
    const log = join(dir, "browser.log");
    const browser = join(dir, "fake-browser.sh");
    writeFileSync(browser, `#!/bin/sh\nprintf '%s\\n' "$@" > '${log}'\n`);
    chmodSync(browser, 0o755);
    const r = await runCli(["report", "--db", db(), "--open"], { env: { BROWSER: browser } });
    expect(r.code, r.stderr).toBe(0);
    const index = r.stdout.trim();
    reportDir = dirname(index);
    await waitFor(() => (existsSync(log) ? true : undefined), "the browser to be started", 30_000);
    expect(readFileSync(log, "utf8").trim()).toBe(pathToFileURL(index).href);
  });

  it("says how to serve the report when this machine has no browser", async () => {
    const r = await runCli(["report", "--db", db(), "--open"], {
      env: { BROWSER: "", PATH: join(dir, "no-such-bin") },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("no browser to open here");
    expect(r.stderr).toContain(`umpire show-report ${reportDir}`);
  });
});

describe("serving a report", () => {
  it("show-report serves the folder on 127.0.0.1 with the CSP header, refuses paths outside it, and stops on Ctrl-C", async () => {
    writeFileSync(join(dir, "secret.txt"), "outside the report\n");
    const served = startCli(["show-report", reportDir, "--port", "0"]);
    const url = await waitFor(() => /^(http:\/\/\S+)$/m.exec(served.stdout())?.[1], "the URL", 30_000);
    // Issue 24: the URL carries a token made for this server; every path starts with it.
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[0-9a-f]{32}\/$/);
    const base = new URL(url).pathname.replace(/\/$/, "");
    const index = await rawGet(url, `${base}/`);
    expect(index.status).toBe(200);
    expect(index.body).toContain("umpire report");
    expect(String(index.headers["content-security-policy"])).toContain("default-src 'none'");
    const history = await rawGet(url, `${base}/history.html`);
    expect(history.status).toBe(200);
    expect(history.body).toContain("scores-bb042");
    expect((await rawGet(url, `${base}/assets/report.css`)).headers["content-type"]).toMatch(/text\/css/);
    const rel = `${base}/${"../".repeat(4)}secret.txt`;
    for (const path of [
      rel,
      `${base}/%2e%2e/%2e%2e/%2e%2e/%2e%2e/secret.txt`,
      `${base}/..%2f..%2f..%2f..%2fsecret.txt`,
      `${base}/no-such-page.html`,
    ]) {
      const r = await rawGet(url, path);
      expect(r.status, path).toBe(404);
      expect(r.body).not.toContain("outside the report");
    }
    // Without the token nothing is served, not even the index.
    for (const path of ["/", "/index.html", "/history.html", `/${"0".repeat(32)}/`])
      expect((await rawGet(url, path)).status, path).toBe(404);
    // DNS rebinding: a page whose own host name now points at 127.0.0.1 sends its name as Host.
    const port = new URL(url).port;
    for (const host of [`evil.example:${port}`, "127.0.0.1", `127.0.0.1:${Number(port) + 1}`]) {
      const r = await rawGet(url, `${base}/`, host);
      expect(r.status, host).toBe(421);
      expect(r.body).not.toContain("umpire report");
    }
    expect((await rawGet(url, `${base}/`, `localhost:${port}`)).status).toBe(200);
    served.child.kill("SIGINT");
    const end = await served.done;
    expect(end.code).toBe(0);
  });

  it("report --serve writes the report, prints the URL and serves it", async () => {
    const served = startCli(["report", "--db", db(), "--serve", "--port", "0"]);
    const url = await waitFor(() => /^(http:\/\/\S+)$/m.exec(served.stdout())?.[1], "the URL", 60_000);
    expect(served.stdout()).toContain(join(reportDir, "index.html"));
    expect((await rawGet(url, `${new URL(url).pathname}index.html`)).status).toBe(200);
    served.child.kill("SIGINT");
    expect((await served.done).code).toBe(0);
  });

  it("show-report without a report says how to write one", async () => {
    const r = await runCli(["show-report", join(dir, "runs")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/holds no report/);
    expect(r.stderr).toContain("umpire report");
  });
});
