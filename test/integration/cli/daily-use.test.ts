/**
 * Daily use through the real CLI (child processes, real Chromium, the embedded reference model,
 * a real SQLite file): choosing what runs (--list with --grep/--grep-invert/--task-tag/--shard,
 * --last-failed), stopping early (-x) and resuming, --retries on `error` verdicts, --quiet, the
 * reporters from `run` and `show`, the heartbeat in a log and the live view on a pseudo-terminal.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../../src/store/open.js";
import { REPO_ROOT, runCli, type CliResult } from "../../support/cli.js";
import { parseXml } from "../../unit/report/xml-check.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "umpire-daily-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const store = () => ["--db", join(dir, "umpire.db"), "--out", join(dir, "runs")];
const umpire = (args: string[], env: Record<string, string> = {}) =>
  runCli(args, { env: { CI: "", ...env }, killAfterMs: 400_000 });

/** The CLI on a pseudo-terminal (test/support/pty-run.py), as a user at a terminal runs it. */
function onTerminal(args: string[]): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1", TERM: "xterm" };
    delete env.CI;
    const child = spawn(
      "python3",
      [join(REPO_ROOT, "test/support/pty-run.py"), process.execPath, join(REPO_ROOT, "bin/umpire.js"), ...args],
      { cwd: REPO_ROOT, env, stdio: ["ignore", "pipe", "pipe"], timeout: 400_000, killSignal: "SIGKILL" },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.on("error", reject);
    child.on("close", (code) => {
      resolve({ code, stdout, stderr });
    });
  });
}

/** Planned rows of `run --list`: [task, agent, repeat, shard]. */
const listed = (out: string) =>
  out
    .trim()
    .split("\n")
    .slice(1, -1)
    .map((line) => line.trim().split(/\s+/));

