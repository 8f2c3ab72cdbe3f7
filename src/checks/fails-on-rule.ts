/**
 * The validation rule `fails-on-checks`: each name a negative's `failsOn` lists must be a required
 * check of the task, named as its results will be (the check's `name`, else its kind's default name,
 * else a custom module's own name), or the result `permissions.forbiddenEffects` adds (by the name it
 * is shown under, or the field alone). A typo would otherwise surface only as an unsound self-test.
 */
import type { ModuleTaskRule } from "../task/loader.js";
import type { RuleFinding } from "../task/problem.js";
import type { CheckSpec, Task } from "../task/schema.js";
import { didYouMean } from "../task/suggest.js";
import { customCheckName } from "./custom-check.js";
import { failsOnNames, forbiddenEffectsName } from "./forbidden-effects.js";
import { HANDLERS } from "./registry.js";

/** The name a check's results carry, as `runCheck` gives it. */
async function resultName(spec: CheckSpec, taskFile: string): Promise<string> {
  if (spec.name) return spec.name;
  if (spec.kind === "custom") return customCheckName(spec, taskFile);
  return (HANDLERS[spec.kind].defaultName as (s: CheckSpec) => string)(spec);
}

export const failsOnChecks: ModuleTaskRule = {
  name: "fails-on-checks",
  async check(task: Task): Promise<RuleFinding[]> {
    if (!task.negativeFailsOn) return [];
    const named = await Promise.all(
      task.checks.map(async (spec) => ({ name: await resultName(spec, task.file), required: spec.required !== false })),
    );
    const forbidden = task.permissions.forbiddenEffects;
    if (forbidden.length > 0) named.push({ name: forbiddenEffectsName(forbidden), required: true });
    const names = named.map((c) => c.name);
    const findings: RuleFinding[] = [];
    for (const [negative, list] of Object.entries(task.negativeFailsOn)) {
      list.forEach((name, i) => {
        const path = ["negatives", negative, "failsOn", i];
        const check = named.find((c) => failsOnNames(name, c.name));
        if (!check) {
          const fix = didYouMean(name, names) ?? `name one of: ${names.map((n) => JSON.stringify(n)).join(", ")}`;
          findings.push({
            path,
            severity: "error",
            message: `no check of the task is called ${JSON.stringify(name)}`,
            fix,
          });
        } else if (!check.required) {
          const message = `check ${JSON.stringify(name)} is advisory (required: false): its failing fails no trial`;
          findings.push({ path, severity: "error", message, fix: "name a required check, or make this one required" });
        }
      });
    }
    return findings;
  },
};
