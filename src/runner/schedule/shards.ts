/**
 * Shards: a deterministic part of the trial list for each of n machines.
 *
 * Every shard plans the whole run (same tasks, configs, repeats: same trial ids) and computes the
 * same assignment, then runs only its part. The assignment balances expected durations: the mean
 * wall time stored for the same task and agent config in earlier runs, longest first onto the
 * least loaded shard. Shards agree only if they see the same history, so durations are rounded
 * to whole milliseconds and every tie is broken by trial order, never by chance.
 */
import { createHash } from "node:crypto";
import { UmpireError } from "../../errors.js";

/** Shard `index` of `total`, 1-based: 1/3, 2/3, 3/3. */
export interface Shard {
  index: number;
  total: number;
}

/** Where a shard came from, for messages: the flag or the environment variables read. */
export interface ShardSource extends Shard {
  source: string;
}

const MAX_SHARDS = 1000;

/** Parses `i/n` (1-based). `origin` names the flag or variable in errors. */
export function parseShard(text: string, origin = "--shard"): Shard {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  if (!match)
    throw new UmpireError(
      "usage",
      `${origin} ${JSON.stringify(text)}: expected i/n, e.g. 2/4 (shard 2 of 4, counting from 1)`,
      "write the shard as index/total",
    );
  return checkShard(Number(match[1]), Number(match[2]), origin);
}

function checkShard(index: number, total: number, origin: string): Shard {
  if (!Number.isInteger(total) || total < 1 || total > MAX_SHARDS) {
    throw new UmpireError(
      "usage",
      `${origin}: ${total} shards is not a whole number from 1 to ${MAX_SHARDS}`,
      "set the total to the number of parallel jobs",
    );
  }
  if (!Number.isInteger(index) || index < 1 || index > total) {
    throw new UmpireError(
      "usage",
      `${origin}: shard ${index} of ${total} does not exist; shards count from 1 to ${total}`,
      index === 0 ? `shards count from 1: use 1/${total} for the first` : `use 1/${total} to ${total}/${total}`,
    );
  }
  return { index, total };
}

/** An index variable and its total, as a CI system or Kubernetes sets them. */
interface EnvConvention {
  index: string;
  total: string;
  /** 0 when the system counts from 0. */
  base: 0 | 1;
  system: string;
}

/**
 * In order of precedence. GitHub Actions sets nothing by itself: map the matrix onto
 * UMPIRE_SHARD_INDEX/UMPIRE_SHARD_TOTAL (`strategy.job-index`, `strategy.job-total`) or UMPIRE_SHARD.
 */
const CONVENTIONS: readonly EnvConvention[] = [
  { index: "UMPIRE_SHARD_INDEX", total: "UMPIRE_SHARD_TOTAL", base: 0, system: "umpire (GitHub strategy.job-index)" },
  { index: "JOB_COMPLETION_INDEX", total: "UMPIRE_SHARD_TOTAL", base: 0, system: "Kubernetes indexed Job" },
  { index: "CI_NODE_INDEX", total: "CI_NODE_TOTAL", base: 1, system: "GitLab parallel" },
  { index: "BUILDKITE_PARALLEL_JOB", total: "BUILDKITE_PARALLEL_JOB_COUNT", base: 0, system: "Buildkite parallelism" },
  { index: "CIRCLE_NODE_INDEX", total: "CIRCLE_NODE_TOTAL", base: 0, system: "CircleCI parallelism" },
];

/**
 * The shard the environment asks for, or undefined when it asks for none. `UMPIRE_SHARD=i/n`
 * wins; then the index/total pairs above. A total of 1 (CircleCI sets 0/1 on every job) means
 * "not sharded". A set index whose total is missing or malformed is an error, not a silent full run.
 */
