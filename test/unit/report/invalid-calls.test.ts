/**
 * The refused calls of a run, by kind per agent config (#41): summed over the trials that recorded
 * them, never counted for a trial that did not (stored before, or not umpire's loop), `skipped` never
 * a refusal; and the words `show` puts after each agent config's line.
 */
import { describe, expect, it } from "vitest";
import { countInvalid } from "../../../src/runner/trial/loop.js";
import { invalidCallsByAgent, invalidCallsText } from "../../../src/report/invalid-calls.js";
import { agentSummaryLines, type TrialDetail } from "../../../src/report/tables.js";
import type { TrialRecord } from "../../../src/store/records.js";

const trial = (model: string, mode: string, metrics: Record<string, unknown>, agentLabel = `${model}/${mode}`) => ({
  agentLabel,
  model,
  mode,
  metrics,
});

describe("refused calls by kind", () => {
  it("a turn's refusals counted by kind, its skipped calls left out, added to the trial's", () => {
    const sum = countInvalid([{ id: "a", kind: "missing_fields", message: "m" }]);
    countInvalid(
      [
        { id: "b", kind: "unsupported_action", message: "drag" },
        { id: "c", kind: "skipped", message: "after b" },
        { id: "d", kind: "unsupported_action", message: "right_click" },
      ],
      sum,
    );
    expect(sum).toEqual({ missing_fields: 1, unsupported_action: 2 });
    expect(countInvalid([{ id: "e", kind: "skipped", message: "x" }])).toEqual({});
  });

  it("sums per agent, most frequent first; trials without the record are not counted", () => {
    const groups = invalidCallsByAgent([
      trial("claude-x", "anthropic-computer", { invalid: { unsupported_action: 1 } }),
      trial("claude-x", "anthropic-computer", { invalid: { missing_fields: 1, unsupported_action: 1 } }),
      trial("claude-x", "anthropic-computer", { repetition: {} }), // stored before kinds were
      trial("reference", "structured", { invalid: {} }),
      trial("old", "tools", { repetition: {} }),
    ]);
    expect(groups).toEqual([
      {
        agent: "claude-x/anthropic-computer",
        model: "claude-x",
        mode: "anthropic-computer",
        total: 3,
        byKind: { unsupported_action: 2, missing_fields: 1 },
      },
      { agent: "reference/structured", model: "reference", mode: "structured", total: 0, byKind: {} },
    ]);
    expect(invalidCallsText(groups[0])).toBe("invalid calls 3 (unsupported_action 2, missing_fields 1)");
    expect(invalidCallsText(groups[1])).toBeNull();
    expect(invalidCallsText(undefined)).toBeNull();
  });

  it("two named agents of one model and mode are two groups", () => {
    const groups = invalidCallsByAgent([
      trial("reference", "anthropic-computer", { invalid: { unsupported_action: 2 } }, "claude-single"),
      trial("reference", "anthropic-computer", { invalid: {} }, "claude-toolset"),
    ]);
    expect(groups.map((g) => [g.agent, g.total])).toEqual([
      ["claude-single", 2],
      ["claude-toolset", 0],
    ]);
  });

  it("show's line per agent ends with them when there were any", () => {
    const record = (
      model: string,
      mode: string,
      metrics: Record<string, unknown>,
      agentLabel = `${model}/${mode}`,
    ): TrialDetail => ({
      trial: {
        agentLabel,
        model,
        mode,
        metrics,
        verdict: "failed",
        costUsd: 0,
        turns: 2,
        modelMs: 10,
      } as unknown as TrialRecord,
      checks: [],
    });
    const lines = agentSummaryLines([
      record("qwen", "qwen3-vl", { invalid: { invalid_json: 1, unsupported_action: 1 } }),
      record("reference", "structured", { invalid: {} }),
    ]);
    expect(lines[0]).toMatch(
      /^qwen · qwen3-vl: 0\/1 passed, .*; invalid calls 2 \(invalid_json 1, unsupported_action 1\)$/,
    );
    expect(lines[1]).not.toContain("invalid");
    // Named agents sharing a model and mode: a line each, by name (pooled, one line would speak for both).
    const named = agentSummaryLines([
      record("reference", "anthropic-computer", { invalid: { unsupported_action: 2 } }, "claude-single"),
      record("reference", "anthropic-computer", { invalid: {} }, "claude-toolset"),
    ]);
    expect(named).toHaveLength(2);
    expect(named[0]).toMatch(
      /^claude-single \(reference · anthropic-computer\): 0\/1 passed, .*; invalid calls 2 \(unsupported_action 2\)$/,
    );
    expect(named[1]).toMatch(/^claude-toolset \(reference · anthropic-computer\): 0\/1 passed, /);
    expect(named[1]).not.toContain("invalid");
  });
});
