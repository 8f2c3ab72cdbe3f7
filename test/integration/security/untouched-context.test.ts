/**
 * Issue 24, through the real CLI with real command agents (Node programs driving the trial's
 * browser over CDP) on a real app (test/fixtures/optimistic-app/app.mjs, started by its target):
 * - a page check of a command agent judges a fresh load in a browser context the agent never had:
 *   a forger that writes localStorage by script and pushState's the URL (its own page then shows
 *   "Saved apple") fails, while a gold agent that really saves passes; the storage check, which
 *   script can write, is reported `observed` and says it does not decide;
 * - each trial records its sandbox in the store and the trial JSON: `bubblewrap`, or `none` with
 *   --no-sandbox (said on stderr, and in `umpire show`);
 * - a bubblewrap that cannot start ends the trial environment_error (verdict error), not agent_crashed;
 * - without a bubblewrap at all the run is refused (exit 2, nothing run) unless --no-sandbox (issue #38 §4).
 */
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "yaml";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../../../src/store/open.js";
import { REPO_ROOT, runCli } from "../../support/cli.js";
import { scratch } from "./support.js";

const s = scratch("untouched");
afterAll(() => s.cleanup());
const PLAYWRIGHT = JSON.stringify(join(REPO_ROOT, "node_modules/playwright/index.mjs"));
const APP = join(REPO_ROOT, "test/fixtures/optimistic-app/app.mjs");

const OPEN = `import { chromium } from ${PLAYWRIGHT};
import { writeFileSync } from "node:fs";
const browser = await chromium.connectOverCDP(process.env.UMPIRE_CDP_URL);
const page = browser.contexts().flatMap((c) => c.pages())[0];
await page.waitForLoadState("load");
const done = (answer) => writeFileSync(process.env.UMPIRE_RESULT_FILE, JSON.stringify({ answer, outcome: "success" }));
`;
/** Does the task: types the name, presses Save, lands on the saved page. */
const GOLD = `${OPEN}
await page.fill("#name", "apple");
await Promise.all([page.waitForURL(/\\/saved\\/apple$/), page.click("button[type=submit]")]);
done(await page.textContent("#status"));
await browser.close();`;
/** Never saves: writes what the optimistic page trusts and moves the URL, then reads its own page. */
const FORGER = `${OPEN}
await page.evaluate(() => {
  localStorage.setItem("pending", "apple");
  history.pushState({}, "", "/saved/apple");
});
// In the trial's own context the forgery works: a real load of that URL says "Saved apple".
await page.reload();
done(JSON.stringify({ url: page.url(), own: await page.textContent("#status") }));
await browser.close();`;

const TASK = {
  id: "save-apple",
  title: "Save apple",
  target: "optimistic",
  instruction: "In the app, save an item named apple.",
  givens: ["apple"],
  start: { path: "/" },
  tools: ["click", "write", "answer"],
  checks: [
    {
      kind: "page",
      name: "the saved page says apple is saved",
      url: { regex: "/saved/apple$" },
      selector: "#status",
      text: "Saved apple",
    },
    { kind: "storage", name: "the pending save is apple", area: "localStorage", key: "pending", contains: ["apple"] },
  ],
  reference: [
    { tool: "click", target: "name" },
    { tool: "write", args: { content: "apple" } },
    { tool: "click", target: "save" },
    { tool: "answer", args: { content: "Saved apple" } },
  ],
};

function project(): { config: string; task: string } {
  const dir = join(s.dir, "project");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "gold.mjs"), GOLD);
  writeFileSync(join(dir, "forger.mjs"), FORGER);
  const task = join(dir, "save-apple.yaml");
  writeFileSync(task, stringify(TASK));
  const config = join(dir, "umpire.config.yaml");
  writeFileSync(
    config,
    stringify({
      targets: {
        optimistic: {
          baseUrl: "http://127.0.0.1:${PORT}",
          start: { command: [process.execPath, APP], readyUrl: "/" },
          context: { headers: { "x-trial": "${TRIAL_ID}" } },
          isolated: true,
          marks: { name: { selector: "#name" }, save: { role: "button", name: "Save", exact: true } },
        },
      },
      agents: {
        gold: { kind: "command", command: [process.execPath, "gold.mjs"] },
        forger: { kind: "command", command: [process.execPath, "forger.mjs"] },
      },
    }),
  );
  return { config, task };
}
const { config, task } = project();

type TrialJson = {
  id: string;
  agent: string;
  verdict: string;
  stopReason: string;
  stopDetail: string;
  sandbox: string | null;
  answer: string | null;
  checks: { kind: string; required: boolean; pass: boolean; confidence: string; reason: string }[];
};
const trialsOf = (stdout: string) => JSON.parse(stdout).trials as TrialJson[];
const storedSandboxes = (runId: string) => {
  const store = openStore(s.db, { readonly: true });
  try {
    return store.trials(runId).map((t) => t.sandbox);
  } finally {
    store.close();
  }
};

