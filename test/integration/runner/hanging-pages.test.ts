/**
 * No trial outlives its limit (issue 37 §4): through the real CLI, with real Chromium and the
 * embedded reference model, a test server serves pages that block in every way known, and each
 * trial must end with the right verdict instead of hanging the run:
 * - a `confirm()` in a click handler on a static page (no new frame while it is open): played and passed;
 * - a click whose handler loops forever: `error`, the reason naming the call umpire was stuck in;
 * - a page that blocks its main thread right after the layout read, so its capture never answers: `error`;
 * - a page whose renderer process is killed mid-trial: `error`, saying the renderer crashed;
 * - a start page that never finishes loading, and a page that navigates itself forever: each ends.
 * And a SIGTERM sent while a trial is stuck in a browser call ends the run, the trial `cancelled`.
 * There are no timing assertions: the CLI children have generous hang guards; the SIGTERM's
 * time to exit is printed, not asserted.
 */
import { readFileSync, readdirSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../../src/store/open.js";
import { startCli, type CliResult } from "../../support/cli-child.js";

const page = (body: string, head = "") =>
  `<!doctype html><html><head><meta charset="utf-8"><title>Hangs</title>${head}</head><body style="font:20px sans-serif;margin:40px">${body}</body></html>`;

/** Requests the pages announced (a beacon before they block), so the test knows when a trial is stuck. */
const announced: string[] = [];
let heldResponses: import("node:http").ServerResponse[] = [];

const PAGES: Record<string, string> = {
  // Static: nothing paints while the confirm is open.
  "/confirm": page(
    `<button id="ask" style="font-size:24px">Delete the list</button><p id="result">untouched</p>
<script>document.getElementById("ask").addEventListener("click", () => {
  document.getElementById("result").textContent = confirm("Delete the list?") ? "deleted" : "kept";
});</script>`,
  ),
  // The click's handler never yields: the input is never acknowledged, nothing on the page answers again.
  "/busy": page(
    `<button id="spin" style="font-size:24px">Start</button>
<script>document.getElementById("spin").addEventListener("click", () => {
  fetch("/announce/busy").catch(() => {});
  const until = Date.now() + 300; while (Date.now() < until) {}
  for (;;) {}
});</script>`,
  ),
  // The layout read answers, then the main thread blocks for good: the capture that follows never answers.
  "/frozen": page(
    `<p>Frozen after the first read.</p>
<script>window.__umpireLayoutFlush = () => { setTimeout(() => { for (;;) {} }, 0); return Promise.resolve(); };</script>`,
  ),
  // The click is answered, then the page stops answering (the SIGTERM test's stuck trial).
  "/busy-after": page(
    `<button id="spin" style="font-size:24px">Start</button>
<script>document.getElementById("spin").addEventListener("click", () => {
  fetch("/announce/busy-after").finally(() => { for (;;) {} });
});</script>`,
  ),
  // Its renderer is killed by the test once it announces itself.
  "/crash": page(`<p id="alive">alive</p><script>fetch("/announce/crash").catch(() => {});</script>`),
  // Its load event never fires: an image whose response never ends.
  "/never-loads": page(`<p>Loading…</p><img src="/held.png" alt="">`),
  // It navigates itself again and again, for ever.
  "/reloads": page(`<p>Again.</p><script>setTimeout(() => location.reload(), 50);</script>`),
};

function serve(): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]!;
    if (path.startsWith("/announce/")) {
      announced.push(path.slice("/announce/".length));
      res.writeHead(204).end();
      return;
    }
    if (path === "/held.png") {
      res.writeHead(200, { "content-type": "image/png" });
      heldResponses.push(res); // never ended
      return;
    }
    const body = PAGES[path];
    if (!body) return void res.writeHead(404).end("not found");
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(body);
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const address = server.address() as { port: number };
      resolve({ server, url: `http://127.0.0.1:${address.port}` });
    }),
  );
}

/** A task on the hang server: its gold steps, a page check, a short time limit. */
function task(id: string, path: string, steps: string[], check: string, seconds = 20, marks = true): string {
  return `id: ${id}
title: Hanging page ${id}
target: hangs
instruction: On the test page, do exercise ${[...id].reduce((n, c) => n + c.charCodeAt(0), 0)} and answer done.
start: { path: ${path} }
tools: [click, write, press, wait, answer]
limits: { seconds: ${seconds}, turns: 12 }
${marks ? 'marks:\n  ask: { selector: "#ask" }\n  spin: { selector: "#spin" }\n' : ""}checks:
  - ${check}
reference:
${steps.map((s) => `  - ${s}`).join("\n")}
  - { tool: answer, args: { content: done } }
`;
}

