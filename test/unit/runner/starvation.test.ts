import { describe, expect, it } from "vitest";
import {
  describeStarvation,
  machineLoadProbe,
  StarvationWatch,
  STARVED_CPU_BUSY,
  type LoadProbe,
} from "../../../src/runner/trial/starvation.js";

/** A load signal the test sets: what the machine looked like over the wait that just ended. */
function controlledLoad(): { probe: LoadProbe; set: (cpuBusy: number, lagMs?: number) => void } {
  let reading = { cpuBusy: 0, lagMs: 0 };
  return { probe: () => () => reading, set: (cpuBusy, lagMs = 0) => (reading = { cpuBusy, lagMs }) };
}

describe("starvation: a wait that ran out on a starved machine", () => {
  it("is starved when the cores were busy over the wait, and names the wait and the numbers", () => {
    const load = controlledLoad();
    const watch = new StarvationWatch(load.probe);
    load.set(0.97);
    const found = watch.begin("settle", 2_500)(true);
    expect(found).toMatchObject({ wait: "settle", limitMs: 2_500, cpuBusy: 0.97 });
    expect(describeStarvation(watch.starved)).toMatch(
      /^machine starved: the settle wait ran out \(limit 2\.5 s, took .*CPU 97% busy/,
    );
  });

  it("is not starved when the machine had room: the application was slow, the agent's trial stands", () => {
    const load = controlledLoad();
    const watch = new StarvationWatch(load.probe);
    load.set(STARVED_CPU_BUSY - 0.2);
    expect(watch.begin("navigation", 2_500)(true)).toBeNull();
    expect(watch.starved).toEqual([]);
    expect(watch.ranOut).toBe(1);
  });

  it("counts nothing for a wait that did not run out, however busy the machine", () => {
    const load = controlledLoad();
    const watch = new StarvationWatch(load.probe);
    load.set(1);
    expect(watch.begin("settle", 2_500)(false)).toBeNull();
    expect(watch.ranOut).toBe(0);
  });

  it("is starved when umpire's own timers fired late (event-loop lag), with the CPU reading low", () => {
    const load = controlledLoad();
    const watch = new StarvationWatch(load.probe);
    load.set(0.2, 900);
    expect(watch.begin("navigation", 2_500)(true)).toMatchObject({ wait: "navigation", lagMs: 900 });
  });

  it("takes a capture far slower than the trial's baseline as evidence for the next wait that runs out", () => {
    const load = controlledLoad();
    const watch = new StarvationWatch(load.probe);
    load.set(0.3);
    watch.capture(80);
    watch.capture(120);
    expect(watch.begin("settle", 2_500)(true)).toBeNull();
    watch.capture(3_600);
    const found = watch.begin("settle", 2_500)(true);
    expect(found?.slowCapture).toEqual([3_600, 80]);
    expect(describeStarvation(watch.starved)).toContain("a capture took 3.6 s against 80 ms before");
  });

  it("reads the real machine: a busy fraction of all cores, and the wait's own overshoot as umpire's lag", () => {
    const reading = machineLoadProbe()(400);
    expect(reading.lagMs).toBe(400);
    expect(reading.cpuBusy).toBeGreaterThanOrEqual(0);
    expect(reading.cpuBusy).toBeLessThanOrEqual(1);
  });
});
