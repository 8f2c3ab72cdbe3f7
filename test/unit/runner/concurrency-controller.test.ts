import { describe, expect, it } from "vitest";
import { pinnedBy } from "../../../src/cli/run/finish.js";
import { ConcurrencyController } from "../../../src/runner/schedule/concurrency-controller.js";
import { ConcurrencyGate, describeConcurrency } from "../../../src/runner/schedule/concurrency-gate.js";

/** `n` answered turns at ~2 s each (the latency profile's figure) with trials waiting. */
function answer(c: ConcurrencyController, n: number, at = { now: 0 }, modelMs = 2000, waiting = 5) {
  for (let i = 0; i < n; i++) c.observe({ kind: "turn", modelMs, waiting, now: (at.now += 100) });
}

describe("concurrency controller: decisions", () => {
  it("rises by one per full round of answered turns while trials wait and nothing pushes back", () => {
    const c = new ConcurrencyController({ start: 4, max: 32 });
    answer(c, 4);
    expect(c.limit()).toBe(5);
    answer(c, 5);
    expect(c.limit()).toBe(6);
    answer(c, 6 + 7 + 8);
    expect(c.limit()).toBe(9);
    expect(c.report()).toMatchObject({ mode: "adaptive", start: 4, peak: 9, rises: 5, cuts: 0 });
    expect(c.report().stoppedRising).toMatch(/nothing pushed back/);
  });

  it("does not rise when no trial is waiting for a slot, and never above its maximum", () => {
    const idle = new ConcurrencyController({ start: 2, max: 32 });
    answer(idle, 50, { now: 0 }, 2000, 0);
    expect(idle.limit()).toBe(2);
    // No rise: the summary must not say it rose (it once read "it rose while trials were waiting (peak 2)").
    expect(idle.report()).toMatchObject({ rises: 0, peak: 2 });
    expect(idle.report().stoppedRising).toBe(
      "nothing pushed back, and it never needed to rise: no trial waited through a full round of 2 answered turns",
    );
    const capped = new ConcurrencyController({ start: 2, max: 3 });
    answer(capped, 100);
    expect(capped.limit()).toBe(3);
    expect(capped.report().stoppedRising).toBe("reached the maximum of 3");
  });

  it("halves on a 429, honours retry-after before rising again, and cuts once per burst", () => {
    const at = { now: 0 };
    const c = new ConcurrencyController({ start: 8, max: 32 });
    c.observe({ kind: "throttled", status: 429, retryAfterMs: 3000, now: (at.now = 1000) });
    expect(c.limit()).toBe(4);
    // The other trials in flight meet the same limit: no second cut within the retry-after.
    c.observe({ kind: "throttled", status: 429, retryAfterMs: 3000, now: 1200 });
    expect(c.limit()).toBe(4);
    answer(c, 10, at); // at.now reaches 2000 < 4000: held
    expect(c.limit()).toBe(4);
    expect(c.decisions.map((d) => d.action)).toEqual(["cut", "hold"]);
    at.now = 4200; // the second 429 (at 1200) asked for 3 s too
    answer(c, 4, at);
    expect(c.limit()).toBe(5);
    const r = c.report();
    expect(r).toMatchObject({ cuts: 1, throttled: 2, peak: 8 });
    expect(r.stoppedRising).toMatch(/429 \(rate limited, retry-after 3\.0 s\) at 8 in flight/);
  });

  it("halves on a 503 too, down to the minimum of 1", () => {
    const c = new ConcurrencyController({ start: 2, max: 32 });
    c.observe({ kind: "throttled", status: 503, retryAfterMs: null, now: 0 });
    c.observe({ kind: "throttled", status: 503, retryAfterMs: null, now: 60_000 });
    expect(c.limit()).toBe(1);
    expect(c.decisions[0]).toMatchObject({ action: "cut", pressure: "overloaded", from: 2, to: 1 });
  });

  it("cuts by a quarter when the CPU is saturated, and holds (no rise) when it nears the limit", () => {
    const at = { now: 0 };
    const c = new ConcurrencyController({ start: 8, max: 32 });
    c.observe({ kind: "machine", cpuBusy: 0.97, memoryAvailable: 0.6, cores: 2, now: (at.now = 10) });
    expect(c.limit()).toBe(6);
    expect(c.report().stoppedRising).toMatch(/CPU 97% busy on 2 cores at 8 in flight/);
    c.observe({ kind: "machine", cpuBusy: 0.85, memoryAvailable: 0.6, cores: 2, now: (at.now = 20_000) });
    answer(c, 30, at);
    expect(c.limit()).toBe(6);
    expect(c.decisions.at(-1)).toMatchObject({ action: "hold", pressure: "cpu" });
    c.observe({ kind: "machine", cpuBusy: 0.3, memoryAvailable: 0.6, cores: 2, now: (at.now += 10) });
    answer(c, 6, at);
    expect(c.limit()).toBe(7);
  });

  it("judges the CPU by its trend: one busy sample neither cuts nor holds, a sustained one does", () => {
    const at = { now: 0 };
    const c = new ConcurrencyController({ start: 4, max: 32 });
    // A trial's set-up burst between quiet samples: the smoothed CPU stays below the hold (0.9).
    c.observe({ kind: "machine", cpuBusy: 0.6, memoryAvailable: 0.6, cores: 2, now: (at.now = 10) });
    c.observe({ kind: "machine", cpuBusy: 1, memoryAvailable: 0.6, cores: 2, now: (at.now = 2_010) });
    expect(c.limit()).toBe(4);
    answer(c, 4, at);
    expect(c.limit()).toBe(5);
    // The same load sample after sample: the trend reaches the cut (0.97) and the limit comes down.
    for (let i = 0; i < 8; i++)
      c.observe({ kind: "machine", cpuBusy: 1, memoryAvailable: 0.6, cores: 2, now: (at.now += 2_000) });
    expect(c.limit()).toBeLessThan(5);
    expect(c.decisions.some((d) => d.action === "cut" && d.pressure === "cpu")).toBe(true);
  });

  it("once the machine is sampled, rises only after the machine was read at the current level", () => {
    const at = { now: 0 };
    const c = new ConcurrencyController({ start: 1, max: 32 });
    const sample = (cpuBusy = 0.4) =>
      c.observe({ kind: "machine", cpuBusy, memoryAvailable: 0.6, cores: 2, now: (at.now += 2_000) });
    sample();
    // An instant model answers many rounds before the next sample: no climb on turns alone.
    answer(c, 20, at);
    expect(c.limit()).toBe(1);
    sample();
    answer(c, 1, at);
    expect(c.limit()).toBe(2);
    answer(c, 20, at);
    expect(c.limit()).toBe(2);
    sample();
    sample();
    answer(c, 2, at);
    expect(c.limit()).toBe(3);
  });

  it("cuts on two saturated samples in a row, before the trend has caught up", () => {
    const at = { now: 0 };
    const c = new ConcurrencyController({ start: 6, max: 32 });
    const sample = (cpuBusy: number) =>
      c.observe({ kind: "machine", cpuBusy, memoryAvailable: 0.6, cores: 2, now: (at.now += 2_000) });
    sample(0.5);
    sample(1);
    expect(c.limit()).toBe(6);
    sample(1); // the trend is ~0.82, below the cut (0.97): the raw samples decide
    expect(c.limit()).toBe(4);
    expect(c.decisions.at(-1)).toMatchObject({ action: "cut", pressure: "cpu" });
    expect(c.decisions.at(-1)?.reason).toMatch(/CPU 100% busy on 2 cores in 2 samples in a row at 6 in flight/);
  });

  it("counts the share of machine samples with the CPU saturated, pinned or not", () => {
    const c = new ConcurrencyController({ start: 16, max: 16, pinned: true });
    for (let i = 0; i < 3; i++)
      c.observe({ kind: "machine", cpuBusy: 0.4, memoryAvailable: 0.6, cores: 2, now: i * 2_000 });
    expect(c.report().cpuSaturatedShare).toBe(0);
    for (let i = 0; i < 9; i++)
      c.observe({ kind: "machine", cpuBusy: 1, memoryAvailable: 0.6, cores: 2, now: 6_000 + i * 2_000 });
    const r = c.report();
    expect(r.machineSamples).toBe(12);
    // The smoothed CPU needs a few saturated samples to cross 0.97 from 0.4: fewer than 9 of 12 count.
    expect(r.cpuSaturatedShare).toBeGreaterThan(0.25);
    expect(r.cpuSaturatedShare).toBeLessThan(0.75);
    expect(c.limit()).toBe(16);
  });

  it("cuts when memory runs low", () => {
    const c = new ConcurrencyController({ start: 8, max: 32 });
    c.observe({ kind: "machine", cpuBusy: 0.2, memoryAvailable: 0.05, cores: 2, now: 0 });
    expect(c.limit()).toBe(6);
    expect(c.decisions[0].pressure).toBe("memory");
  });

  it("stops rising when the endpoint's latency grows past its baseline, and cuts when it grows far past", () => {
    const at = { now: 0 };
    const c = new ConcurrencyController({ start: 4, max: 32 });
    answer(c, 6, at, 2000); // baseline ~2 s, one rise
    expect(c.limit()).toBe(5);
    answer(c, 3, at, 6000); // smoothed latency climbs past 1.5x within two turns
    expect(c.decisions.some((d) => d.action === "hold" && d.pressure === "latency")).toBe(true);
    expect(c.limit()).toBe(5);
    answer(c, 20, at, 9000); // past 2.5x: cut
    expect(c.decisions.some((d) => d.action === "cut" && d.pressure === "latency")).toBe(true);
    expect(c.limit()).toBeLessThan(5);
  });

  it("a pinned controller never moves, whatever it sees, and says so", () => {
    const c = new ConcurrencyController({ start: 3, max: 3, pinned: true });
    answer(c, 100);
    c.observe({ kind: "throttled", status: 429, retryAfterMs: 1000, now: 1 });
    c.observe({ kind: "machine", cpuBusy: 1, memoryAvailable: 0.01, cores: 2, now: 2 });
    expect(c.limit()).toBe(3);
    expect(c.report()).toMatchObject({
      mode: "pinned",
      peak: 3,
      final: 3,
      throttled: 1,
      cuts: 0,
      rises: 0,
      stoppedRising: "pinned at 3 (--concurrency)",
    });
  });
});

