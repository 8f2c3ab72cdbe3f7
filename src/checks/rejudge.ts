/**
 * Re-judging one trial: today's checks of its task, run on the trial's stored evidence
 * (evidence-replay.ts). A check the evidence cannot answer needs a live app: it is named, and its
 * result from the last judgement is kept as it was (a check with no earlier result is reported not
 * judged, which makes the verdict `error`: nothing was judged about it). Custom checks always need
 * a live app: their code may read anything, so a replay could not promise it saw what they read.
 */
import type { CheckSpec } from "../task/schema.js";
import { FORBIDDEN_EFFECTS_CHECK, judgeForbiddenEffects } from "./forbidden-effects.js";
import { replayEvidence, type ReplayOptions } from "./evidence-replay.js";
import { runCheck } from "./registry.js";
import type { TrialEvidence } from "./trial-evidence.js";
import type { CheckResult } from "./types.js";

/** A check that could not be judged from the evidence, and why. */
export interface LiveCheck {
  name: string;
  kind: string;
  why: string;
  /** Whether an earlier result was kept in its place. */
  kept: boolean;
}

export interface Rejudgement {
  checks: CheckResult[];
  liveChecks: LiveCheck[];
}

export interface RejudgeInput extends Omit<ReplayOptions, "browser"> {
  specs: readonly CheckSpec[];
  forbiddenEffects: readonly string[];
  evidence: TrialEvidence;
  /** The results of the judgement being replaced, in stored order. */
  previous: readonly CheckResult[];
  browser: ReplayOptions["browser"];
}

const isForbiddenResult = (r: CheckResult) => r.kind === "effects" && r.name.startsWith(`${FORBIDDEN_EFFECTS_CHECK}:`);

/** The earlier result standing for declared check `index`: same position and kind, else same name. */
function earlier(
  previous: readonly CheckResult[],
  index: number,
  spec: CheckSpec,
  name: string,
): CheckResult | undefined {
  const declared = previous.filter((r) => !isForbiddenResult(r) && r.kind !== "guard");
  const same = declared[index];
  if (same && same.kind === spec.kind) return same;
  return declared.find((r) => r.kind === spec.kind && r.name === name);
}

function notJudged(spec: CheckSpec, name: string, why: string): CheckResult {
  return {
    kind: spec.kind,
    name,
    required: spec.required !== false,
    pass: false,
    reason: `not judged: ${why}; this check needs a live app (run the task again)`,
    evidence: {},
    confidence: "observed",
    ms: 0,
    crashed: true,
  };
}

export async function rejudgeTrial(input: RejudgeInput): Promise<Rejudgement> {
  const replay = replayEvidence(input.evidence, input);
  const checks: CheckResult[] = [];
  const liveChecks: LiveCheck[] = [];
  const live = (result: CheckResult, spec: CheckSpec, index: number, why: string) => {
    const kept = earlier(input.previous, index, spec, result.name);
    liveChecks.push({ name: result.name, kind: spec.kind, why, kept: kept !== undefined });
    checks.push(kept ?? notJudged(spec, result.name, why));
  };
  try {
    for (const [index, spec] of input.specs.entries()) {
      if (spec.kind === "custom") {
        const name = spec.name ?? earlier(input.previous, index, spec, "")?.name ?? `custom ${spec.module}`;
        live({ name } as CheckResult, spec, index, "a custom check's code may read the live app");
        continue;
      }
      const missed = replay.misses.length;
      const result = await runCheck(spec, replay.ctx);
      if (replay.misses.length > missed) live(result, spec, index, replay.misses[replay.misses.length - 1]!);
      else checks.push(result);
    }
  } finally {
    await replay.close();
  }
  if (input.forbiddenEffects.length > 0) {
    const effects = input.evidence.effects;
    const before = input.previous.find(isForbiddenResult);
    if (effects === null) {
      liveChecks.push({
        name: before?.name ?? FORBIDDEN_EFFECTS_CHECK,
        kind: "effects",
        why: "the trial did not read the effects log",
        kept: before !== undefined,
      });
      if (before) checks.push(before);
    } else {
      const judged = judgeForbiddenEffects(input.forbiddenEffects, effects, input.evidence.target.effectsSource);
      if (judged) checks.push(judged);
    }
  }
  return { checks, liveChecks };
}
