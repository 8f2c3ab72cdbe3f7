/**
 * The named validation rules, in the order their findings are listed (`TASK_RULES`), and the rules
 * of the task as a whole: its draft mark, file name, custom modules and the texts sent in requests.
 * The rules of each subject live beside it: the steps (`step-rules.ts`), the checks
 * (`check-rules.ts`), where the task runs (`target-rules.ts`); what a rule is, in `rule.ts`. Each
 * is a small function over a resolved task (or, for `known-tools` and `unique-ids`, over raw data
 * and the set of files) that returns findings; the loader adds the file and line. Rule names appear
 * in every problem so a reader can look the rule up by name.
 */
import path from "node:path";
import { TOOL_NAMES, isToolName } from "../toolbox/tools.js";
import fs from "node:fs";
import type { Task } from "./schema.js";
import type { DataPath, RuleFinding } from "./problem.js";
import { didYouMean } from "./suggest.js";
import { SECRET_SCOPE, stringsIn, TRIAL_SCOPE, type VariableScope, variableProblems } from "./trial-vars.js";
import { expectedValuesLeak } from "./leak-rule.js";
import { error, warning, type TaskRule } from "./rule.js";
import * as stepRules from "./step-rules.js";
import * as checkRules from "./check-rules.js";
import * as targetRules from "./target-rules.js";

/** known-tools, on raw data: runs even when the file fails the schema, and suggests the intended tool. */
export function knownToolsInRaw(raw: unknown): RuleFinding[] {
  if (!raw || typeof raw !== "object") return [];
  const data = raw as Record<string, unknown>;
  const findings: RuleFinding[] = [];
  const judge = (value: unknown, at: DataPath) => {
    if (typeof value === "string" && !isToolName(value)) {
      findings.push(
        error(
          at,
          `unknown tool ${JSON.stringify(value)}`,
          didYouMean(value, TOOL_NAMES) ?? `use one of ${TOOL_NAMES.join(", ")}`,
        ),
      );
    }
  };
  if (Array.isArray(data.tools)) data.tools.forEach((tool, i) => judge(tool, ["tools", i]));
  const stepsOf = (list: unknown, at: DataPath) => {
    if (Array.isArray(list))
      list.forEach((step, i) => judge((step as Record<string, unknown> | null)?.tool, [...at, i, "tool"]));
  };
  stepsOf(data.reference, ["reference"]);
  if (data.negatives && typeof data.negatives === "object") {
    for (const [name, negative] of Object.entries(data.negatives)) {
      const steps =
        negative && typeof negative === "object" && !Array.isArray(negative)
          ? (negative as { steps?: unknown }).steps
          : negative;
      stepsOf(steps, Array.isArray(negative) ? ["negatives", name] : ["negatives", name, "steps"]);
    }
  }
  return findings;
}

/** unique-ids, across files: each file whose id another file also uses gets an error naming the other. */
export function duplicateIds(
  entries: readonly { file: string; id: string | undefined }[],
): { file: string; finding: RuleFinding }[] {
  const byId = new Map<string, string[]>();
  for (const { file, id } of entries) if (id !== undefined) byId.set(id, [...(byId.get(id) ?? []), file]);
  const out: { file: string; finding: RuleFinding }[] = [];
  for (const [id, files] of byId) {
    if (files.length < 2) continue;
    for (const file of files) {
      const others = files.filter((f) => f !== file);
      out.push({
        file,
        finding: error(
          ["id"],
          `id ${JSON.stringify(id)} is also used by ${others.join(", ")}`,
          "give each task its own id",
        ),
      });
    }
  }
  return out;
}

const fileNameMatchesId: TaskRule = {
  name: "file-name-matches-id",
  check: (task) => {
    const base = path.basename(task.file).replace(/\.ya?ml$/i, "");
    return base === task.id
      ? []
      : [
          warning(
            ["id"],
            `the file is named ${path.basename(task.file)} but the id is ${task.id}`,
            `rename the file to ${task.id}.yaml`,
          ),
        ];
  },
};

