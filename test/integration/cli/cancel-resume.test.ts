/**
 * Issue 12 §1 through the real CLI process: Ctrl-C (a real SIGINT) during a run stores the trials
 * in flight as `cancelled`, not `failed`; the run stays `interrupted` in `umpire runs`; `--resume`
 * re-runs the cancelled and never-started trials (the cancelled attempt stays stored) in the run's
 * own folder whatever --out says now; and the resumed run compares to a gold run with no
 * regression (exit 0). (`runs` and `compare`, which only read, run in-process.)
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../../src/store/open.js";
import { runCli, startCli, waitFor } from "../../support/cli-child.js";
import { runInProcess } from "../../support/cli-in-process.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "umpire-cancel-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TASKS = ["answer-only-bb042", "api-note-bb042", "infeasible-bb999"];

describe("a cancelled trial is not a failure", () => {
  it("SIGINT -> cancelled, interrupted; --resume -> finished; compare with gold: no regression", {
    timeout: 600_000,
  }, async () => {
    const db = join(dir, "umpire.db");
    const gold = await runCli([
      "run",
      ...TASKS,
      "--mode",
      "structured",
      "--db",
      db,
      "--out",
      join(dir, "gold"),
      "--json",
    ]);
    expect(gold.code, gold.stderr).toBe(0);
    const goldId = JSON.parse(gold.stdout).runId as string;

    // Slow model, two trials at a time: two are in flight when Ctrl-C arrives, the third never starts.
    const firstOut = join(dir, "first");
    const cli = startCli([
      "run",
      ...TASKS,
      "--mode",
      "structured",
      "--model",
      "reference:slow",
      "--concurrency",
      "2",
      "--db",
      db,
      "--out",
      firstOut,
    ]);
    const runId = await waitFor(() => /run (\S+): 3 trials/.exec(cli.stderr())?.[1], "the run to start");
    await waitFor(() => {
      const raw = new Database(db, { readonly: true, fileMustExist: true });
      try {
        const row = raw.prepare("SELECT COUNT(*) AS n FROM turns WHERE trial_id LIKE ?").get(`${runId}-%`) as {
          n: number;
        };
        return row.n > 0 ? true : undefined;
      } finally {
        raw.close();
      }
    }, "a first turn to be stored");
    cli.child.kill("SIGINT");
    const interrupted = await cli.done;
    expect(interrupted.code, interrupted.stderr).toBe(130);

    let store = openStore(db, { readonly: true });
    expect(store.getRun(runId).status).toBe("interrupted");
    const before = store.trials(runId);
    const cancelled = before.filter((t) => t.verdict === "cancelled");
    expect(cancelled.length).toBeGreaterThanOrEqual(1);
    // Stopped in the loop (`cancelled`), or its browser torn down by the stop (`environment_error`): never the agent's failure.
    for (const t of cancelled)
      expect([t.status, ["cancelled", "environment_error"].includes(t.stopReason!)]).toEqual(["done", true]);
    expect(before.some((t) => t.verdict === "failed" || t.verdict === "error")).toBe(false);
    const rerun = store.unfinishedTrials(runId).map((t) => t.id);
    expect(rerun).toEqual(before.filter((t) => t.verdict !== "passed").map((t) => t.id));
    store.close();

    const runs = await runInProcess(["runs", "--db", db]);
    expect(runs.stdout.split("\n").find((l) => l.includes(runId))).toMatch(/interrupted/);

    // Resume with another --out: the trial folders still go under the run's own folder.
    const otherOut = join(dir, "elsewhere");
    const resumed = await runCli(["run", "--resume", runId, "--db", db, "--out", otherOut]);
    expect(resumed.code, resumed.stderr).toBe(0);
    store = openStore(db, { readonly: true });
    expect(store.getRun(runId).status).toBe("finished");
    const after = store.trials(runId);
    expect(after.map((t) => t.verdict)).toEqual(["passed", "passed", "passed"]);
    let keptTurns = 0;
    for (const c of cancelled) {
      const again = after.find((t) => t.id === c.id)!;
      expect(again.attempt).toBe(c.attempt + 1);
      // The cancelled attempt's turns stay stored as evidence under their own attempt number.
      expect(store.turns(c.id, { attempt: c.attempt })).toHaveLength(c.turns);
      keptTurns += c.turns;
    }
    expect(keptTurns).toBeGreaterThan(0);
    // Trial folders are stored relative to the run's folder, which stays the first --out's.
    expect(store.getRun(runId).folder).toBe(join(firstOut, runId));
    for (const t of after) expect(existsSync(join(firstOut, runId, t.folder!, "events.jsonl")), t.folder!).toBe(true);
    expect(existsSync(join(otherOut, runId))).toBe(false);
    expect(readdirSync(join(firstOut, runId)).length).toBeGreaterThanOrEqual(3);
    store.close();

    const cmp = await runInProcess(["compare", goldId, runId, "--fail-on-regression", "--db", db]);
    expect(cmp.code, cmp.stdout + cmp.stderr).toBe(0);
    expect(cmp.stdout).toMatch(/no regression/);
  });
});