const WAIT = "{ tool: wait, args: { seconds: 2 } }";
const TASKS: Record<string, string> = {
  "confirm-static": task(
    "confirm-static",
    "/confirm",
    ["{ tool: click, target: ask }", "{ tool: click, target: dialog.ok }"],
    `{ kind: page, name: the list was deleted, selector: "#result", text: deleted }`,
  ),
  "busy-click": task(
    "busy-click",
    "/busy",
    ["{ tool: click, target: spin }", WAIT],
    `{ kind: page, name: started, text: Start }`,
  ),
  frozen: task("frozen", "/frozen", [WAIT], `{ kind: page, name: frozen, text: Frozen }`, 20, false),
  crash: task("crash", "/crash", [WAIT, WAIT, WAIT, WAIT], `{ kind: page, name: alive, text: alive }`),
  "never-loads": task("never-loads", "/never-loads", [WAIT], `{ kind: page, name: loading, text: Loading }`),
  reloads: task("reloads", "/reloads", [WAIT, WAIT], `{ kind: page, name: again, text: Again }`),
};

/** Kills every Chromium renderer process under `root` (the CLI child): the page's renderer dies mid-trial. */
function killRenderers(root: number): number {
  const children = new Map<number, number[]>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
    } catch {
      // gone already
    }
  }
  let killed = 0;
  const walk = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      try {
        if (readFileSync(`/proc/${child}/cmdline`, "utf8").includes("--type=renderer")) {
          process.kill(child, "SIGKILL");
          killed += 1;
        }
      } catch {
        // gone already
      }
      walk(child);
    }
  };
  walk(root);
  return killed;
}

interface Trial {
  taskId: string;
  verdict: string | null;
  stopReason: string | null;
  stopDetail: string | null;
  error: string | null;
}

let dir: string;
let server: Server;
let result: CliResult;
const trials = new Map<string, Trial>();
let killedRenderers = 0;

function project(baseUrl: string, tasks: Record<string, string>): string {
  const root = mkdtempSync(join(dir, "project-"));
  mkdirSync(join(root, "tasks"));
  writeFileSync(join(root, "umpire.config.yaml"), `targets:\n  hangs:\n    baseUrl: ${baseUrl}\n    isolated: true\n`);
  for (const [id, text] of Object.entries(tasks)) writeFileSync(join(root, "tasks", `${id}.yaml`), text);
  return root;
}

const runArgs = (root: string, db: string) => [
  "run",
  root,
  "--model",
  "reference",
  "--mode",
  "structured",
  "--concurrency",
  "1",
  "--retries",
  "0",
  "--db",
  db,
  "--out",
  join(dir, "out"),
];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "umpire-hangs-"));
});

