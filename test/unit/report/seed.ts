/**
 * Inserts runs into a real store the way the run loop does (createRun, addTrials, startTrial,
 * recordTurn, finishTrial), from a compact description of outcomes.
 */
import { Writable } from "node:stream";
import type { CommandIO } from "../../../src/cli/io.js";
import { costOfUsage, DEFAULT_PRICES } from "../../../src/pricing.js";
import type { Store } from "../../../src/store/store.js";
import type { OutputMode, StopReason, Usage, Verdict } from "../../../src/vocabulary.js";

export interface SeedTrial {
  task: string;
  mode?: OutputMode;
  /** A named agent's label; unset: an unnamed agent's `model/mode`. */
  agent?: string;
  verdict: Verdict;
  stopReason?: StopReason;
  claimed?: boolean;
  wallMs?: number;
  turns?: number;
  actions?: number;
  usage?: Usage | null;
  /** Overrides the cost computed from the built-in prices. */
  costUsd?: number | null;
  checks?: { pass: boolean; reason: string; name?: string }[];
  /** The task's content hash as planned; unset: none stored (like a schema-1 trial). */
  taskHash?: string;
  /** Added to the loop metrics stored with the trial (e.g. `invalid`, the refused calls by kind). */
  metrics?: Record<string, unknown>;
}

export interface SeedRun {
  model: string;
  tags?: string[];
  startedAt: string;
  /** Trials in order; repeats are numbered per task and mode in the order given. */
  trials: SeedTrial[];
}

export function seedRun(store: Store, spec: SeedRun): string {
  const run = store.createRun({
    umpireVersion: "0.1.0",
    startedAt: spec.startedAt,
    tags: spec.tags ?? [],
    options: { model: spec.model },
  });
  const repeats = new Map<string, number>();
  const planned = spec.trials.map((t, seq) => {
    const mode = t.mode ?? "structured";
    const key = `${t.task}/${mode}`;
    const repeat = repeats.get(key) ?? 0;
    repeats.set(key, repeat + 1);
    return {
      seq,
      taskId: t.task,
      taskFile: `tasks/${t.task}.yaml`,
      agentLabel: t.agent ?? `${spec.model}/${mode}`,
      model: spec.model,
      mode,
      repeat,
      taskHash: t.taskHash ?? null,
    };
  });
  const trials = store.addTrials(run.id, planned);
  trials.forEach((trial, i) => {
    const t = spec.trials[i];
    store.startTrial(trial.id, { folder: `trials/${trial.seq}` });
    const usage =
      t.usage === undefined
        ? { inputTokens: 10_000, outputTokens: 500, reasoningTokens: 200, cachedTokens: 0 }
        : t.usage;
    const price = DEFAULT_PRICES[spec.model] ?? DEFAULT_PRICES[spec.model.split(":")[0]] ?? null;
    const costUsd = t.costUsd !== undefined ? t.costUsd : costOfUsage(usage, price);
    store.recordTurn({ trialId: trial.id, idx: 0, outcome: "actions", modelMs: 2000, usage, costUsd });
    const verdict = t.verdict;
    store.finishTrial(
      trial.id,
      {
        stopReason:
          t.stopReason ??
          (verdict === "error" ? "environment_error" : verdict === "cancelled" ? "cancelled" : "answered"),
        stopDetail:
          verdict === "passed"
            ? "model finished, note verified"
            : verdict === "failed"
              ? "model finished, note wrong"
              : "browser crashed",
        verdict,
        claimed: t.claimed ?? verdict !== "error",
        verified: verdict === "passed",
        turns: t.turns ?? 4,
        actions: t.actions ?? 5,
        usage,
        costUsd,
        timing: { wallMs: t.wallMs ?? 10_000, modelMs: 8000, executorMs: 1000, captureMs: 500, checkMs: 100 },
        error: verdict === "error" ? "browser crashed" : null,
        metrics: { stuckSteps: 0, reflections: 0, recoveries: 0, ...t.metrics },
      },
      (
        t.checks ?? [
          {
            pass: verdict === "passed",
            reason: verdict === "passed" ? "note matches BB-042" : "note names BB-024, expected BB-042",
          },
        ]
      ).map((c, idx) => ({
        kind: "file",
        name: c.name ?? `check ${idx}`,
        required: true,
        pass: c.pass,
        confidence: "verified" as const,
        reason: c.reason,
        evidence: null,
        ms: 5,
      })),
    );
  });
  return run.id;
}

/** A CommandIO whose output is collected; a TTY of the given width when `columns` is set. */
export function fakeIO(cwd: string, opts: { columns?: number; env?: NodeJS.ProcessEnv } = {}) {
  let out = "";
  let err = "";
  const stdout = new Writable({
    write(chunk, _encoding, done) {
      out += String(chunk);
      done();
    },
  }) as Writable & { isTTY?: boolean; columns?: number };
  if (opts.columns) {
    stdout.isTTY = true;
    stdout.columns = opts.columns;
  }
  const stderr = new Writable({
    write(chunk, _encoding, done) {
      err += String(chunk);
      done();
    },
  });
  const io: CommandIO = { stdout, stderr, env: opts.env ?? {}, cwd, signal: new AbortController().signal };
  return { io, out: () => out, err: () => err };
}
