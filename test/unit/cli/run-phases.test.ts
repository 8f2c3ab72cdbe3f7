/**
 * The phase runner of `umpire run` (src/cli/run/phases.ts), the way Playwright's task runner
 * behaves: setups in order, teardowns in reverse for every phase whose setup began, an exit code
 * that ends the run early, the first error kept when a teardown fails too, and a group whose
 * teardowns run before the phases after it.
 */
import { describe, expect, it } from "vitest";
import { phaseGroup, runPhases, type Phase } from "../../../src/cli/run/phases.js";

type Trace = string[];
const phase = (title: string, setup: (trace: Trace) => number | void = () => {}, teardown = true): Phase<Trace> => ({
  title,
  setup: (trace) => {
    trace.push(`setup ${title}`);
    return setup(trace);
  },
  ...(teardown ? { teardown: (trace: Trace) => void trace.push(`teardown ${title}`) } : {}),
});

describe("runPhases", () => {
  it("runs the setups in order and the teardowns in reverse; the last phase's code is the run's", async () => {
    const trace: Trace = [];
    expect(await runPhases(trace, [phase("a"), phase("b", () => {}, false), phase("c", () => 3)])).toBe(3);
    expect(trace).toEqual(["setup a", "setup b", "setup c", "teardown c", "teardown a"]);
  });

  it("ends at the first phase that gives an exit code, tearing down only what began", async () => {
    const trace: Trace = [];
    expect(await runPhases(trace, [phase("a"), phase("b", () => 0), phase("c")])).toBe(0);
    expect(trace).toEqual(["setup a", "setup b", "teardown b", "teardown a"]);
  });

  it("tears down the failed phase and those before it, and rethrows the setup's error over a teardown's", async () => {
    const trace: Trace = [];
    const failing = phase("b", () => {
      throw new Error("setup failed");
    });
    const brokenTeardown: Phase<Trace> = {
      title: "a",
      setup: () => {},
      teardown: () => {
        trace.push("teardown a");
        throw new Error("teardown failed");
      },
    };
    await expect(runPhases(trace, [brokenTeardown, failing, phase("c")])).rejects.toThrow("setup failed");
    expect(trace).toEqual(["setup b", "teardown b", "teardown a"]);
  });

  it("tears a group down before the phases after it start", async () => {
    const trace: Trace = [];
    const code = await runPhases(trace, [
      phase("store"),
      phaseGroup("trials", [phase("runtime"), phase("execute")]),
      phase("finish", () => 1),
    ]);
    expect(code).toBe(1);
    expect(trace).toEqual([
      "setup store",
      "setup runtime",
      "setup execute",
      "teardown execute",
      "teardown runtime",
      "setup finish",
      "teardown finish",
      "teardown store",
    ]);
  });
});
