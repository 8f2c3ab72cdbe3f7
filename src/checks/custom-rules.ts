/**
 * The validation rule of custom checks (`custom-check-options`): at `umpire validate` (and before
 * `umpire run`) each custom check's module is loaded and judges its own options (`validate`), and
 * declares the values it expects (`expected`), which the leak rule (src/task/leak-rule.ts) then
 * judges like the built-in kinds' values. So a check that moved out of the core into a task
 * suite's own module keeps its rules: a bad declaration is still an error naming the file, the
 * field and the fix, before any trial runs.
 */
import fs from "node:fs";
import path from "node:path";
import type { ModuleTaskRule } from "../task/loader.js";
import { leakFindings, type Expected } from "../task/leak-rule.js";
import type { DataPath, RuleFinding } from "../task/problem.js";
import type { Task } from "../task/schema.js";
import { loadCustomCheck, type CustomCheckSpec } from "./custom-check.js";
import { failsOnChecks } from "./fails-on-rule.js";
import { messageOf } from "../errors.js";

async function findingsOf(
  task: Task,
  spec: CustomCheckSpec,
  i: number,
): Promise<{ findings: RuleFinding[]; expected: Expected[] }> {
  const at = (...rest: DataPath): DataPath => ["checks", i, ...rest];
  // A module that is not there is the custom-modules-exist rule's finding.
  if (!fs.existsSync(path.resolve(path.dirname(task.file), spec.module))) return { findings: [], expected: [] };
  let check;
  try {
    check = await loadCustomCheck(spec, task.file);
  } catch (e) {
    const noExport = messageOf(e).includes("has no export");
    return {
      findings: [
        {
          path: at(noExport ? "export" : "module"),
          severity: "error",
          message: messageOf(e),
          fix: noExport
            ? "name an export of the module that implements CustomCheck (src/checks/custom-api.ts)"
            : "fix the module so it imports",
        },
      ],
      expected: [],
    };
  }
  const findings: RuleFinding[] = [];
  const expected: Expected[] = [];
  try {
    for (const p of check.validate?.(spec.options, {
      taskFile: task.file,
      tools: task.tools,
      required: spec.required,
    }) ?? []) {
      findings.push({
        path: at("options", ...p.path),
        severity: p.severity ?? "error",
        message: p.message,
        fix: p.fix,
      });
    }
    for (const e of check.expected?.(spec.options) ?? [])
      expected.push({ path: at("options", ...e.path), value: e.value, numeric: e.numeric });
  } catch (e) {
    findings.push({
      path: at("options"),
      severity: "error",
      message: `${spec.module}#${spec.export} could not judge these options: ${messageOf(e)}`,
      fix: "give the options the check's module expects",
    });
  }
  return { findings, expected };
}

/** Both rules below read the same declarations: each task's modules are loaded and asked once. */
const declared = new WeakMap<Task, Promise<{ findings: RuleFinding[]; expected: Expected[] }>>();

function declarations(task: Task): Promise<{ findings: RuleFinding[]; expected: Expected[] }> {
  let pending = declared.get(task);
  if (!pending) declared.set(task, (pending = readDeclarations(task)));
  return pending;
}

async function readDeclarations(task: Task): Promise<{ findings: RuleFinding[]; expected: Expected[] }> {
  const findings: RuleFinding[] = [];
  const expected: Expected[] = [];
  for (const [i, spec] of task.checks.entries()) {
    if (spec.kind !== "custom") continue;
    const own = await findingsOf(task, spec, i);
    findings.push(...own.findings);
    expected.push(...own.expected);
  }
  return { findings, expected };
}

/** Each custom check's module judges its own options. */
export const customCheckOptions: ModuleTaskRule = {
  name: "custom-check-options",
  check: async (task) => (await declarations(task)).findings,
};

/** The leak rule (same name, wording and fix) for the values only a custom check's module knows. */
export const customExpectedValuesLeak: ModuleTaskRule = {
  name: "no-expected-values-in-instruction",
  check: async (task) => leakFindings(task, (await declarations(task)).expected),
};

/** The module rules the CLI loads tasks with (`loadTasksAsync`). */
export const CUSTOM_CHECK_RULES: readonly ModuleTaskRule[] = [
  customCheckOptions,
  customExpectedValuesLeak,
  failsOnChecks,
];
