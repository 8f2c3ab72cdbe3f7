/**
 * Shards: parsing `i/n` and the CI/Kubernetes environment, and the assignment: disjoint shards that
 * together are the whole plan, identical on every machine, balanced by a history recorded in a
 * real store to within 10% of the ideal.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { resolveAgentConfigs, type AgentConfig } from "../../../src/agent/config.js";
import { isUmpireError } from "../../../src/errors.js";
import { planTrials, type PlannedTrial } from "../../../src/runner/schedule/trial-plan.js";
import { assignShards, parseShard, shardFromEnv } from "../../../src/runner/schedule/shards.js";
import { openStore } from "../../../src/store/open.js";
import { loadTasksOrThrow } from "../../../src/task/loader.js";
import type { Task } from "../../../src/task/schema.js";
import { ROOT } from "./support.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function usageError(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(isUmpireError(error) && error.code).toBe("usage");
    return (error as Error).message;
  }
  throw new Error("expected a usage error");
}

describe("parseShard", () => {
  it("reads i/n counting from 1", () => {
    expect(parseShard("2/3")).toEqual({ index: 2, total: 3 });
    expect(parseShard(" 1 / 1 ")).toEqual({ index: 1, total: 1 });
  });

  it("refuses what is not a shard, saying why", () => {
    expect(usageError(() => parseShard("0/3"))).toMatch(/shard 0 of 3 does not exist; shards count from 1 to 3/);
    expect(usageError(() => parseShard("4/3"))).toMatch(/shard 4 of 3 does not exist/);
    expect(usageError(() => parseShard("1/0"))).toMatch(/0 shards/);
    expect(usageError(() => parseShard("2"))).toMatch(/--shard "2": expected i\/n/);
    expect(usageError(() => parseShard("a/b", "UMPIRE_SHARD"))).toMatch(/^UMPIRE_SHARD "a\/b"/);
  });
});

describe("shardFromEnv", () => {
  it("reads each CI system's convention, converting 0-based indexes", () => {
    expect(shardFromEnv({ UMPIRE_SHARD: "2/4" })).toEqual({ index: 2, total: 4, source: "UMPIRE_SHARD" });
    expect(shardFromEnv({ UMPIRE_SHARD_INDEX: "0", UMPIRE_SHARD_TOTAL: "4" })).toMatchObject({ index: 1, total: 4 });
    expect(shardFromEnv({ JOB_COMPLETION_INDEX: "3", UMPIRE_SHARD_TOTAL: "4" })).toMatchObject({
      index: 4,
      total: 4,
      source: "JOB_COMPLETION_INDEX/UMPIRE_SHARD_TOTAL",
    });
    expect(shardFromEnv({ CI_NODE_INDEX: "2", CI_NODE_TOTAL: "5" })).toMatchObject({ index: 2, total: 5 }); // GitLab counts from 1
    expect(shardFromEnv({ BUILDKITE_PARALLEL_JOB: "2", BUILDKITE_PARALLEL_JOB_COUNT: "5" })).toMatchObject({
      index: 3,
      total: 5,
    });
    expect(shardFromEnv({ CIRCLE_NODE_INDEX: "1", CIRCLE_NODE_TOTAL: "2" })).toMatchObject({ index: 2, total: 2 });
  });

  it("prefers UMPIRE_SHARD, and treats a total of 1 (or nothing) as not sharded", () => {
    expect(shardFromEnv({ UMPIRE_SHARD: "1/2", CI_NODE_INDEX: "2", CI_NODE_TOTAL: "2" })).toMatchObject({
      index: 1,
      total: 2,
    });
    expect(shardFromEnv({ CIRCLE_NODE_INDEX: "0", CIRCLE_NODE_TOTAL: "1" })).toBeUndefined();
    expect(shardFromEnv({ PATH: "/usr/bin" })).toBeUndefined();
  });

  it("refuses an index without its total, or out of range, naming the variables", () => {
    expect(usageError(() => shardFromEnv({ JOB_COMPLETION_INDEX: "0" }))).toMatch(
      /JOB_COMPLETION_INDEX=0 \(Kubernetes indexed Job\) is set but UMPIRE_SHARD_TOTAL is not/,
    );
    expect(usageError(() => shardFromEnv({ CI_NODE_INDEX: "0", CI_NODE_TOTAL: "3" }))).toMatch(
      /CI_NODE_INDEX=0.*shard 0 of 3 does not exist/,
    );
    expect(usageError(() => shardFromEnv({ BUILDKITE_PARALLEL_JOB: "x", BUILDKITE_PARALLEL_JOB_COUNT: "3" }))).toMatch(
      /expected whole numbers/,
    );
  });
});

describe("assignShards on the real plan", () => {
  const tasks: Task[] = loadTasksOrThrow([], { cwd: ROOT });
  const agents = resolveAgentConfigs({ model: "reference", mode: "both", env: {} });
  const plan = planTrials("run-x", tasks, agents, 3);

  it("splits 1/3, 2/3, 3/3 into disjoint parts that together are the whole trial list", () => {
    const { shards } = assignShards(plan, 3);
    const ids = shards.map((s) => s.map((t) => t.id));
    const all = ids.flat();
    expect(new Set(all).size).toBe(all.length);
    expect([...all].sort()).toEqual(plan.map((t) => t.id).sort());
    for (const s of shards) expect(s.map((t) => t.seq)).toEqual([...s.map((t) => t.seq)].sort((a, b) => a - b));
    // Without history: a count balance.
    expect(Math.max(...shards.map((s) => s.length)) - Math.min(...shards.map((s) => s.length))).toBeLessThanOrEqual(1);
  });

  it("computes the same assignment wherever it runs (input order and history order do not matter)", () => {
    const history = tasks.map((t, i) => ({
      taskId: t.id,
      agentLabel: "reference/tools",
      meanWallMs: 1000 + ((i * 7919) % 5000),
    }));
    const a = assignShards(plan, 4, history);
    const b = assignShards([...plan].reverse(), 4, [...history].reverse());
    expect(b.shards.map((s) => s.map((t) => t.id))).toEqual(a.shards.map((s) => s.map((t) => t.id)));
    expect(b.fingerprint).toBe(a.fingerprint);
    expect(a.balance).toBe("duration");
    // Trials without history (the structured ones here) weigh the mean of the known ones.
    const known = history.reduce((s, h) => s + h.meanWallMs, 0) / history.length;
    expect(a.loads.reduce((x, y) => x + y, 0)).toBeCloseTo(
      history.reduce((s, h) => s + h.meanWallMs, 0) * 3 + Math.round(known) * tasks.length * 3,
      -1,
    );
  });
});

/** A seeded generator, so the synthetic history is the same on every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

describe("duration-aware shards of a recorded history", () => {
  it("come within 10% of the ideal balance on a skewed history", () => {
    const dir = mkdtempSync(join(tmpdir(), "umpire-shards-"));
    dirs.push(dir);
    const store = openStore(join(dir, "history.db"));
    const random = seeded(42);
    // 40 tasks x 2 modes: most take 5-20 s, a long tail up to ~3 minutes (log-normal-ish), tools mode a bit faster.
    const typical = new Map<string, number>();
    const fakeTasks = Array.from({ length: 40 }, (_, i) => ({ id: `task-${String(i).padStart(2, "0")}` }));
    for (const t of fakeTasks) {
      const base = Math.exp(Math.log(8_000) + 1.1 * gaussian(random));
      typical.set(t.id, Math.min(base, 180_000));
    }
    const labels = ["holo/structured", "holo/tools"];
    const earlier = "earlier-run";
    store.createRun({ id: earlier, umpireVersion: "test" });
    const trials = fakeTasks.flatMap((t) =>
      labels.flatMap((label) => [0, 1, 2].map((repeat) => ({ taskId: t.id, label, repeat }))),
    );
    store.addTrials(
      earlier,
      trials.map((t, seq) => ({
        seq,
        taskId: t.taskId,
        taskFile: `${t.taskId}.yaml`,
        agentLabel: t.label,
        model: "holo",
        mode: t.label.endsWith("tools") ? "tools" : "structured",
        repeat: t.repeat,
      })),
    );
    trials.forEach((t, seq) => {
      const id = `${earlier}-${String(seq).padStart(4, "0")}`;
      const wallMs = typical.get(t.taskId)! * (t.label.endsWith("tools") ? 0.85 : 1) * (0.8 + 0.4 * random());
      store.startTrial(id, { folder: id });
      store.finishTrial(id, result(wallMs), []);
    });
    const history = store.durationHistory();
    store.close();
    expect(history).toHaveLength(80);

    // This run: the same suite, 5 repeats.
    // Shards read only the agent's label: stand-in configs are enough here.
    const agents = labels.map((label) => ({
      label,
      model: "holo",
      mode: (label.endsWith("tools") ? "tools" : "structured") as "tools" | "structured",
    })) as unknown as AgentConfig[];
    const plan = planTrials("now", fakeTasks as unknown as Task[], agents, 5);
    const expected = new Map(history.map((h) => [`${h.taskId}|${h.agentLabel}`, h.meanWallMs]));
    const durationOf = (t: PlannedTrial) => expected.get(`${t.task.id}|${t.agent.label}`)!;
    const total = plan.reduce((s, t) => s + durationOf(t), 0);
    const longest = Math.max(...plan.map(durationOf));
    for (const n of [2, 3, 5, 8]) {
      const { shards, balance } = assignShards(plan, n, history);
      expect(balance).toBe("duration");
      const loads = shards.map((s) => s.reduce((sum, t) => sum + durationOf(t), 0));
      // The bound only means something when no single trial is longer than the ideal share.
      expect(longest).toBeLessThan(total / n);
      expect(Math.max(...loads)).toBeLessThanOrEqual(1.1 * (total / n));
    }
  });
});

function gaussian(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

function result(wallMs: number) {
  return {
    stopReason: "answered" as const,
    stopDetail: "model finished",
    verdict: "passed" as const,
    claimed: true,
    verified: true,
    turns: 5,
    actions: 5,
    usage: null,
    costUsd: null,
    timing: { wallMs, modelMs: 0, executorMs: 0, captureMs: 0, checkMs: 0 },
  };
}
