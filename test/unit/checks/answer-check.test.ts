import { describe, expect, it } from "vitest";
import { answerCheck } from "../../../src/checks/answer-check.js";
import type { CheckContext } from "../../../src/checks/types.js";
import { spec } from "./workspace.js";

const ctx = (answer: string | null): CheckContext => ({ workspaceDir: "/nonexistent", effects: [], answer });
const judge = (input: Record<string, unknown>, answer: string | null) =>
  answerCheck.judge(spec({ kind: "answer", ...input }), ctx(answer));

describe("answer check", () => {
  it("requires an answer by default", async () => {
    expect(await judge({}, null)).toMatchObject({ pass: false, reason: "the agent gave no final answer" });
    expect((await judge({}, "   ")).pass).toBe(false);
    expect((await judge({}, "Done.")).pass).toBe(true);
  });

  it("with present: false, requires that the agent did not answer", async () => {
    expect((await judge({ present: false }, null)).pass).toBe(true);
    expect(await judge({ present: false }, "Deleted it.")).toMatchObject({
      pass: false,
      reason: "the agent answered, but the task expects no answer",
    });
  });

  it("matches normalised text and regexes", async () => {
    const check = { contains: ["jaipur kites won", { regex: "BB-\\d{3}" }], notContains: ["BB-024"] };
    expect((await judge(check, "BB\u2013042: JAIPUR  KITES WON by 6 wickets")).pass).toBe(true);
    const j = await judge(check, "BB-024: Jaipur Kites won by 6 wickets");
    expect(j.reason).toBe('the answer contains "BB-024" ("BB-024"), which it must not');
  });

  it("checks a number with tolerance", async () => {
    expect(await judge({ number: { value: 169 } }, "They made 169 runs")).toMatchObject({ pass: true });
    expect(await judge({ number: { value: 8.4, tolerance: 0.05 } }, "rate 8.42")).toMatchObject({ pass: true });
    expect(await judge({ number: { value: 8.4, tolerance: 0.01 } }, "rate 8.42")).toMatchObject({
      pass: false,
      reason: "the answer does not state 8.4 (±0.01) (numbers stated: 8.42)",
    });
  });

  it("never reads 168/6 as 28", async () => {
    const j = await judge({ number: { value: 28 } }, "Pune Pioneers 168/6");
    expect(j.pass).toBe(false);
    expect(j.evidence.numbers).toEqual([168, 6]);
  });
});
