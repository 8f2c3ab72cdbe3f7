/**
 * The self-test's closing lines: a starved machine makes gold trials time out, so an unsound
 * result on a saturated machine is said as "not proven" with the run summary's warning, and a
 * sound result on a quiet machine says nothing more. The machine reports come from the real
 * concurrency gate fed with CPU samples.
 */
import { describe, expect, it } from "vitest";
import type { ProbeResult } from "../../../src/authoring/probes.js";
import { selfTestClosing, selfTestFindings } from "../../../src/authoring/self-test.js";
import { ConcurrencyGate, type EndpointReport } from "../../../src/runner/schedule/concurrency-gate.js";

async function machine(cpuBusy: number): Promise<EndpointReport[]> {
  const gate = new ConcurrencyGate({ globalMax: 2, settingsFor: () => ({ start: 2, max: 2, pinned: true }) });
  await gate.run("embedded", async () => {
    for (let i = 0; i < 8; i++) gate.observeMachine({ cpuBusy, memoryAvailable: 0.6, cores: 2 });
  });
  const report = gate.report();
  gate.close();
  return report;
}

const probe = (ok: boolean): ProbeResult => ({
  task: "scorecard-note-bb042",
  protocol: "structured",
  probe: { name: "gold/structured", model: "reference", mode: "structured", expect: "passed", trajectory: "reference" },
  trialId: "t-0000",
  verdict: ok ? "passed" : "failed",
  stopReason: ok ? "answered" : "timeout",
  stopLine: "",
  reflections: 0,
  exercised: true,
  failedChecks: ok ? [] : ["the note exists"],
  reasons: ok ? [] : ["stopped timeout: time limit of 180 s reached"],
  clockWait: ok ? null : "the time limit ran out (time limit of 180 s reached)",
  ok,
});

describe("the self-test's closing lines", () => {
  it("say sound or unsound, and nothing more, on a quiet machine", async () => {
    const quiet = await machine(0.4);
    expect(selfTestClosing([probe(true), probe(true)], quiet)).toEqual(["every task is sound"]);
    expect(selfTestClosing([probe(true), probe(false)], quiet)).toEqual([
      "some tasks are unsound: their checks cannot tell right from wrong, or a probe was not played as written",
    ]);
  });

  it("on a saturated machine, call an unsound result not proven and add the warning", async () => {
    const starved = await machine(1);
    const unsound = selfTestClosing([probe(true), probe(false)], starved);
    expect(unsound[0]).toMatch(
      /^some tasks are not proven sound, on a saturated machine: run the self-test again with fewer trials at once \(--concurrency 1\)/,
    );
    expect(unsound[1]).toMatch(/^warning: the machine's CPU was saturated for 100% of the run/);
    // A negative that passed involved no wait: the CPU is not blamed, whatever the machine did.
    const passedNegative: ProbeResult = {
      ...probe(false),
      probe: { ...probe(false).probe, name: "negative:wrong-record", expect: "failed" },
      verdict: "passed",
      stopReason: "answered",
      clockWait: null,
    };
    const blamed = selfTestClosing([probe(true), passedNegative], starved);
    expect(blamed[0]).toMatch(/^some tasks are unsound/);
    const sound = selfTestClosing([probe(true)], starved);
    expect(sound).toEqual(["every task is sound", expect.stringMatching(/^warning: the machine's CPU was saturated/)]);
  });
});

describe("a self-test already at --concurrency 1", () => {
  it("is never told to run at --concurrency 1", async () => {
    const starved = await machine(1);
    const closing = selfTestClosing([probe(true), probe(false)], starved, [], false, 1);
    expect(closing[0]).toMatch(/though the self-test played one trial at a time/);
    expect(closing.join("\n")).not.toMatch(/--concurrency 1|fewer trials at once|a lower --concurrency/);
    const findings = selfTestFindings([probe(false)], [], false, 1);
    expect(findings.join("\n")).toContain("the self-test already played one trial at a time");
    expect(findings.join("\n")).not.toContain("--concurrency 1");
    expect(selfTestFindings([probe(false)], [], false, 2).join("\n")).toContain("--concurrency 1");
  });
});