describe("concurrency gate: per-endpoint slots", () => {
  it("keeps separate limits per endpoint, a run-wide cap, and starts waiting trials when a limit rises", async () => {
    const clock = { now: 0 };
    const gate = new ConcurrencyGate({
      globalMax: 5,
      now: () => clock.now,
      settingsFor: (key) => ({ start: key === "http://a/v1" ? 1 : 3, max: 4 }),
    });
    const running = new Map<string, number>();
    const peak = new Map<string, number>();
    const releases: (() => void)[] = [];
    const trial = (key: string) =>
      gate.run(key, async () => {
        running.set(key, (running.get(key) ?? 0) + 1);
        peak.set(key, Math.max(peak.get(key) ?? 0, running.get(key)!));
        await new Promise<void>((resolve) => releases.push(resolve));
        running.set(key, running.get(key)! - 1);
      });
    const all = [
      ...Array.from({ length: 4 }, () => trial("http://a/v1")),
      ...Array.from({ length: 4 }, () => trial("http://b/v1")),
    ];
    await Promise.resolve();
    expect([running.get("http://a/v1"), running.get("http://b/v1")]).toEqual([1, 3]);
    // One answered turn on a (limit 1) with trials waiting: a rises to 2 and a second trial starts at once.
    gate.observeTurn("http://a/v1", { timing: { modelMs: 2000, retries: 0 } });
    expect(running.get("http://a/v1")).toBe(2);
    // The run-wide cap (5) holds even when b would rise.
    for (let i = 0; i < 3; i++) gate.observeTurn("http://b/v1", { timing: { modelMs: 2000, retries: 0 } });
    expect((running.get("http://a/v1") ?? 0) + (running.get("http://b/v1") ?? 0)).toBe(5);
    // A 429 on b halves b only.
    gate.observeTurn("http://b/v1", {
      timing: { modelMs: 5000, retries: 1 },
      failures: [{ status: 429, kind: "rate_limited", waitMs: 1000 }],
    });
    expect(gate.controller("http://b/v1").limit()).toBe(2);
    expect(gate.controller("http://a/v1").limit()).toBe(2);
    while (releases.length) {
      releases.shift()!();
      await new Promise((r) => setTimeout(r, 0));
    }
    await Promise.all(all);
    expect(peak.get("http://a/v1")).toBeLessThanOrEqual(4);
    const lines = describeConcurrency(gate.report());
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(
      /^concurrency adaptive on http:\/\/b\/v1: started at 3, .*1 throttled request\(s\)\); stopped rising: the endpoint answered 429/,
    );
    gate.close();
  });

  it("warns when the machine was saturated for a good part of a pinned run, and not otherwise", async () => {
    const samples = [0.3, 0.3, 0.3, 0.3];
    const gate = new ConcurrencyGate({ globalMax: 16, settingsFor: () => ({ start: 16, max: 16, pinned: true }) });
    await gate.run("embedded", async () => {
      for (const cpuBusy of samples) gate.observeMachine({ cpuBusy, memoryAvailable: 0.6, cores: 2 });
    });
    expect(describeConcurrency(gate.report())).toEqual(["concurrency 16 on embedded (pinned by --concurrency)"]);
    // The line says where the pinned value came from (#39): run's summary passes its source.
    const fromConfig = gate.report().map((r) => ({ ...r, pinnedBy: pinnedBy("config") }));
    expect(describeConcurrency(fromConfig)).toEqual([
      "concurrency 16 on embedded (pinned by the config file's defaults.concurrency)",
    ]);
    expect(pinnedBy("flag")).toBe("--concurrency");
    await gate.run("embedded", async () => {
      for (let i = 0; i < 12; i++) gate.observeMachine({ cpuBusy: 1, memoryAvailable: 0.6, cores: 2 });
    });
    const lines = describeConcurrency(gate.report());
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(
      /^warning: the machine's CPU was saturated for \d+% of the run; .*not the agent's\. Run again with fewer trials at once \(a lower --concurrency, or none: adaptive\)\.$/,
    );
    gate.close();
  });
});
