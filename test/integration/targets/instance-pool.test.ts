/**
 * A pool of instances (`targets.<name>.instances`) through the real CLI, on a real app that keeps its
 * state in one server process (pool-app/app.mjs logs which port served which trial, and when):
 * - two copies, two trials at once: the app's own logs show two trials overlapping on different
 *   ports, every gold trial passes, and the summary says how the pool was used;
 * - a copy killed in the middle of a trial: that trial ends `error` (the environment's), and the
 *   trials after it pass on the restarted copy;
 * - one copy of a shared-state app runs its trials one at a time, and the summary says it was pinned;
 * - the self-test plays two gold trials at once on a target declared isolated: over shared state it
 *   reports interference; with two instances it passes.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../../../src/store/open.js";
import { runCli } from "../../support/cli.js";

const APP = join(import.meta.dirname, "pool-app", "app.mjs");
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const TASK = `
id: add-one
title: Add one item
target: pool
instruction: Add one item.
tools: [click, answer]
checks:
  - { kind: http, name: exactly one item, url: /api/items, json: [{ path: "", length: 1 }] }
reference:
  - { tool: click, target: add }
  - { tool: answer, args: { content: Added } }
`;

function project(target: string): string {
  const dir = mkdtempSync(join(tmpdir(), "umpire-pool-"));
  dirs.push(dir);
  mkdirSync(join(dir, "tasks"));
  writeFileSync(join(dir, "tasks", "add-one.yaml"), TASK);
  writeFileSync(
    join(dir, "umpire.config.yaml"),
    `targets:
  pool:
    baseUrl: http://127.0.0.1:\${PORT}
    start: { command: [node, ${JSON.stringify(APP)}], env: { CRASH_FLAG: ${JSON.stringify(join(dir, "crash"))}, RESET_FLAG: ${JSON.stringify(join(dir, "wedged"))} } }
    reset: { kind: http, url: /reset }
    context: { headers: { x-trial: "\${TRIAL_ID}" } }
${target}`,
  );
  return dir;
}

interface Logged {
  port: number;
  instance: string;
  trial: string | null;
  what: string;
  at: number;
}

function runFolder(dir: string): string {
  const out = join(dir, "out");
  return join(out, readdirSync(out)[0]!);
}

function appLog(file: string): Logged[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Logged);
}

async function run(dir: string, args: string[]) {
  const result = await runCli(
    ["run", "tasks", "--mode", "structured", "--db", join(dir, "u.db"), "--out", join(dir, "out"), ...args],
    { cwd: dir, killAfterMs: 500_000 },
  );
  const store = openStore(join(dir, "u.db"));
  const trials = store.trials(store.listRuns()[0]!.id) as unknown as {
    id: string;
    verdict: string;
    error: string | null;
    metrics: { target?: { resetMs?: number; instance?: number } };
  }[];
  store.close();
  return { ...result, trials };
}

describe("a pool of instances", () => {
  it("runs two trials at once on two copies of a stateful app, each passing, and says so in the summary", async () => {
    const dir = project("    instances: 2\n");
    const { stdout, stderr, trials } = await run(dir, ["--repeat", "4", "--concurrency", "2"]);
    expect(
      trials.map((t) => t.verdict),
      stderr,
    ).toEqual(["passed", "passed", "passed", "passed"]);
    // From the app's own logs: which port served each trial, from its reset to its last request.
    const folder = runFolder(dir);
    const lines = [0, 1].flatMap((i) => appLog(join(folder, `target-pool-${i}.log`)));
    const spans = new Map<string, { ports: Set<number>; from: number; to: number }>();
    for (const l of lines.filter((x) => x.trial)) {
      const span = spans.get(l.trial!) ?? { ports: new Set(), from: l.at, to: l.at };
      span.ports.add(l.port);
      span.from = Math.min(span.from, l.at);
      span.to = Math.max(span.to, l.at);
      spans.set(l.trial!, span);
    }
    expect(spans.size).toBe(4);
    for (const span of spans.values()) expect(span.ports.size).toBe(1);
    const all = [...spans.values()];
    const together = all.some((a, i) =>
      all.some((b, j) => i < j && [...a.ports][0] !== [...b.ports][0] && a.from < b.to && b.from < a.to),
    );
    expect(together).toBe(true);
    // Each trial's reset time and instance are stored with it; each copy has its own folder.
    for (const t of trials) {
      expect(t.metrics.target?.resetMs).toBeTypeOf("number");
      expect([0, 1]).toContain(t.metrics.target?.instance);
    }
    expect(existsSync(join(folder, "instances", "pool-0"))).toBe(true);
    expect(existsSync(join(folder, "instances", "pool-1"))).toBe(true);
    expect(stdout).toMatch(
      /target notes: pool: 2 instances, peak 2 at once, waited \d+\.\d+ s per trial, reset \d+\.\d+ s per trial/,
    );
    expect(stdout).not.toMatch(/pinned: isolated false/);
  }, 600_000);

  it("ends the trial whose copy was killed as an environment error, and runs the next on the restarted copy", async () => {
    const dir = project("    instances: 2\n");
    writeFileSync(join(dir, "crash"), "");
    const { trials, stderr } = await run(dir, ["--repeat", "4", "--concurrency", "2", "--retries", "0"]);
    const errors = trials.filter((t) => t.verdict === "error");
    expect(errors, stderr).toHaveLength(1);
    expect(errors[0]!.error).toMatch(/target pool instance \d: the app exited with SIGKILL during the trial/);
    expect(trials.filter((t) => t.verdict === "passed")).toHaveLength(3);
    // The killed copy started again, and a later trial ran on it.
    const folder = runFolder(dir);
    const logs = [0, 1].map((i) => appLog(join(folder, `target-pool-${i}.log`)));
    const crashed = logs.find((l) => l.some((x) => x.what === "crash"))!;
    const crashAt = crashed.find((x) => x.what === "crash")!.at;
    expect(crashed.filter((x) => x.what === "listening")).toHaveLength(2);
    expect(crashed.some((x) => x.what === "POST /api/items" && x.at > crashAt)).toBe(true);
  }, 600_000);

  it("restarts a copy whose reset failed: that trial is an environment error, the next passes on the restarted copy", async () => {
    const dir = project("");
    writeFileSync(join(dir, "wedged"), "");
    const { trials, stderr } = await run(dir, ["--repeat", "2", "--retries", "0"]);
    expect(
      trials.map((t) => t.verdict),
      stderr,
    ).toEqual(["error", "passed"]);
    expect(trials[0]!.error).toMatch(
      /target pool: the reset POST http:\/\/127\.0\.0\.1:\d+\/reset answered 500: wedged/,
    );
    expect(appLog(join(runFolder(dir), "target-pool.log")).filter((x) => x.what === "listening")).toHaveLength(2);
  }, 600_000);

  it("runs a shared-state app with one copy one trial at a time, and the summary says it was pinned", async () => {
    const dir = project("");
    const { stdout, trials } = await run(dir, ["--repeat", "2", "--concurrency", "2"]);
    expect(trials.map((t) => t.verdict)).toEqual(["passed", "passed"]);
    expect(stdout).toMatch(/target notes: pool: 1 instance, peak 1 at once, .*; pinned: isolated false/);
  }, 600_000);
});

describe("instances: auto and pool declarations", () => {
  it("sizes the pool from the run's concurrency and free memory, and the summary says how", async () => {
    const dir = project("    instances: auto\n");
    const { stdout, trials } = await run(dir, ["--repeat", "2", "--concurrency", "2"]);
    expect(trials.map((t) => t.verdict)).toEqual(["passed", "passed"]);
    // Two copies of a ~50 MB app fit in half the free memory of any machine that runs these tests.
    expect(stdout).toMatch(
      /target notes: pool: 2 instances \(auto: concurrency 2; half of \d+ MB free at \d+ MB measured per instance holds \d+\)/,
    );
    expect(existsSync(join(runFolder(dir), "target-pool-1.log"))).toBe(true);
  }, 600_000);

  it("a pool without a port per instance, or restoring one folder for every instance, is a config error naming the field", async () => {
    const dir = project("    instances: 2\n");
    const config = join(dir, "umpire.config.yaml");
    writeFileSync(config, readFileSync(config, "utf8").replace("http://127.0.0.1:${PORT}", "http://127.0.0.1:3999"));
    const noPort = await runCli(["validate", "tasks"], { cwd: dir });
    expect(noPort.code).not.toBe(0);
    expect(noPort.stdout + noPort.stderr).toMatch(
      /baseUrl[\s\S]*each instance listens on its own port: write the base URL with \$\{PORT\}/,
    );
    writeFileSync(
      config,
      readFileSync(config, "utf8")
        .replace("http://127.0.0.1:3999", "http://127.0.0.1:${PORT}")
        .replace("{ kind: http, url: /reset }", "{ kind: restore, from: seed, to: data }"),
    );
    const shared = await runCli(["validate", "tasks"], { cwd: dir });
    expect(shared.code).not.toBe(0);
    expect(shared.stdout + shared.stderr).toMatch(
      /reset\.to[\s\S]*every instance would restore the same folder: write it under \$\{INSTANCE_DIR\}/,
    );
  }, 120_000);
});

describe("isolated, proven by the self-test", () => {
  it("reports interference on a target wrongly declared isolated over shared state, and passes with two instances", async () => {
    const wrong = project("    isolated: true\n");
    const bad = await runCli(
      [
        "validate",
        "--self-test",
        "tasks",
        "--concurrency",
        "1",
        "--db",
        join(wrong, "u.db"),
        "--out",
        join(wrong, "out"),
      ],
      { cwd: wrong, killAfterMs: 500_000 },
    );
    expect(bad.code, bad.stderr).not.toBe(0);
    expect(bad.stdout).toMatch(/add-one gold\/at-once-\d: expected passed, got failed/);
    expect(bad.stdout).toContain(
      "two trials at once changed each other's state: declare instances or a context namespace",
    );

    const pooled = project("    instances: 2\n");
    const good = await runCli(
      [
        "validate",
        "--self-test",
        "tasks",
        "--concurrency",
        "1",
        "--db",
        join(pooled, "u.db"),
        "--out",
        join(pooled, "out"),
      ],
      { cwd: pooled, killAfterMs: 500_000 },
    );
    expect(good.stdout, good.stderr).toContain("every task is sound");
    expect(good.stdout).toMatch(/gold\/at-once-1 passed: ok; gold\/at-once-2 passed: ok/);
    // The progress lines name each trial's probe: the at-once pair apart from the gold's (#39).
    expect(good.stderr).toMatch(/^ {2}add-one gold\/structured \[reference\/structured\]: passed/m);
    expect(good.stderr).toMatch(/^ {2}add-one gold\/at-once-1 \[reference\/structured\]: passed/m);
    expect(good.stderr).toMatch(/^ {2}add-one gold\/at-once-2 \[reference\/structured\]: passed/m);
    expect(good.code).toBe(0);
  }, 900_000);
});