describe("choosing what runs, without running", () => {
  it("--list prints the planned trials after --grep, --grep-invert and --task-tag, and starts nothing", async () => {
    const r = await umpire([
      "run",
      "--list",
      "--grep",
      "bb042",
      "--grep-invert",
      "cookie|slow",
      "--task-tag",
      "notes",
      "--task-tag",
      "answer",
      "--mode",
      "structured",
      "--repeat",
      "2",
      ...store(),
    ]);
    expect(r.code).toBe(0);
    const rows = listed(r.stdout);
    const tasks = [...new Set(rows.map((row) => row[0]))];
    // bb042 in the id, not cookie or slow, tagged notes or answer.
    expect(tasks).toEqual([
      "answer-only-bb042",
      "api-note-bb042",
      "canvas-note-bb042",
      "injection-note-bb042",
      "lazy-note-bb042",
      "scorecard-note-bb042",
      "trap-date-bb042",
    ]);
    expect(rows).toContainEqual(["answer-only-bb042", "reference/structured", "1", "1/1"]);
    expect(rows).toHaveLength(14);
    expect(r.stdout).toMatch(/14 trials \(7 tasks, 1 agent\); nothing was run/);
    expect(r.stderr).not.toContain("umpire: run "); // no run started
  });

  it("--list --json with --shard names each trial's shard; title matches count for --grep", async () => {
    const r = await umpire(["run", "--list", "--json", "--grep", "canvas scorecard", "--shard", "1/2", ...store()]);
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.stdout) as { task: string; agent: string; shard: string }[];
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row).toMatchObject({ task: "canvas-note-bb042", shard: "1/2" });
  });

  it("a filter that selects nothing, a pattern RE2 cannot run, an unknown reporter and -x against --max-failures are usage errors (exit 2)", async () => {
    const none = await umpire(["run", "--list", "--task-tag", "nosuch", ...store()]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("--task-tag nosuch selects none of the");
    expect(none.stderr).toContain("the declared tags are:");
    const bad = await umpire(["run", "--list", "--grep", "(?=x)", ...store()]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("lookahead and lookbehind are not supported");
    const reporter = await umpire(["run", "--list", "--reporter", "junt:out.xml", ...store()]);
    expect(reporter.code).toBe(2);
    expect(reporter.stderr).toContain("did you mean 'junit'");
    const both = await umpire(["run", "--list", "-x", "--max-failures", "3", ...store()]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("-x (--exit-first) and --max-failures 3 disagree");
  });
});

describe("a run stopped at the first failure, re-run and resumed", () => {
  let runId: string;

  it("-x stops after the first failure, leaves the rest not run, writes JUnit/Markdown/JSON from run, and heartbeats in a log", async () => {
    const junit = join(dir, "out/junit.xml");
    const markdown = join(dir, "out/summary.md");
    const json = join(dir, "out/run.json");
    const r = await umpire(
      [
        "run",
        "scorecard-note-bb042",
        "trap-date-bb042",
        "--model",
        "reference:wrong-record",
        "--mode",
        "structured",
        "--concurrency",
        "1",
        "-x",
        "--reporter",
        `junit:${junit}`,
        "--reporter",
        `markdown:${markdown}`,
        "--reporter",
        `json:${json}`,
        ...store(),
      ],
      { UMPIRE_HEARTBEAT_MS: "1500" },
    );
    expect(r.code, r.stderr).toBe(1);
    runId = /run (\S+): 2 trials/.exec(r.stderr)![1]!;
    expect(r.stderr).toMatch(
      /still running: scorecard-note-bb042 \[reference:wrong-record\/structured #0\] turn \d+\/\d+/,
    );
    expect(r.stderr).toMatch(/\[1\/2\] FAIL {2}scorecard-note-bb042/);
    expect(r.stderr).toContain(
      `stopped after 1 failed or error trial (--max-failures 1); 1 trial not run: umpire run --resume ${runId} runs them`,
    );
    expect(r.stdout).toContain(`json: ${json}`);

    const body = JSON.parse(readFileSync(json, "utf8"));
    expect(body.trials.map((t: { task: string; verdict: string | null }) => [t.task, t.verdict])).toEqual([
      ["scorecard-note-bb042", "failed"],
      ["trap-date-bb042", null],
    ]);
    const xml = readFileSync(junit, "utf8");
    parseXml(xml);
    expect(xml).toContain("<failure");
    const md = readFileSync(markdown, "utf8");
    expect(md).toContain(`## umpire run ${runId} (interrupted)`);
    expect(md).toMatch(/\| trap-date-bb042 \| reference:wrong-record\/structured \| 0 \| not run \|/);

    const db = openStore(join(dir, "umpire.db"), { readonly: true });
    try {
      expect(db.getRun(runId).status).toBe("interrupted");
      expect(db.unfinishedTrials(runId).map((t) => t.taskId)).toEqual(["trap-date-bb042"]);
      expect(db.trials(runId)[0]).toMatchObject({ attempt: 1, retried: false }); // a failure is never retried
    } finally {
      db.close();
    }
  });

  it("--last-failed plans the failed and the never-run pairs, with that run's agent", async () => {
    const r = await umpire(["run", "--last-failed", "--list", ...store()]);
    expect(r.code, r.stderr).toBe(0);
    expect(listed(r.stdout)).toEqual([
      ["scorecard-note-bb042", "reference:wrong-record/structured", "0", "1/1"],
      ["trap-date-bb042", "reference:wrong-record/structured", "0", "1/1"],
    ]);
  });

  it("--resume on a terminal runs only the trial not run, in the live view", async () => {
    const r = await onTerminal(["run", "--resume", runId, ...store()]);
    expect([0, 1], r.stdout).toContain(r.code);
    // The in-flight line (task, agent, turn k of the limit, elapsed) and the progress line, redrawn in place.
    expect(r.stdout).toMatch(/trap-date-bb042 \[reference:wrong-record\/structured #0\] turn \d+\/\d+/);
    expect(r.stdout).toMatch(/0\/1 done, 0 not passed, 1 running, \d+s elapsed, estimating time left/);
    expect(r.stdout).toMatch(/\x1b\[\d+F\x1b\[J/);
    expect(r.stdout).toMatch(/1\/1 done/);
    expect(r.stdout).not.toContain("scorecard-note-bb042 [");
    const db = openStore(join(dir, "umpire.db"), { readonly: true });
    try {
      expect(db.unfinishedTrials(runId)).toEqual([]);
    } finally {
      db.close();
    }
  });

  it("after the resume, --failed-in names the run and plans only what did not pass", async () => {
    const r = await umpire(["run", "--failed-in", runId, "--list", ...store()]);
    expect(r.code, r.stderr).toBe(0);
    const tasks = listed(r.stdout).map((row) => row[0]);
    expect(tasks[0]).toBe("scorecard-note-bb042");
    expect(tasks).not.toContain(undefined);
  });

  it("show --reporter dot and markdown render the stored run", async () => {
    const db = ["--db", join(dir, "umpire.db")];
    const dot = await umpire(["show", runId, "--reporter", "dot", ...db]);
    expect(dot.code).toBe(0);
    expect(dot.stdout).toMatch(/^F[.F]\n/);
    const md = await umpire(["show", runId, "--reporter", "markdown", ...db]);
    expect(md.code).toBe(0);
    expect(md.stdout).toContain(`## umpire run ${runId} (finished)`);
    expect(md.stdout).not.toContain("┌"); // only the Markdown on stdout
  });
});

describe("--retries and --quiet", () => {
  let server: Server;
  let baseUrl: string;
  beforeAll(async () => {
    // An endpoint that lists its model but refuses every completion (400: not retried by the client): each attempt is an infrastructure error.
    server = createServer((req, res) => {
      res.setHeader("content-type", "application/json");
      if (req.method === "GET" && req.url?.endsWith("/models"))
        return res.end(JSON.stringify({ object: "list", data: [{ id: "broken", object: "model" }] }));
      res.statusCode = 400;
      res.end(
        JSON.stringify({ error: { message: "this server refuses every completion", type: "invalid_request_error" } }),
      );
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("--retries 2 runs an error trial three times, keeping each attempt; --quiet prints only the summary", async () => {
    const r = await umpire([
      "run",
      "answer-only-bb042",
      "--model",
      "broken",
      "--base-url",
      baseUrl,
      "--mode",
      "structured",
      "--retries",
      "2",
      "--quiet",
      ...store(),
    ]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).not.toContain("umpire: run ");
    expect(r.stderr).not.toContain("ERROR");
    expect(r.stdout).toMatch(/0\/1 passed, 0 failed, 1 error\b/);
    expect(r.code).toBe(3); // only an infrastructure error, no failure
    const runId = /run (\S+) \(/.exec(r.stdout)![1]!;
    const db = openStore(join(dir, "umpire.db"), { readonly: true });
    try {
      expect(db.trials(runId)[0]).toMatchObject({ verdict: "error", attempt: 3, retried: true });
    } finally {
      db.close();
    }
    const folders = readdirSync(join(dir, "runs", runId)).filter((f) => f.includes("answer-only-bb042"));
    expect(folders.sort()).toEqual([
      expect.stringMatching(/r0$/),
      expect.stringMatching(/--attempt2$/),
      expect.stringMatching(/--attempt3$/),
    ]);
  });
});