export function shardFromEnv(env: NodeJS.ProcessEnv): ShardSource | undefined {
  const explicit = env.UMPIRE_SHARD?.trim();
  if (explicit) {
    const shard = parseShard(explicit, "UMPIRE_SHARD");
    return shard.total > 1 ? { ...shard, source: "UMPIRE_SHARD" } : undefined;
  }
  for (const c of CONVENTIONS) {
    const rawIndex = env[c.index]?.trim();
    if (!rawIndex) continue;
    const rawTotal = env[c.total]?.trim();
    const origin = `${c.index}=${rawIndex} (${c.system})`;
    if (!rawTotal) {
      throw new UmpireError(
        "usage",
        `${origin} is set but ${c.total} is not`,
        `set ${c.total} to the number of parallel jobs, or pass --shard i/n`,
      );
    }
    const index = Number(rawIndex);
    const total = Number(rawTotal);
    if (!/^\d+$/.test(rawIndex) || !/^\d+$/.test(rawTotal)) {
      throw new UmpireError(
        "usage",
        `${origin} with ${c.total}=${rawTotal}: expected whole numbers`,
        "pass --shard i/n to override the environment",
      );
    }
    const shard = checkShard(index + (1 - c.base), total, `${origin} with ${c.total}=${rawTotal}`);
    return shard.total > 1 ? { ...shard, source: `${c.index}/${c.total}` } : undefined;
  }
  return undefined;
}

/** What assignShards needs of a trial (PlannedTrial fits). */
export interface ShardableTrial {
  seq: number;
  task: { id: string };
  agent: { label: string };
}

/** Mean duration of earlier trials of one task and agent config (store.durationHistory() fits). */
export interface DurationSample {
  taskId: string;
  agentLabel: string;
  meanWallMs: number;
}

export interface ShardAssignment<T> {
  /** `shards[i - 1]` holds shard i's trials, in trial order. */
  shards: T[][];
  /** Expected load per shard: milliseconds, or trial counts when balanced by count. */
  loads: number[];
  /** `duration` when some trial had history, `count` when none did. */
  balance: "duration" | "count";
  /** Short hash of the assignment: equal on every shard that computed the same one. */
  fingerprint: string;
}

const key = (taskId: string, agentLabel: string) => `${taskId}\u0000${agentLabel}`;

/**
 * Splits `trials` into `n` shards. Weights: the rounded mean duration for the trial's task and
 * agent config; trials without history get the mean weight of those with it; with no history at
 * all every weight is 1, which balances counts. Longest first (equal weights in trial order), each
 * onto the least loaded shard (the lowest index on a tie): the LPT rule, within 4/3 of optimal
 * and close to it when there are many more trials than shards.
 */
export function assignShards<T extends ShardableTrial>(
  trials: readonly T[],
  n: number,
  history: readonly DurationSample[] = [],
): ShardAssignment<T> {
  if (!Number.isInteger(n) || n < 1)
    throw new UmpireError("usage", `cannot split trials into ${n} shards`, "use a whole number of shards, 1 or more");
  const known = new Map<string, number>();
  for (const h of history) {
    if (Number.isFinite(h.meanWallMs) && h.meanWallMs > 0)
      known.set(key(h.taskId, h.agentLabel), Math.max(1, Math.round(h.meanWallMs)));
  }
  const weights = trials.map((t) => known.get(key(t.task.id, t.agent.label)));
  const withHistory = weights.filter((w): w is number => w !== undefined);
  const balance = withHistory.length > 0 ? "duration" : "count";
  const fallback = withHistory.length > 0 ? Math.round(withHistory.reduce((a, b) => a + b, 0) / withHistory.length) : 1;
  const order = trials
    .map((trial, i) => ({ trial, weight: weights[i] ?? fallback }))
    .sort((a, b) => b.weight - a.weight || a.trial.seq - b.trial.seq);

  const loads = new Array<number>(n).fill(0);
  const shards: T[][] = Array.from({ length: n }, () => []);
  for (const { trial, weight } of order) {
    let target = 0;
    for (let s = 1; s < n; s++) if (loads[s] < loads[target]) target = s;
    loads[target] += weight;
    shards[target].push(trial);
  }
  for (const shard of shards) shard.sort((a, b) => a.seq - b.seq);
  const fingerprint = createHash("sha256")
    .update(shards.map((s) => s.map((t) => t.seq).join(",")).join("|"))
    .digest("hex")
    .slice(0, 12);
  return { shards, loads, balance, fingerprint };
}

/** `i/n`, as stored on each trial a shard runs. */
export function shardLabel(shard: Shard): string {
  return `${shard.index}/${shard.total}`;
}
