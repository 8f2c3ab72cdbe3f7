/**
 * The main job through the real CLI: `umpire run --json`, a killed run resumed without redoing
 * finished trials, and `umpire compare` between the reference model and its wrong-record profile:
 * flipped tasks listed, the regression gate failing, structured vs function calling side by side,
 * and JUnit output that parses as XML.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../../src/cli/main.js";
import type { CommandIO } from "../../../src/cli/io.js";
import { openStore } from "../../../src/store/open.js";
import { parseXml } from "../../unit/report/xml-check.js";

const ROOT = join(__dirname, "../../..");
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "umpire-cli-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Captured {
  io: CommandIO;
  out: () => string;
  err: () => string;
  abort: (reason: string) => void;
}

function capture(onErr?: (text: string, c: Captured) => void): Captured {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const controller = new AbortController();
  let out = "";
  let err = "";
  const captured: Captured = {
    io: { stdout, stderr, env: {}, cwd: ROOT, signal: controller.signal },
    out: () => out,
    err: () => err,
    abort: (reason) => controller.abort(new Error(reason)),
  };
  stdout.on("data", (c) => (out += c));
  stderr.on("data", (c) => {
    err += c;
    onErr?.(err, captured);
  });
  return captured;
}

const db = () => join(dir, "umpire.db");
const common = () => ["--db", db(), "--out", join(dir, "runs")];

describe("umpire run and compare through the CLI", () => {
  let baseline: string;
  let candidate: string;

  it("run --json prints only JSON, with every trial's verdict, checks, usage, cost and timing", async () => {
    const c = capture();
    const code = await main(
      ["run", "scorecard-note-bb042", "trap-date-bb042", "--mode", "both", "--tag", "main", "--json", ...common()],
      c.io,
    );
    const body = JSON.parse(c.out());
    baseline = body.runId;
    expect(code).toBe(0);
    expect(body.trials).toHaveLength(4);
    for (const trial of body.trials) {
      expect(trial).toMatchObject({
        verdict: "passed",
        stopReason: "answered",
        claimed: true,
        verified: true,
        model: "reference",
      });
      expect(["structured", "tools"]).toContain(trial.mode);
      expect(trial.usage.inputTokens).toBeGreaterThan(1000);
      expect(trial.costUsd).toBe(0);
      expect(trial.timing.wallMs).toBeGreaterThan(trial.timing.modelMs);
      expect(trial.checks.length).toBeGreaterThan(2);
      expect(trial.checks[0]).toHaveProperty("confidence");
    }
  });

  it("compare against the wrong-record profile lists the flipped task and the gate fails (exit 1)", async () => {
    const run = capture();
    expect(
      await main(
        [
          "run",
          "scorecard-note-bb042",
          "trap-date-bb042",
          "--model",
          "reference:wrong-record",
          "--mode",
          "both",
          "--json",
          ...common(),
        ],
        run.io,
      ),
    ).toBe(1);
    candidate = JSON.parse(run.out()).runId;

    const cmp = capture();
    const junit = join(dir, "junit.xml");
    const code = await main(
      ["compare", "--baseline", baseline, candidate, "--fail-on-regression", "--junit", junit, "--db", db(), "--json"],
      cmp.io,
    );
    expect(code).toBe(1);
    const report = JSON.parse(cmp.out());
    const text = JSON.stringify(report);
    // Both tasks declare a wrong-record negative: both flip from passing to failing.
    expect(text).toContain("scorecard-note-bb042");
    expect(text).toMatch(/regress|flip/i);
    const xml = parseXml(readFileSync(junit, "utf8"));
    expect(xml.name).toBe("testsuites");
    const failures = JSON.stringify(xml).match(/BB-024/g) ?? [];
    expect(failures.length).toBeGreaterThan(0);
  });

  it("compare --by mode shows structured and function calling side by side with cost and latency", async () => {
    const c = capture();
    expect(await main(["compare", baseline, "--by", "mode", "--db", db()], c.io)).toBe(0);
    expect(c.out()).toMatch(/structured/);
    expect(c.out()).toMatch(/tools/);
    expect(c.out()).toMatch(/cost\/success/);
    expect(c.out()).toMatch(/p50 wall/);
  });

  it("a killed run is resumed without redoing its finished trials", async () => {
    // Ctrl-C after the first trial finishes; with one trial at a time the rest never start.
    const first = capture((err, c) => {
      if (err.includes("[1/3]")) c.abort("cancelled by user");
    });
    const code = await main(
      [
        "run",
        "answer-only-bb042",
        "infeasible-bb999",
        "api-note-bb042",
        "--mode",
        "structured",
        "--concurrency",
        "1",
        ...common(),
      ],
      first.io,
    );
    expect(code).toBe(130);
    const runId = /run (\S+): 3 trials/.exec(first.err())![1]!;
    let store = openStore(db(), { readonly: true });
    const before = store.trials(runId);
    expect(store.getRun(runId).status).toBe("interrupted");
    const done = before.filter((t) => t.status === "done");
    expect(done.length).toBeGreaterThanOrEqual(1);
    expect(done.length).toBeLessThan(3);
    store.close();

    const resumed = capture();
    expect(await main(["run", "--resume", runId, ...common()], resumed.io)).toBe(0);
    store = openStore(db(), { readonly: true });
    const after = store.trials(runId);
    expect(store.getRun(runId).status).toBe("finished");
    expect(after.every((t) => t.status === "done" && t.verdict === "passed")).toBe(true);
    for (const finished of done) {
      const again = after.find((t) => t.id === finished.id)!;
      // Not redone: same attempt, same end time.
      expect(again.attempt).toBe(finished.attempt);
      expect(again.endedAt).toBe(finished.endedAt);
    }
    store.close();
  });
});
