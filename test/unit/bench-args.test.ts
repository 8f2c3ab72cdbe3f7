import { describe, expect, it } from "vitest";
import { BENCH_NAMES, parseBenchArgs } from "../../scripts/bench/args.js";

describe("parseBenchArgs", () => {
  it("runs every benchmark in full mode by default, writing results/bench.json", () => {
    expect(parseBenchArgs([])).toEqual({
      quick: false,
      only: [...BENCH_NAMES],
      onlyGiven: false,
      out: "results/bench.json",
      help: false,
      soak: false,
    });
  });

  it("reads --quick and --out", () => {
    const args = parseBenchArgs(["--quick", "--out", "elsewhere.json"]);
    expect(args.quick).toBe(true);
    expect(args.out).toBe("elsewhere.json");
  });

  it("keeps the canonical order of --only names, given comma-separated or repeated", () => {
    expect(parseBenchArgs(["--only", "throughput,setup"]).only).toEqual(["setup", "throughput"]);
    expect(parseBenchArgs(["--only", "remote", "--only", "step, sessions"]).only).toEqual([
      "sessions",
      "step",
      "remote",
    ]);
    expect(parseBenchArgs(["--only", "step"]).onlyGiven).toBe(true);
  });

  it("refuses an unknown benchmark, naming it and the valid ones", () => {
    expect(() => parseBenchArgs(["--only", "step,speed"])).toThrow(
      /unknown benchmark "speed"; choose from startup, sessions, model, detector/,
    );
  });

  it("knows the capture and latency benchmarks, in their place", () => {
    expect(BENCH_NAMES).toContain("capture");
    expect(BENCH_NAMES).toContain("latency");
    expect(parseBenchArgs(["--only", "latency,capture,step"]).only).toEqual(["step", "capture", "latency"]);
  });

  it("--soak runs the soak alone, writing its own file unless --out says otherwise", () => {
    const soak = parseBenchArgs(["--soak"]);
    expect(soak.soak).toBe(true);
    expect(soak.out).toBe("results/bench-soak.json");
    expect(parseBenchArgs(["--soak", "--quick", "--out", "s.json"])).toMatchObject({
      soak: true,
      quick: true,
      out: "s.json",
    });
    expect(() => parseBenchArgs(["--soak", "--only", "step"])).toThrow(/--soak runs the soak alone; drop --only/);
    expect(() => parseBenchArgs(["--soak=yes"])).toThrow();
  });

  it("refuses an empty --only and stray arguments", () => {
    expect(() => parseBenchArgs(["--only", ","])).toThrow(/--only needs at least one name/);
    expect(() => parseBenchArgs(["step"])).toThrow(/unexpected argument "step"; name benchmarks with --only step/);
    expect(() => parseBenchArgs(["--fast"])).toThrow(/--fast/);
  });

  it("--levels picks the latency benchmark's concurrency levels, and refuses what is not one", () => {
    expect(parseBenchArgs(["--only", "latency", "--levels", "8, adaptive"]).levels).toEqual([8, "adaptive"]);
    expect(parseBenchArgs([]).levels).toBeUndefined();
    expect(() => parseBenchArgs(["--levels", "8,fast"])).toThrow(/--levels: "fast" is not a concurrency/);
    expect(() => parseBenchArgs(["--levels", "0"])).toThrow(/"0" is not a concurrency/);
    expect(() => parseBenchArgs(["--levels", ","])).toThrow(/--levels needs at least one level/);
  });
});

describe("the gold benchmark's arguments", () => {
  it("is a benchmark of its own, last, and --gold-repeats sets how often each gold trajectory is played", () => {
    expect(BENCH_NAMES.at(-1)).toBe("gold");
    expect(parseBenchArgs(["--only", "gold", "--gold-repeats", "2"])).toMatchObject({
      only: ["gold"],
      onlyGiven: true,
      goldRepeats: 2,
    });
    expect(parseBenchArgs(["--only", "gold"]).goldRepeats).toBeUndefined();
  });

  it("refuses a --gold-repeats that is not a whole number from 1", () => {
    for (const bad of ["0", "two", "1.5"])
      expect(() => parseBenchArgs(["--only", "gold", "--gold-repeats", bad])).toThrow(
        new RegExp(`^--gold-repeats: "${bad.replace(".", "\\.")}" is not a count`),
      );
  });

  it("--gold-loads runs quiet and loaded apart, and --gold-projects picks projects; both refuse what they do not know", () => {
    expect(parseBenchArgs(["--only", "gold", "--gold-loads", "loaded"]).goldLoads).toEqual(["loaded"]);
    expect(parseBenchArgs(["--only", "gold", "--gold-loads", "quiet"]).goldLoads).toEqual(["quiet"]);
    expect(parseBenchArgs(["--only", "gold", "--gold-loads", "both"]).goldLoads).toEqual(["quiet", "loaded"]);
    expect(parseBenchArgs(["--only", "gold"]).goldLoads).toBeUndefined();
    expect(() => parseBenchArgs(["--gold-loads", "busy"])).toThrow(/--gold-loads: "busy" is not a load/);
    expect(parseBenchArgs(["--gold-projects", "settling, todomvc"]).goldProjects).toEqual(["settling", "todomvc"]);
    expect(() => parseBenchArgs(["--gold-projects", "nodered"])).toThrow(/unknown project "nodered"; choose from/);
  });
});