/** A custom check's module must exist next to the task file (it is imported at run time). */
const customModulesExist: TaskRule = {
  name: "custom-modules-exist",
  check: (task) =>
    task.checks.flatMap((check, i): RuleFinding[] => {
      if (check.kind !== "custom") return [];
      const file = path.resolve(path.dirname(task.file), check.module);
      return fs.existsSync(file)
        ? []
        : [
            error(
              ["checks", i, "module"],
              `the module ${check.module} does not exist (looked for ${file})`,
              "give the path relative to the task file, e.g. ./checks/cart.ts",
            ),
          ];
    }),
};

/** Every text of a task that is sent in a request, with the variables that are filled in there. */
function requestTexts(task: Task): { text: string; path: DataPath; scope: VariableScope }[] {
  const out: { text: string; path: DataPath; scope: VariableScope }[] = [
    { text: task.start.path, path: ["start", "path"], scope: TRIAL_SCOPE },
  ];
  task.checks.forEach((check, i) => {
    if (check.kind === "page" && check.open !== undefined)
      out.push({ text: check.open, path: ["checks", i, "open"], scope: TRIAL_SCOPE });
    if (check.kind !== "http") return;
    out.push({ text: check.url, path: ["checks", i, "url"], scope: TRIAL_SCOPE });
    for (const [name, value] of Object.entries(check.headers))
      out.push({ text: value, path: ["checks", i, "headers", name], scope: SECRET_SCOPE });
    for (const text of stringsIn(check.body)) out.push({ text, path: ["checks", i, "body"], scope: TRIAL_SCOPE });
  });
  return out;
}

/** `${...}` in what a task sends must be filled in there: a typo would otherwise reach the app literally. */
const requestVariables: TaskRule = {
  name: "request-variables",
  check: (task) =>
    requestTexts(task).flatMap(({ text, path, scope }) =>
      variableProblems(text, scope).map((message) => error(path, message)),
    ),
};

const noExpectedValuesInInstruction: TaskRule = {
  name: "no-expected-values-in-instruction",
  check: expectedValuesLeak,
};

/** Every per-task rule, in the order their findings are listed. */
/** An imported task is a draft until a person has read its instruction, gold and checks. */
const notDraft: TaskRule = {
  name: "draft",
  check(task, ctx) {
    if (task.draft !== true || ctx.allowDrafts) return [];
    return [
      {
        path: ["draft"],
        atKey: true,
        severity: "error",
        message: "this task is a draft (imported from a test, not yet reviewed by a person)",
        fix: "read its instruction, gold steps and checks, resolve its TODO comments, then delete `draft: true`; meanwhile --allow-drafts accepts it (`umpire try --allow-drafts` plays its gold once, `umpire validate --allow-drafts` checks and self-tests it, `umpire run --allow-drafts` runs it)",
      },
    ];
  },
};

export const TASK_RULES: readonly TaskRule[] = [
  notDraft,
  targetRules.knownTarget,
  targetRules.targetVocabulary,
  requestVariables,
  customModulesExist,
  checkRules.checksConsistent,
  stepRules.stepsUseAllowedTools,
  stepRules.stepTargets,
  stepRules.stepTargetsDeclared,
  stepRules.stepArgs,
  stepRules.limitsInRange,
  stepRules.referenceWithinLimits,
  stepRules.referenceEndsWithAnswer,
  checkRules.pathsInWorkspace,
  checkRules.regexesCompile,
  checkRules.checksTestSomething,
  checkRules.effectsConsistent,
  targetRules.allowedOriginsAreOrigins,
  targetRules.narrowToolsConfigured,
  checkRules.answerToolForAnswerCheck,
  noExpectedValuesInInstruction,
  fileNameMatchesId,
];