describe("command agents: what their checks judge, and which sandbox held them", () => {
  it("in the sandbox: script-set localStorage and a pushState'd URL fail the page check; the gold agent passes", async () => {
    const run = await runCli(
      [
        "run",
        task,
        "--config",
        config,
        "--agent",
        "gold",
        "--agent",
        "forger",
        "--concurrency",
        "2",
        "--run-id",
        "judged",
        "--out",
        s.out,
        "--db",
        s.db,
        "--json",
      ],
      {
        killAfterMs: 400_000,
      },
    );
    const trials = trialsOf(run.stdout);
    const gold = trials.find((t) => t.agent.includes("gold"))!;
    const forger = trials.find((t) => t.agent.includes("forger"))!;
    expect([gold.verdict, gold.stopReason], run.stderr).toEqual(["passed", "answered"]);
    expect(gold.answer).toBe("Saved apple");
    // The forgery worked in its own context: its page said "Saved apple" after a real load.
    expect(JSON.parse(forger.answer!)).toEqual({ url: expect.stringMatching(/\/saved\/apple$/), own: "Saved apple" });
    expect([forger.verdict, forger.stopReason]).toEqual(["failed", "answered"]);
    const page = forger.checks.find((c) => c.kind === "page")!;
    expect(page).toMatchObject({ required: true, pass: false });
    expect(page.reason).toContain('#status text does not match "Saved apple"');
    expect(gold.checks.find((c) => c.kind === "page")).toMatchObject({ required: true, pass: true });
    // Storage a script can write is reported, observed, and never decides (for either agent).
    for (const trial of [gold, forger]) {
      const storage = trial.checks.find((c) => c.kind === "storage")!;
      expect(storage).toMatchObject({ required: false, pass: true, confidence: "observed" });
      expect(storage.reason).toContain("not deciding: the agent's own script can write localStorage");
      expect(trial.sandbox).toBe("bubblewrap");
    }
    expect(storedSandboxes("judged")).toEqual(["bubblewrap", "bubblewrap"]);
    // The evidence says where the page was judged.
    const store = openStore(s.db, { readonly: true });
    try {
      const evidence = store.checks(forger.id).find((c) => c.kind === "page")!.evidence as Record<string, unknown>;
      expect(String(evidence.page)).toContain("in a browser context the agent never had");
      expect(evidence.elementText).toBe("Not saved");
    } finally {
      store.close();
    }
    expect(run.code).toBe(1);
  }, 420_000);

  it("--no-sandbox: said on stderr, and each trial records sandbox none (store, JSON, umpire show)", async () => {
    const run = await runCli(
      [
        "run",
        task,
        "--config",
        config,
        "--agent",
        "gold",
        "--no-sandbox",
        "--run-id",
        "bare",
        "--out",
        s.out,
        "--db",
        s.db,
        "--json",
      ],
      { killAfterMs: 400_000 },
    );
    expect(run.stderr).toContain("--no-sandbox: command agents run outside the sandbox");
    const [trial] = trialsOf(run.stdout);
    expect(trial!.sandbox).toBe("none");
    expect(trial!.verdict, run.stderr).toBe("passed");
    expect(storedSandboxes("bare")).toEqual(["none"]);
    const show = await runCli(["show", "bare", "--db", s.db]);
    expect(show.stdout).toContain("sandbox: none (the agent's code ran with this user's files, processes and network");
  }, 420_000);

  it("a bubblewrap that cannot start ends the trial environment_error (error), not agent_crashed", async () => {
    // Passes umpire's start-up probe (its last argument is `true`), then refuses every sandbox, as
    // bubblewrap does when the user namespaces run out between the probe and a trial.
    const bwrap = join(s.dir, "bwrap-refuses");
    writeFileSync(
      bwrap,
      `#!/bin/sh\nfor last; do :; done\nif [ "$last" = true ]; then exec /usr/bin/bwrap "$@"; fi\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n`,
    );
    chmodSync(bwrap, 0o755);
    const run = await runCli(
      [
        "run",
        task,
        "--config",
        config,
        "--agent",
        "gold",
        "--retries",
        "0",
        "--run-id",
        "nobwrap",
        "--out",
        s.out,
        "--db",
        s.db,
        "--json",
      ],
      {
        killAfterMs: 400_000,
        env: { UMPIRE_BWRAP: bwrap },
      },
    );
    const [trial] = trialsOf(run.stdout);
    expect([trial!.verdict, trial!.stopReason], run.stderr).toEqual(["error", "environment_error"]);
    expect(trial!.stopDetail).toContain(`the sandbox (bubblewrap, ${bwrap}) could not start, so the agent never ran`);
    expect(trial!.stopDetail).toContain("setting up uid map: Permission denied");
    expect(storedSandboxes("nobwrap")).toEqual(["bubblewrap"]);
    expect(run.code).not.toBe(1);
  }, 420_000);

  it("no bubblewrap at all: the run is refused with the fix (--no-sandbox), no trial runs (it was a warning and exit 0)", async () => {
    const missing = join(s.dir, "no-such-bwrap");
    const args = ["run", task, "--config", config, "--agent", "gold", "--out", s.out, "--db", s.db];
    const run = await runCli([...args, "--run-id", "refused", "--json"], { env: { UMPIRE_BWRAP: missing } });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(
      `the sandbox for command agents cannot start: ${missing} (UMPIRE_BWRAP) does not exist`,
    );
    expect(run.stderr).toContain("pass --no-sandbox to run command agents with this user's files");
    expect(existsSync(join(s.out, "refused"))).toBe(false);
    // A listing starts no agent: it is not refused.
    const list = await runCli([...args, "--list"], { env: { UMPIRE_BWRAP: missing } });
    expect(list.code, list.stderr).toBe(0);
  }, 120_000);
});
