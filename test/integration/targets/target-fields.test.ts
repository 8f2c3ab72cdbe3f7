/**
 * The fields of a target declaration that the any-app test leaves alone, each shown to change what
 * umpire does: the start command's cwd, env and ready timeout; declared origins; every reset kind's
 * method, headers, body, cwd and timeout; the effects source's headers; the test-id attribute. Real
 * processes started by `startWebTarget` as `umpire run` starts them, talking real HTTP on 127.0.0.1.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../../../src/browser/chromium.js";
import { resolveMarks } from "../../../src/targets/marks.js";
import { startWebTarget } from "../../../src/targets/web-target.js";
import type { Target } from "../../../src/targets/contract.js";
import { TargetDecl, type TargetDeclInput } from "../../../src/task/target-decl.js";
import type { Task } from "../../../src/task/schema.js";

// The app answers /whoami with its cwd and GREETING, records each reset request, and serves its
// effects only to a request carrying the right x-effects-key.
const APP = `
const { createServer } = require("node:http");
const resets = [];
createServer(async (req, res) => {
  let body = "";
  for await (const chunk of req) body += chunk;
  const json = (status, value) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
  if (req.url === "/whoami") return json(200, { cwd: process.cwd(), greeting: process.env.GREETING ?? null });
  if (req.url === "/resets") return json(200, resets);
  if (req.url === "/slow-reset") return;
  if (req.url.startsWith("/reset")) { resets.push({ method: req.method, url: req.url, key: req.headers["x-reset-key"] ?? null, body }); return res.writeHead(204).end(); }
  if (req.url === "/effects") return req.headers["x-effects-key"] === "s3cret" ? json(200, [{ type: "saved", at: 1, detail: {} }]) : json(401, { error: "key" });
  json(200, { ok: true });
}).listen(Number(process.env.PORT), "127.0.0.1");
`;

let dir: string;
let appDir: string;
const targets: Target[] = [];
afterAll(async () => {
  await Promise.all(targets.map((t) => t.close()));
  rmSync(dir, { recursive: true, force: true });
});
beforeAll(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "umpire-target-fields-")));
  appDir = join(dir, "app");
  mkdirSync(appDir);
  writeFileSync(join(appDir, "app.cjs"), APP);
});

async function start(decl: TargetDeclInput, name = "app"): Promise<Target> {
  const target = await startWebTarget({
    name,
    decl: TargetDecl.parse(decl),
    configDir: dir,
    logDir: dir,
    env: { ...process.env, RESET_KEY: "k-1" },
  });
  targets.push(target);
  return target;
}
const base = {
  baseUrl: "http://127.0.0.1:${PORT}",
  start: { command: [process.execPath, "app.cjs"], cwd: "app", env: { GREETING: "hello" } },
};
const trial = (id: string) => ({ trialId: id, workspaceDir: join(dir, "ws"), task: { marks: {} } as unknown as Task });
const get = async (target: Target, path: string) => (await fetch(`${target.baseUrl}${path}`)).json();

describe("a target's start", () => {
  it("runs the command in start.cwd (relative to the config file) with start.env", async () => {
    const target = await start(base);
    expect(await get(target, "/whoami")).toEqual({ cwd: appDir, greeting: "hello" });
  });

  it("gives up after start.readyTimeoutSeconds when the app never answers, naming the wait", async () => {
    const never = {
      ...base,
      start: {
        ...base.start,
        command: [process.execPath, "-e", "setInterval(() => {}, 1000)"],
        readyTimeoutSeconds: 1,
      },
    };
    await expect(start(never, "never")).rejects.toThrow(/did not answer within 1 s/);
  }, 60_000);
});

describe("a target's declared fields", () => {
  let target: Target;
  beforeAll(async () => {
    target = await start({
      ...base,
      allowedOrigins: ["http://127.0.0.1:9"],
      reset: {
        kind: "http",
        method: "PUT",
        url: "/reset?trial=${TRIAL_ID}",
        headers: { "x-reset-key": "${env:RESET_KEY}" },
        body: { trial: "${TRIAL_ID}" },
      },
      effects: { url: "/effects", headers: { "x-effects-key": "s3cret" } },
      testIdAttribute: "id",
    });
  });

  it("allowedOrigins: the declared origins join the target's own", () => {
    expect(target.origins).toEqual([new URL(target.baseUrl).origin, "http://127.0.0.1:9"]);
  });

  it("reset http: method, url, headers and body are sent as declared, for each trial", async () => {
    await target.prepareTrial(trial("t-1"));
    expect(await get(target, "/resets")).toEqual([
      { method: "PUT", url: "/reset?trial=t-1", key: "k-1", body: JSON.stringify({ trial: "t-1" }) },
    ]);
  });

  it("effects.headers: sent to the effects source (without them it refuses)", async () => {
    expect(await target.effects("t-1")).toEqual([{ type: "saved", at: 1, detail: {} }]);
    const bare = await start({ ...base, effects: { url: "/effects" } }, "bare");
    await expect(bare.effects("t-1")).rejects.toThrow(/answered 401/);
  });

  it("testIdAttribute: the attribute marks are read from", () => {
    expect(target.markSpec(trial("t-1").task)).toMatchObject({ testIdAttribute: "id" });
  });

  it("task marks join the target's and are resolved in the page: exact and the test-id attribute decide the element", async () => {
    const task = {
      marks: {
        save: { role: "button", name: "Save", exact: true },
        loose: { role: "button", name: "Save", exact: false },
      },
    } as unknown as Task;
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 400, height: 300 } });
      const at = (top: number) => `position:absolute;left:10px;top:${top}px;width:120px;height:30px`;
      await page.setContent(
        `<button style="${at(10)}">Save draft</button><button style="${at(100)}">Save</button><div id="total" style="${at(200)}">3</div>`,
      );
      const layout = await resolveMarks(page, target.markSpec(task)!);
      const top = (name: string) => layout.marks.find((m) => m.name === name)?.y;
      expect(top("save")).toBe(100); // exact: only "Save", never "Save draft"
      expect(top("loose")).not.toBe(100); // not exact: "Save draft" matches too, and comes first
      expect(top("total")).toBe(200); // testIdAttribute id: the element with id="total" is the mark "total"
    } finally {
      await browser.close();
    }
  }, 120_000);
});

describe("reset kinds", () => {
  it("none: no reset request reaches the app", async () => {
    const target = await start({ ...base, reset: { kind: "none" } }, "none");
    await target.prepareTrial(trial("t-2"));
    expect(await get(target, "/resets")).toEqual([]);
  });

  it("http timeoutSeconds: a reset that outlives it fails the trial's reset, naming it", async () => {
    const target = await start({ ...base, reset: { kind: "http", url: "/slow-reset", timeoutSeconds: 1 } }, "slow");
    await expect(target.prepareTrial(trial("t-3"))).rejects.toThrow(/reset POST .*\/slow-reset failed/);
  }, 60_000);

  it("command cwd and timeoutSeconds: run in cwd, stopped past the timeout", async () => {
    const out = join(dir, "reset-cwd.txt");
    const script = `require("fs").writeFileSync(${JSON.stringify(out)}, process.cwd())`;
    const target = await start(
      { ...base, reset: { kind: "command", command: [process.execPath, "-e", script], cwd: "app" } },
      "cmd",
    );
    await target.prepareTrial(trial("t-4"));
    expect(readFileSync(out, "utf8")).toBe(appDir);
    const hung = await start(
      {
        ...base,
        reset: { kind: "command", command: [process.execPath, "-e", "setInterval(() => {}, 1000)"], timeoutSeconds: 1 },
      },
      "hung",
    );
    await expect(hung.prepareTrial(trial("t-5"))).rejects.toThrow(/ran past 1 s and was stopped/);
  }, 60_000);
});