afterAll(() => {
  for (const res of heldResponses) res.destroy();
  heldResponses = [];
  server?.closeAllConnections();
  server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const trialOf = (id: string) => {
  const trial = trials.get(id);
  expect(trial, `no trial of ${id} (exit ${result.code}):\n${result.stderr.slice(-3000)}`).toBeDefined();
  return trial!;
};

describe("pages that block: every trial ends, with the right verdict", () => {
  beforeAll(async () => {
    const served = await serve();
    server = served.server;
    const root = project(served.url, TASKS);
    const db = join(dir, "umpire.db");
    const cli = startCli(runArgs(root, db), { killAfterMs: 480_000 });
    // The crash page announces itself: its renderer (every renderer of the run: one trial at a time) dies then.
    const killer = setInterval(() => {
      if (!announced.includes("crash") || killedRenderers > 0) return;
      killedRenderers = killRenderers(cli.child.pid!);
    }, 100);
    result = await cli.done;
    clearInterval(killer);
    const store = openStore(db);
    const run = store.listRuns()[0];
    if (!run) throw new Error(`the run stored nothing (exit ${result.code}):\n${result.stderr}`);
    for (const trial of store.trials(run.id) as unknown as Trial[]) trials.set(trial.taskId, trial);
    store.close();
    for (const [id, t] of trials) console.log(`${id}: ${t.verdict} ${t.stopReason} (${t.stopDetail})`);
  }, 540_000);

  it("the run ended on its own (the hang guard did not kill it)", () => {
    expect(result.signal, result.stderr.slice(-3000)).toBeNull();
    expect(trials.size).toBe(Object.keys(TASKS).length);
  });

  it("a confirm in a click handler on a static page is drawn, answered and judged", () => {
    const trial = trialOf("confirm-static");
    expect(trial.verdict, `${trial.stopReason}: ${trial.stopDetail}`).toBe("passed");
  });

  it("a click whose handler never yields: error, naming the call umpire was stuck in", () => {
    const trial = trialOf("busy-click");
    expect(trial.verdict).toBe("error");
    expect(trial.stopReason).toBe("environment_error");
    expect(trial.stopDetail).toMatch(
      /umpire was stuck: .+ did not answer in [\d.]+ s \(the trial's time limit of 20 s/,
    );
    // The input itself is never acknowledged (its handler never returns), or the page read after it never answers.
    expect(trial.stopDetail).toMatch(/stuck: (the click at|reading the page)/);
  });

  it("a capture that never answers (the main thread blocked after the layout read): error, naming it", () => {
    const trial = trialOf("frozen");
    expect(trial.verdict).toBe("error");
    expect(trial.stopReason).toBe("environment_error");
    expect(trial.stopDetail).toMatch(
      // The first call after the block: on a declared target the marks are read just before the capture.
      /umpire was stuck: (capturing the screenshot \(Page.captureScreenshot\)|resolving the marks on the page \(page.evaluate\)) did not answer/,
    );
  });

  it("a renderer killed mid-trial: error, saying the renderer crashed", () => {
    expect(killedRenderers).toBeGreaterThan(0);
    const trial = trialOf("crash");
    expect(trial.verdict).toBe("error");
    expect(trial.stopReason).toBe("environment_error");
    expect(trial.stopDetail).toMatch(/the page's renderer crashed/);
  });

  it("a start page that never finishes loading: error (the environment could not open it)", () => {
    const trial = trialOf("never-loads");
    expect(trial.verdict).toBe("error");
    expect(trial.stopReason).toBe("environment_error");
  });

  it("a page that navigates itself forever: the trial ends with a verdict", () => {
    const trial = trialOf("reloads");
    expect(["passed", "failed", "error"]).toContain(trial.verdict);
    if (trial.verdict === "error") expect(trial.stopDetail).toMatch(/\S/);
  });
});

describe("SIGTERM while a trial is stuck in a browser call", () => {
  it("ends the run: exit 143, the stuck trial cancelled", async () => {
    const served = await serve();
    try {
      const root = project(served.url, {
        "busy-long": task(
          "busy-long",
          "/busy-after",
          ["{ tool: click, target: spin }", WAIT],
          `{ kind: page, name: s, text: Start }`,
          300,
        ),
      });
      const db = join(dir, "sigterm.db");
      const before = announced.filter((a) => a === "busy-after").length;
      let sentAt = 0;
      const cli = startCli(runArgs(root, db), { killAfterMs: 240_000 });
      const poll = setInterval(() => {
        if (sentAt || announced.filter((a) => a === "busy-after").length === before) return;
        // The click is sent and its handler loops: umpire is now waiting on the page.
        setTimeout(() => cli.child.kill("SIGTERM"), 1_000);
        sentAt = Date.now() + 1_000;
      }, 100);
      const ended = await cli.done;
      clearInterval(poll);
      console.log(`SIGTERM to exit: ${sentAt ? Date.now() - sentAt : "never sent"} ms`);
      expect(sentAt, ended.stderr.slice(-2000)).toBeGreaterThan(0);
      expect(ended.signal, ended.stderr.slice(-2000)).toBeNull();
      expect(ended.code).toBe(143);
      const store = openStore(db);
      const trial = (store.trials(store.listRuns()[0]!.id) as unknown as Trial[])[0];
      store.close();
      expect(trial?.verdict ?? "pending (left for --resume)").toMatch(/cancelled|pending/);
    } finally {
      served.server.closeAllConnections();
      served.server.close();
    }
  }, 300_000);
});
