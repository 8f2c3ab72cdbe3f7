/**
 * The lease book of a pooled target (src/targets/instance-pool.ts), how `instances: auto` sizes it
 * (pool-size.ts) and the run summary's note on it (pool-report.ts).
 */
import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { InstancePool } from "../../../src/targets/instance-pool.js";
import { autoInstances } from "../../../src/targets/pool-size.js";
import { describePool } from "../../../src/targets/pool-report.js";

const MB = 1024 * 1024;

describe("instance pool", () => {
  it("lends each instance of a shared-state target to one trial at a time; the next waits for a release", async () => {
    const pool = new InstancePool(2, true);
    const a = await pool.lease();
    const b = await pool.lease();
    a.playing();
    const bStopped = b.playing();
    expect(new Set([a.instance, b.instance])).toEqual(new Set([0, 1]));
    let third: number | undefined;
    const waiting = pool.lease().then((l) => (third = l.instance));
    await Promise.resolve();
    expect(third).toBeUndefined();
    bStopped();
    b.release();
    await waiting;
    expect(third).toBe(b.instance);
    expect(pool.report()).toMatchObject({ instances: 2, trials: 3, peak: 2 });
  });

  it("spreads an isolated target's trials over its instances, fewest first, and never makes one wait", async () => {
    const pool = new InstancePool(2, false);
    const leases = await Promise.all([pool.lease(), pool.lease(), pool.lease()]);
    expect(leases.map((l) => l.instance)).toEqual([0, 1, 0]);
    for (const l of leases) l.playing();
    expect(pool.report().peak).toBe(3);
  });

  it("peak counts trials playing, not leases held by trials still waiting for their run slot (issue 36)", async () => {
    const pool = new InstancePool(2, false);
    const leases = await Promise.all(Array.from({ length: 18 }, () => pool.lease()));
    const play = (l: (typeof leases)[number]) => {
      const stop = l.playing();
      stop();
      stop(); // a second stop counts once
      l.release();
    };
    // --concurrency 2: two at a time play, the other 16 hold their lease in line.
    const [first, second, ...rest] = leases;
    const stops = [first!.playing(), second!.playing()];
    for (const s of stops) s();
    rest.forEach(play);
    expect(pool.report()).toMatchObject({ trials: 18, peak: 2 });
  });

  it("a trial waiting for an instance when the run stops is refused, and holds nothing", async () => {
    const pool = new InstancePool(1, true);
    const held = await pool.lease();
    const stop = new AbortController();
    const waiting = pool.lease(stop.signal);
    stop.abort();
    await expect(waiting).rejects.toThrow(/stopped/);
    held.release();
    expect((await pool.lease()).instance).toBe(0);
  });

  it("however many trials wait on the run's signal, the pool puts one listener on it, and a stop still refuses them all", async () => {
    const pool = new InstancePool(1, true);
    const run = new AbortController();
    let held = await pool.lease(run.signal);
    const served = Array.from({ length: 12 }, () => pool.lease(run.signal));
    expect(getEventListeners(run.signal, "abort")).toHaveLength(1);
    for (const next of served) {
      held.release();
      held = await next;
    }
    const stopped = Array.from({ length: 3 }, () => pool.lease(run.signal));
    expect(getEventListeners(run.signal, "abort")).toHaveLength(1);
    run.abort();
    for (const waiting of stopped) await expect(waiting).rejects.toThrow(/stopped/);
    held.release();
    expect((await pool.lease()).instance).toBe(0);
  });
});

describe("instances: auto", () => {
  it("takes the run's concurrency when memory allows, fewer when half the free memory holds fewer copies", () => {
    expect(autoInstances(4, 100 * MB, 8000 * MB).size).toBe(4);
    expect(autoInstances(4, 1000 * MB, 4000 * MB).size).toBe(2);
    expect(autoInstances(4, 1000 * MB, 500 * MB).size).toBe(1);
    expect(autoInstances(3, undefined, 8000 * MB).sizedBy).toMatch(
      /auto: concurrency 3; half of 8000 MB free at 256 MB guessed per instance holds 15/,
    );
  });
});

describe("the run summary's target notes", () => {
  const base = {
    target: "notes",
    isolated: false,
    instances: 2,
    trials: 4,
    peak: 2,
    waitedMs: 1600,
    resets: 4,
    resetMs: 480,
  };
  it("says how many instances, the peak at once, the wait and the reset per trial", () => {
    expect(describePool(base)).toBe(
      "target notes: notes: 2 instances, peak 2 at once, waited 0.40 s per trial, reset 0.12 s per trial",
    );
    expect(describePool({ ...base, memoryBytes: 50 * MB })).toMatch(/, 50 MB per instance$/);
  });

  it("says when a shared-state target ran its trials one at a time", () => {
    expect(describePool({ ...base, instances: 1, peak: 1 })).toMatch(
      /1 instance, peak 1 at once, .*; pinned: isolated false \(one trial at a time; instances: N runs N at once\)$/,
    );
    expect(describePool({ ...base, instances: 1, peak: 3, isolated: true })).not.toMatch(/pinned/);
  });
});
