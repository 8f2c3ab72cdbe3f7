import { describe, expect, it } from "vitest";
import { medianRun, processKind } from "../../scripts/bench/cpu-per-trial.js";

describe("the CPU bench's process kinds", () => {
  it("names each Chromium process by its --type, the network service apart, and umpire's node", () => {
    const shell = "/usr/lib/chromium/chromium-headless-shell";
    expect(processKind(`${shell} --type=renderer --lang=en-US`)).toBe("renderer");
    expect(processKind(`${shell} --type=gpu-process --use-angle=swiftshader-webgl`)).toBe("gpu");
    expect(processKind(`${shell} --type=utility --utility-sub-type=network.mojom.NetworkService`)).toBe(
      "network service",
    );
    expect(processKind(`${shell} --type=utility --utility-sub-type=storage.mojom.StorageService`)).toBe("utility");
    expect(processKind(`${shell} --type=zygote --no-zygote-sandbox`)).toBe("zygote");
    expect(processKind(`${shell} --headless --remote-debugging-pipe`)).toBe("browser");
    expect(processKind("/usr/bin/node bin/umpire.js run --json")).toBe("umpire (node)");
    expect(processKind("sh -c echo")).toBe("other");
  });
});

describe("the CPU bench's median run", () => {
  const run = (cpuPerTrialS: number, renderer: number) => ({
    label: "set",
    args: ["run"],
    trials: 28,
    passed: 28,
    wallS: 90,
    cpuS: cpuPerTrialS * 28,
    cpuPerTrialS,
    perTrialByKind: { renderer },
    coresUsed: 1,
  });

  it("takes the median run whole (its split by kind too) and keeps every run's figure in order", () => {
    const side = medianRun([run(3.9, 1.3), run(3.0, 0.9), run(3.2, 1.0)]);
    expect(side.cpuPerTrialS).toBe(3.2);
    expect(side.perTrialByKind).toEqual({ renderer: 1.0 });
    expect(side.runs.map((r) => r.cpuPerTrialS)).toEqual([3.9, 3.0, 3.2]);
  });

  it("with an even count takes the lower middle run, and refuses no runs", () => {
    expect(medianRun([run(3.4, 1), run(3.0, 1)]).cpuPerTrialS).toBe(3.0);
    expect(medianRun([run(3.4, 1)]).runs).toHaveLength(1);
    expect(() => medianRun([])).toThrow(/no run/);
  });
});
