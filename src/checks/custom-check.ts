/**
 * The `custom` check: loads the named module (relative to the task file) and calls its export,
 * which implements `CustomCheck` (src/checks/custom-api.ts). A module that does not load or an
 * export of the wrong shape cannot judge: verdict `error`, with the reason.
 */
import path from "node:path";
import type { z } from "zod";
import type { CustomCheck as CustomCheckDecl } from "../task/schema.js";
import { importCheckModule } from "./check-module.js";
import type { CustomCheck, CustomJudge } from "./custom-api.js";
import type { Confidence } from "../vocabulary.js";
import { CheckUnjudgeableError, type Handler, type Judgement } from "./types.js";
import { messageOf } from "../errors.js";

export type CustomCheckSpec = z.output<typeof CustomCheckDecl>;

export async function loadCustomCheck(
  spec: CustomCheckSpec,
  taskFile: string | undefined,
): Promise<CustomCheck<Record<string, unknown>>> {
  const file = path.resolve(taskFile ? path.dirname(path.resolve(taskFile)) : process.cwd(), spec.module);
  let mod: Record<string, unknown>;
  try {
    mod = await importCheckModule(file);
  } catch (e) {
    throw new CheckUnjudgeableError(`the custom check module ${spec.module} did not load: ${messageOf(e)}`);
  }
  const exported = mod[spec.export];
  if (typeof exported === "function") return { judge: exported as CustomJudge<Record<string, unknown>> };
  if (exported && typeof exported === "object" && typeof (exported as CustomCheck).judge === "function")
    return exported as CustomCheck<Record<string, unknown>>;
  throw new CheckUnjudgeableError(
    `${spec.module} has no export ${JSON.stringify(spec.export)} implementing CustomCheck (an object with judge(ctx, options), or a function)`,
  );
}

/** A custom check's judgement, with the confidence it reports under (the task's, else the module's). */
export type CustomJudgement = Judgement & { confidence: Confidence };

export const customCheck: Handler<CustomCheckSpec> = {
  // The confidence of a result is the task's `confidence`, else the module's (see registry.ts).
  confidence: "verified",
  defaultName: (spec) => `custom ${path.basename(spec.module)}${spec.export === "default" ? "" : `#${spec.export}`}`,
  async judge(spec, ctx): Promise<CustomJudgement> {
    const check = await loadCustomCheck(spec, ctx.taskFile);
    const judgement = await check.judge(ctx, spec.options);
    if (!judgement || typeof judgement.pass !== "boolean" || typeof judgement.reason !== "string") {
      throw new CheckUnjudgeableError(
        `${spec.module}#${spec.export} returned ${JSON.stringify(judgement)}, not {pass, reason, evidence}`,
      );
    }
    return {
      pass: judgement.pass,
      reason: judgement.reason,
      evidence: judgement.evidence ?? {},
      confidence: spec.confidence ?? check.confidence ?? "verified",
    };
  },
};

/** The name a custom check's result carries when the task gives none: the module's `name`, else module#export. */
export async function customCheckName(spec: CustomCheckSpec, taskFile: string | undefined): Promise<string> {
  const fallback = customCheck.defaultName(spec);
  try {
    const check = await loadCustomCheck(spec, taskFile);
    if (typeof check.name === "function") return check.name(spec.options);
    return check.name ?? fallback;
  } catch {
    return fallback;
  }
}
