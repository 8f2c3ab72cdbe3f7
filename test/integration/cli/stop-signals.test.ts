/**
 * Issue 24: SIGTERM (docker stop, a CI cancel) and SIGHUP stop a run as Ctrl-C does, through the
 * real CLI: the trials in flight end `cancelled` (never `error` and retried), the run is stored
 * `interrupted` and resumable, and the exit code names the signal (143, 129).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../../src/store/open.js";
import { startCli, waitFor } from "../../support/cli-child.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "umpire-stop-signals-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TASKS = ["answer-only-bb042", "api-note-bb042", "infeasible-bb999"];

async function stopMidRun(signal: NodeJS.Signals, name: string) {
  const db = join(dir, `${name}.db`);
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
    join(dir, name),
  ]);
  const runId = await waitFor(() => /run (\S+): 3 trials/.exec(cli.stderr())?.[1], "the run to start", 120_000);
  await waitFor(
    () => {
      const raw = new Database(db, { readonly: true, fileMustExist: true });
      try {
        const row = raw.prepare("SELECT COUNT(*) AS n FROM turns WHERE trial_id LIKE ?").get(`${runId}-%`) as {
          n: number;
        };
        return row.n > 0 ? true : undefined;
      } finally {
        raw.close();
      }
    },
    "a first turn to be stored",
    240_000,
  );
  cli.child.kill(signal);
  return { db, runId, result: await cli.done };
}

describe("SIGTERM and SIGHUP stop a run as Ctrl-C does", () => {
  for (const [signal, code] of [
    ["SIGTERM", 143],
    ["SIGHUP", 129],
  ] as const) {
    it(`${signal}: cancelled trials, an interrupted resumable run, exit ${code}`, { timeout: 420_000 }, async () => {
      const { db, runId, result } = await stopMidRun(signal, signal.toLowerCase());
      expect(result.code, result.stderr).toBe(code);
      expect(result.stderr).toContain(`umpire: ${signal} received; finishing the current action`);
      const store = openStore(db, { readonly: true });
      try {
        expect(store.getRun(runId).status).toBe("interrupted");
        const trials = store.trials(runId);
        expect(trials.filter((t) => t.verdict === "cancelled").length).toBeGreaterThanOrEqual(1);
        // Nothing is blamed on anyone, and nothing was retried as an infrastructure error.
        expect(trials.some((t) => t.verdict === "failed" || t.verdict === "error")).toBe(false);
        expect(trials.every((t) => t.attempt <= 1)).toBe(true);
        expect(store.unfinishedTrials(runId).length).toBeGreaterThanOrEqual(2);
      } finally {
        store.close();
      }
    });
  }
});
