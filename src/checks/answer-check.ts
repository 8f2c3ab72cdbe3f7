/**
 * The `answer` check: judges only the agent's own final words, so its confidence is `claimed`.
 * An answer can be right while the world is wrong (no note saved, the wrong match noted); that is
 * why tasks pair it with file, page or effects checks that decide the verdict.
 */
import type { z } from "zod";
import type { AnswerCheck } from "../task/schema.js";
import { clip } from "./evidence.js";
import { findNumbers } from "./numbers.js";
import { checkMatchers } from "./text-match.js";
import type { CheckContext, Evidence, Handler, Judgement } from "./types.js";

export type AnswerCheckSpec = z.output<typeof AnswerCheck>;

async function judgeAnswer(spec: AnswerCheckSpec, ctx: CheckContext): Promise<Judgement> {
  const answer = ctx.answer;
  const answered = answer !== null && answer.trim() !== "";
  if (!spec.present) {
    return answered
      ? {
          pass: false,
          reason: "the agent answered, but the task expects no answer",
          evidence: { answer: clip(answer) },
        }
      : { pass: true, reason: "the agent gave no answer, as expected", evidence: { answer } };
  }
  if (!answered) {
    return { pass: false, reason: "the agent gave no final answer", evidence: { answer } };
  }

  const evidence: Evidence = { answer: clip(answer) };
  const failures: string[] = [];

  const matchers = checkMatchers(answer, spec.contains, spec.notContains, spec.normalize);
  if (matchers.details.length > 0) evidence.matchers = matchers.details;
  failures.push(...matchers.failures);

  if (spec.number) {
    const { value, tolerance } = spec.number;
    const numbers = findNumbers(answer).map((n) => n.value);
    evidence.numbers = numbers;
    if (!numbers.some((n) => Math.abs(n - value) <= tolerance)) {
      const wanted = tolerance > 0 ? `${value} (±${tolerance})` : `${value}`;
      failures.push(`does not state ${wanted} (numbers stated: ${numbers.join(", ") || "none"})`);
    }
  }

  if (failures.length > 0) return { pass: false, reason: `the answer ${failures.join("; ")}`, evidence };
  return { pass: true, reason: "the answer states what was expected (the agent's claim only)", evidence };
}

export const answerCheck: Handler<AnswerCheckSpec> = {
  confidence: "claimed",
  defaultName: (spec) => (spec.present ? "answer" : "no answer"),
  judge: judgeAnswer,
};
