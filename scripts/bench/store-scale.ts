/**
 * The store at scale (issue 17): a store of 100,000 trials written through the store's own write
 * path (createRun, addTrials, startTrial, finishTrial: the calls `umpire run` makes), then the
 * queries behind `umpire history`, `umpire runs` and `umpire compare`, each timed as the median
 * of several calls. The same queries are timed again with the history/runs indexes (store schema
 * migration "indexes for history and the runs list") dropped, so the table shows what they buy.
 *
 * Shape: 1,000 runs x (10 tasks x 2 agents x 5 repeats). Costs, tokens and walls vary per trial
 * deterministically; a third of the tasks get more expensive over time, one agent gets worse.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { buildHistory } from "../../src/report/history.js";
import { openStore } from "../../src/store/open.js";
import type { Store } from "../../src/store/store.js";

export interface StoreScaleFigures {
  trials: number;
  runs: number;
  writeMs: number;
  fileMb: number;
  /** Query -> median ms with the indexes, and without them. */
  queries: Record<string, { ms: number; withoutIndexesMs: number; rows: number }>;
}

const TASKS = 10;
const AGENTS = ["reference/structured", "reference/tools"] as const;
const REPEATS = 5;

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function time(samples: number, fn: () => number): { ms: number; rows: number } {
  let rows = 0;
  const ms: number[] = [];
  for (let i = 0; i < samples; i++) {
    const t = performance.now();
    rows = fn();
    ms.push(performance.now() - t);
  }
  return { ms: Math.round(median(ms) * 100) / 100, rows };
}

function generate(store: Store, runs: number): void {
  const start = Date.parse("2026-01-01T00:00:00Z");
  for (let r = 0; r < runs; r++) {
    store.batch(() => {
      const run = store.createRun({
        id: `R${String(r).padStart(5, "0")}`,
        startedAt: new Date(start + r * 3_600_000).toISOString(),
        tags: [r % 2 ? "nightly" : "pr"],
        umpireVersion: "bench",
      });
      const planned = [];
      let seq = 0;
      for (let t = 0; t < TASKS; t++)
        for (const agent of AGENTS)
          for (let k = 0; k < REPEATS; k++)
            planned.push({
              seq: seq++,
              taskId: `task-${t}`,
              taskFile: `tasks/task-${t}.yaml`,
              agentLabel: agent,
              model: "reference",
              mode: agent.endsWith("tools") ? ("tools" as const) : ("structured" as const),
              repeat: k,
              taskHash: `sha256:task-${t}-v${r < runs / 2 ? 1 : 2}`,
            });
      for (const trial of store.addTrials(run.id, planned)) {
        store.startTrial(trial.id, { folder: `trials/${trial.seq}` });
        const t = Number(trial.taskId.slice(5));
        const worse = trial.agentLabel.endsWith("tools") && r > runs * 0.9;
        const passed = (trial.seq * 7 + r) % 10 < (worse ? 4 : 8);
        const tokens = 10_000 + ((trial.seq * 131 + r * 17) % 5_000);
        const pricePerToken = t % 3 === 0 ? 1e-6 * (1 + r / runs) : 1e-6;
        store.finishTrial(
          trial.id,
          {
            stopReason: "answered",
            stopDetail: "answered",
            verdict: passed ? "passed" : "failed",
            claimed: true,
            verified: passed,
            turns: 4,
            actions: 5,
            usage: { inputTokens: tokens, outputTokens: 300, reasoningTokens: 0, cachedTokens: 0 },
            costUsd: tokens * pricePerToken,
            timing: {
              wallMs: 3_000 + ((trial.seq * 37 + r) % 2_000),
              modelMs: 1_500,
              executorMs: 500,
              captureMs: 400,
              checkMs: 20,
            },
          },
          [],
        );
      }
      store.finishRun(run.id);
    });
  }
}

function measure(store: Store, samples: number): Record<string, { ms: number; rows: number }> {
  const newest = store.listRuns().slice(0, 2);
  const [b, a] = [newest[0]!.id, newest[1]!.id];
  return {
    "history (every task x agent, last 10 runs)": time(
      samples,
      () => buildHistory(store.history({ lastRuns: 10 })).series.length,
    ),
    "history --task (one task, last 50 runs)": time(
      samples,
      () => store.history({ tasks: ["task-3"], lastRuns: 50 }).length,
    ),
    "history --tag nightly --last 10": time(samples, () => store.history({ tags: ["nightly"], lastRuns: 10 }).length),
    "runs (list with counts)": time(samples, () => store.listRuns().length),
    "compare A B (both runs' trials)": time(
      samples,
      () => store.getRun(a).id.length + store.trials(a).length + store.trials(b).length,
    ),
    "compare --baseline (latest run with a tag)": time(samples, () =>
      store.latestRunWithTag("nightly", b) ? store.trials(b).length : 0,
    ),
  };
}

/** Writes the store, measures, drops the indexes, measures again. */
export async function benchStoreScale(options: { runs: number; samples: number }): Promise<StoreScaleFigures> {
  const dir = mkdtempSync(join(tmpdir(), "umpire-bench-store-"));
  const file = join(dir, "umpire.db");
  try {
    const store = openStore(file);
    const t0 = performance.now();
    generate(store, options.runs);
    const writeMs = Math.round(performance.now() - t0);
    measure(store, 1); // warm-up: page cache, statement preparation, JIT
    const withIndexes = measure(store, options.samples);
    store.close();
    const raw = new Database(file);
    raw.exec("DROP INDEX IF EXISTS trials_by_task_agent_run; DROP INDEX IF EXISTS trials_by_run_summary;");
    raw.close();
    const bare = openStore(file);
    measure(bare, 1);
    const without = measure(bare, options.samples);
    const trials = options.runs * TASKS * AGENTS.length * REPEATS;
    bare.close();
    const { size } = await import("node:fs").then((fs) => fs.statSync(file));
    const queries: StoreScaleFigures["queries"] = {};
    for (const [name, v] of Object.entries(withIndexes))
      queries[name] = { ms: v.ms, withoutIndexesMs: without[name]!.ms, rows: v.rows };
    return { trials, runs: options.runs, writeMs, fileMb: Math.round(size / 2 ** 20), queries };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
