/**
 * The environment in every record (issue 29 item 6): a declared target's `version` (a URL or a
 * command) is read from the real app, the run's environment is collected from the real browser,
 * Playwright, OS and fonts, and `umpire compare` marks what changed between two runs, in its text,
 * its JSON and the regression gate's message.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../../src/cli/main.js";
import { collectRunEnvironment } from "../../../src/runtime/run-environment.js";
import { createLocalBrowserProvider } from "../../../src/runner/schedule/browser-pool.js";
import { openStore } from "../../../src/store/open.js";
import type { Target } from "../../../src/targets/contract.js";
import { startWebTarget } from "../../../src/targets/web-target.js";
import { TargetDecl } from "../../../src/task/target-decl.js";
import { capture as captureIO } from "../../support/cli-in-process.js";
import { seedRun } from "../../unit/report/seed.js";

// The app answers /version with the contents of version.txt, read on each request.
const APP = `
const { createServer } = require("node:http");
const { readFileSync } = require("node:fs");
createServer((req, res) => {
  if (req.url === "/version") return res.writeHead(200, { "content-type": "text/plain" }).end(readFileSync("version.txt", "utf8"));
  res.writeHead(200).end("ok");
}).listen(Number(process.env.PORT), "127.0.0.1");
`;

let dir: string;
const targets: Target[] = [];
beforeAll(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "umpire-env-")));
  mkdirSync(join(dir, "app"));
  writeFileSync(join(dir, "app", "app.cjs"), APP);
  writeFileSync(join(dir, "app", "version.txt"), "shop 1.4.0\n");
});
afterAll(async () => {
  await Promise.all(targets.map((t) => t.close()));
  rmSync(dir, { recursive: true, force: true });
});

async function start(version: unknown): Promise<Target> {
  const decl = TargetDecl.parse({
    baseUrl: "http://127.0.0.1:${PORT}",
    start: { command: [process.execPath, "app.cjs"], cwd: "app" },
    version,
  });
  const target = await startWebTarget({ name: "shop", decl, configDir: dir, logDir: dir, env: process.env });
  targets.push(target);
  return target;
}

function capture() {
  const { io, text } = captureIO({}, dir);
  return { io, out: () => text.out };
}

describe("a target's version", () => {
  it("version.url is read from the app, and reads the new version once the app changes", async () => {
    const target = await start({ url: "/version" });
    expect(await target.version!()).toBe("shop 1.4.0");
    writeFileSync(join(dir, "app", "version.txt"), "shop 1.5.0\n");
    expect(await target.version!()).toBe("shop 1.5.0");
  }, 60_000);

  it("version.command runs in its cwd (relative to the config file) and its output is the version", async () => {
    const target = await start({
      command: [process.execPath, "-e", "process.stdout.write(require('fs').readFileSync('version.txt','utf8'))"],
      cwd: "app",
    });
    writeFileSync(join(dir, "app", "version.txt"), "shop 2.0.0\n");
    expect(await target.version!()).toBe("shop 2.0.0");
  }, 60_000);

  it("a target without a version source has none", async () => {
    const target = await start(undefined);
    expect(target.version).toBeUndefined();
  }, 60_000);
});

describe("compare marks a changed environment", () => {
  it("stores the real environment, and names what changed between two runs in compare and the gate", async () => {
    writeFileSync(join(dir, "app", "version.txt"), "shop 1.4.0\n");
    const target = await start({ url: "/version" });
    const browsers = createLocalBrowserProvider();
    const collect = () =>
      collectRunEnvironment({
        browsers,
        targets: { get: () => target, all: () => [target], close: async () => {} },
        tasks: [],
        env: process.env,
      });
    let before;
    let after;
    try {
      before = await collect();
      writeFileSync(join(dir, "app", "version.txt"), "shop 1.5.0\n");
      after = await collect();
    } finally {
      await browsers.close();
    }
    expect(before.chromium.version).toMatch(/^\d+\.\d+/);
    expect(before.chromium.endpoint).toBe("local");
    expect(before.playwright).toBe(
      (createRequire(import.meta.url)("playwright/package.json") as { version: string }).version,
    );
    expect(before.os.platform).toBe(process.platform);
    expect(before.targets).toEqual({ shop: "shop 1.4.0" });
    expect(after.targets).toEqual({ shop: "shop 1.5.0" });
    expect(after.fonts).toEqual(before.fonts);

    const db = join(dir, "umpire.db");
    const store = openStore(db);
    const trials = [
      { task: "t1", verdict: "passed" as const },
      { task: "t2", verdict: "passed" as const },
    ];
    const a = seedRun(store, { model: "reference", startedAt: "2026-01-01T00:00:00.000Z", trials });
    const b = seedRun(store, { model: "reference", startedAt: "2026-01-02T00:00:00.000Z", trials });
    store.setRunEnvironment(a, { ...before });
    // The browser upgraded too: the same collected record with another Chromium.
    store.setRunEnvironment(b, { ...after, chromium: { ...after.chromium, version: "999.0.1.2" } });
    store.close();

    const plain = capture();
    expect(await main(["compare", a, b, "--db", db], plain.io)).toBe(0);
    expect(plain.out()).toContain(
      `environment changed (${a} -> ${b}): chromium ${before.chromium.version} -> 999.0.1.2; target shop shop 1.4.0 -> shop 1.5.0`,
    );

    const gate = capture();
    expect(await main(["compare", b, "--baseline", a, "--fail-on-regression", "--db", db], gate.io)).toBe(0);
    expect(gate.out()).toMatch(
      /no regression[\s\S]*note: environment changed \(.*\): chromium .* -> 999\.0\.1\.2; target shop shop 1\.4\.0 -> shop 1\.5\.0: not a like-for-like comparison/,
    );

    const json = capture();
    await main(["compare", a, b, "--db", db, "--json"], json.io);
    expect(JSON.parse(json.out()).marks).toEqual([expect.stringContaining("target shop shop 1.4.0 -> shop 1.5.0")]);

    // The same environment on both sides: no mark.
    const same = openStore(db);
    same.setRunEnvironment(b, { ...before });
    same.close();
    const quiet = capture();
    await main(["compare", a, b, "--db", db], quiet.io);
    expect(quiet.out()).not.toContain("environment changed");
  }, 120_000);
});
