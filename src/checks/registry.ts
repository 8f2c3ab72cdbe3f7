/**
 * The check registry: one handler per check kind, in a mapped type, so adding a kind to the task
 * schema without a handler here fails to compile. `runChecks` runs a trial's checks and never
 * throws: a handler's exception becomes a crashed, failed result (verdict `error`).
 */
import type { CheckKind, CheckSpec } from "../task/schema.js";
import { answerCheck } from "./answer-check.js";
import { effectsCheck } from "./effects-check.js";
import { clip } from "./evidence.js";
import { fileCheck } from "./file-check.js";
import { pageCheck } from "./page-check.js";
import { httpCheck } from "./http-check.js";
import { storageCheck } from "./storage-check.js";
import { commandCheck } from "./command-check.js";
import { episodeCheck } from "./episode-check.js";
import { customCheck, customCheckName, type CustomJudgement } from "./custom-check.js";
import type { Confidence } from "../vocabulary.js";
import type { CheckContext, CheckResult, Handler } from "./types.js";
import { messageOf } from "../errors.js";

type Handlers = { [K in CheckKind]: Handler<Extract<CheckSpec, { kind: K }>> };

export const HANDLERS: Handlers = {
  file: fileCheck,
  page: pageCheck,
  effects: effectsCheck,
  answer: answerCheck,
  http: httpCheck,
  storage: storageCheck,
  command: commandCheck,
  custom: customCheck,
  episode: episodeCheck,
};

/** The confidence a kind's results carry: verified (file, effects), observed (page), claimed (answer). */
export function confidenceOf(kind: CheckKind): Confidence {
  return HANDLERS[kind].confidence;
}

function handlerFor(kind: string): Handler<CheckSpec> | undefined {
  return Object.hasOwn(HANDLERS, kind) ? (HANDLERS[kind as CheckKind] as Handler<CheckSpec>) : undefined;
}

/** Runs one check; never throws. */
export async function runCheck(spec: CheckSpec, ctx: CheckContext): Promise<CheckResult> {
  const started = performance.now();
  const required = spec.required !== false;
  const handler = handlerFor(spec.kind);
  const elapsed = () => Math.round(performance.now() - started);
  if (!handler) {
    return {
      kind: spec.kind,
      name: spec.name ?? String(spec.kind),
      required,
      pass: false,
      reason: `check crashed: no handler for check kind "${String(spec.kind)}"`,
      evidence: {},
      confidence: "claimed",
      ms: elapsed(),
      crashed: true,
    };
  }
  let name = spec.name ?? spec.kind;
  try {
    name =
      spec.name ?? (spec.kind === "custom" ? await customCheckName(spec, ctx.taskFile) : handler.defaultName(spec));
    const judgement = await handler.judge(spec, ctx);
    // A custom check reports under the confidence it declares (customCheck returns it); the built-in kinds under their own.
    const confidence = spec.kind === "custom" ? (judgement as CustomJudgement).confidence : handler.confidence;
    return {
      kind: spec.kind,
      name,
      required,
      pass: judgement.pass,
      reason: judgement.reason,
      evidence: judgement.evidence,
      confidence,
      ms: elapsed(),
    };
  } catch (e) {
    return {
      kind: spec.kind,
      name,
      required,
      pass: false,
      reason: `check crashed: ${messageOf(e)}`,
      evidence: { error: clip(messageOf(e), 1_000) },
      confidence: handler.confidence,
      ms: elapsed(),
      crashed: true,
    };
  }
}

/**
 * Runs a trial's checks in declaration order (page checks share the trial's browser, so they do
 * not run concurrently) and returns one result per spec. Never throws.
 */
export async function runChecks(specs: readonly CheckSpec[], ctx: CheckContext): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const spec of specs) results.push(await runCheck(spec, ctx));
  return results;
}
