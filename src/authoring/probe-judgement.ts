/**
 * What one self-test probe proved, in words: whether it came out as soundness needs (gold passed
 * on a path the repetition guard left alone, answer-now failed, a negative failed on a required
 * check after it was played as written, failing every check its `failsOn` names), and why not.
 * Also each task's check coverage: a required check that no probe failed may be unable to fail.
 */
import { failsOnNames } from "../checks/forbidden-effects.js";
import type { CheckRecord } from "../store/records.js";
import type { Exercise } from "./probe-exercise.js";

export interface ProbeFacts {
  expect: "passed" | "failed";
  verdict: string;
  stopReason: string;
  stopDetail: string;
  /** The infrastructure error behind an `error` verdict. */
  error: string | null;
  reflections: number;
  checks: readonly Pick<CheckRecord, "name" | "required" | "pass" | "reason">[];
  /** null for answer-now, which plays no trajectory. */
  exercise: Exercise | null;
  /** The checks a negative declares it must fail (`failsOn`); empty when it declares none. */
  failsOn: readonly string[];
  /** Action messages of the trial, read for a settle wait that ran out. */
  actionMessages: readonly string[];
  /** Marks other probes of the task played: a mark one probe missed and another found hints at a slow page. */
  marksFoundElsewhere: ReadonlySet<string>;
}

export interface ProbeJudgement {
  ok: boolean;
  exercised: boolean;
  /** Why the probe is not ok: each a reason a reader can act on. */
  reasons: string[];
  /** Required checks that failed, by name. */
  failedChecks: string[];
  /** The wall-clock wait or timeout the outcome involved, when one did (then a busy machine may be why). */
  clockWait: string | null;
  /** failsOn names that did not fail. */
  failsOnMissed: string[];
}

/** The executor's words when the settle wait after an input ran out (executor.ts). */
const SETTLE_RAN_OUT = /had not answered after [\d.]+ s/;
/** An infrastructure error a starved machine causes: a navigation or capture timeout, a wait that ran out. */
const STARVED = /starved|timed? ?out|time limit|ran out/i;

function checkLine(c: ProbeFacts["checks"][number]): string {
  return `check '${c.name}' ${c.pass ? "passed" : "failed"}: ${c.reason}`;
}

/** The wall-clock wait or timeout behind the outcome, if any. */
function clockWaitOf(facts: ProbeFacts): string | null {
  if (facts.stopReason === "timeout") return `the time limit ran out (${facts.stopDetail || "timeout"})`;
  const infra = `${facts.stopDetail} ${facts.error ?? ""}`;
  if (facts.verdict === "error" && STARVED.test(infra)) return facts.error ?? facts.stopDetail;
  const settle = facts.actionMessages.find((m) => SETTLE_RAN_OUT.test(m));
  if (settle) return `a settle wait ran out (${SETTLE_RAN_OUT.exec(settle)![0]})`;
  const slow = facts.exercise?.marksMissing.find((m) => facts.marksFoundElsewhere.has(m));
  if (slow) return `the reference model waited for mark ${slow}, which another probe found`;
  return null;
}

/** What a probe that should fail and passed says of the checks (unless another cause is shown: probe-causes.ts). */
export const CANNOT_TELL = "the checks cannot tell it from the gold path";

/** Why a verdict differs from what soundness needs. */
function verdictReasons(facts: ProbeFacts, required: ProbeFacts["checks"]): string[] {
  if (facts.verdict === "error" || facts.verdict === "cancelled") {
    return [`${facts.verdict}: ${facts.error ?? facts.stopDetail ?? facts.stopReason}`];
  }
  if (facts.expect === "passed") {
    const failed = required.filter((c) => !c.pass);
    if (failed.length) return failed.map(checkLine);
    return [`stopped ${facts.stopReason}${facts.stopDetail ? `: ${facts.stopDetail}` : ""}`];
  }
  // A probe that should fail and passed: every required check let it through.
  const names = required.map((c) => `'${c.name}'`).join(", ") || "none";
  return [`every required check passed (${names}): ${CANNOT_TELL}`];
}

export function judgeProbe(facts: ProbeFacts): ProbeJudgement {
  const required = facts.checks.filter((c) => c.required);
  const failedChecks = required.filter((c) => !c.pass).map((c) => c.name);
  const reasons: string[] = [];
  const exercised = facts.exercise?.exercised ?? true;
  if (!exercised) reasons.push(...facts.exercise!.problems.map((p) => `not exercised: ${p}`));
  if (facts.verdict !== facts.expect) reasons.push(...verdictReasons(facts, required));
  else if (facts.expect === "passed" && facts.reflections > 0) {
    const n = facts.reflections;
    reasons.push(
      `the repetition guard asked for ${n} reflection${n === 1 ? "" : "s"} on the gold path (a false positive)`,
    );
  }
  const failsOnMissed: string[] = [];
  if (facts.verdict === "failed" && exercised) {
    for (const name of facts.failsOn) {
      const check = facts.checks.find((c) => failsOnNames(name, c.name));
      const known = facts.checks.map((c) => `'${c.name}'`).join(", ");
      if (!check) reasons.push(`failsOn names '${name}', which no check of the task is called (its checks: ${known})`);
      else if (check.pass || !check.required) {
        reasons.push(
          `failsOn '${name}' did not fail: ${check.required ? checkLine(check) : "it is advisory (required: false)"}`,
        );
      } else continue;
      failsOnMissed.push(name);
    }
  }
  const ok = reasons.length === 0;
  return { ok, exercised, reasons, failedChecks, clockWait: ok ? null : clockWaitOf(facts), failsOnMissed };
}

export interface CoverageGap {
  task: string;
  check: string;
}

/**
 * Required checks no probe failed. Only answer-now and exercised negatives count: a negative the
 * model could not play failed for the wrong reason.
 */
export function uncoveredChecks(
  task: string,
  probes: readonly { expect: "passed" | "failed"; exercised: boolean; checks: ProbeFacts["checks"] }[],
): CoverageGap[] {
  const required = new Set(probes.flatMap((p) => p.checks.filter((c) => c.required).map((c) => c.name)));
  for (const probe of probes) {
    if (probe.expect !== "failed" || !probe.exercised) continue;
    for (const c of probe.checks) if (c.required && !c.pass) required.delete(c.name);
  }
  return [...required].map((check) => ({ task, check }));
}

export function coverageLine(gap: CoverageGap): string {
  const advice = "it may be unable to fail; add a negative that breaks it";
  return `${gap.task}: check '${gap.check}' never failed in any probe: ${advice}`;
}
