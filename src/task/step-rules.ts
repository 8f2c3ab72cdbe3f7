import type { z } from "zod";
import { TOOL_ARGS, type ToolName } from "../toolbox/tools.js";
import { LIMIT_RANGES, type ReferenceStep, type Task } from "./schema.js";
import type { DataPath, RuleFinding } from "./problem.js";
import { plainIssues } from "./zod-issues.js";
import { error, warning, type TaskRule } from "./rule.js";
import { didYouMean } from "./suggest.js";

/** Tools whose steps aim at a layout mark; their x/y come from grounding the mark, never from the file. */
const TARGETED_TOOLS: ReadonlySet<ToolName> = new Set(["click", "double_click"]);

const TARGET_OPTIONAL_TOOLS: ReadonlySet<ToolName> = new Set(["scroll"]);

/** Every trajectory step with its path: the gold reference and each negative. */
function allSteps(task: Task): { step: ReferenceStep; path: DataPath }[] {
  const steps = task.reference.map((step, i) => ({ step, path: ["reference", i] as DataPath }));
  for (const [name, negative] of Object.entries(task.negatives)) {
    // A negative written as {steps, failsOn} has its steps one level down.
    const at: DataPath = task.negativeFailsOn?.[name] ? ["negatives", name, "steps"] : ["negatives", name];
    negative.forEach((step, i) => steps.push({ step, path: [...at, i] }));
  }
  return steps;
}

export const stepsUseAllowedTools: TaskRule = {
  name: "steps-use-allowed-tools",
  check: (task) =>
    allSteps(task)
      .filter(({ step }) => !task.tools.includes(step.tool))
      .map(({ step, path: at }) =>
        error(
          [...at, "tool"],
          `the step uses ${step.tool}, which the task does not allow`,
          `add ${step.tool} to tools, or change the step`,
        ),
      ),
};

/**
 * A step aimed at a name that is no declared mark is taken as a test id, which only the page shows
 * (`umpire marks` lists them; `umpire try` names one the page lacks at its step). Without a browser
 * the rule is: such a name one edit or two from a declared mark is likely a typo, and is warned of.
 */
export const stepTargetsDeclared: TaskRule = {
  name: "step-targets-declared",
  check: (task, ctx) => {
    const entry = ctx.targets.get(task.target);
    if (!entry || entry.fixture) return [];
    const declared = [...(entry.marks ?? []), ...Object.keys(task.marks)];
    if (declared.length === 0) return [];
    return allSteps(task).flatMap(({ step, path: at }) => {
      if (!step.target || declared.includes(step.target) || step.target.startsWith("dialog.")) return [];
      const hint = didYouMean(step.target, declared);
      if (!hint) return [];
      return [
        {
          path: [...at, "target"],
          severity: "warning" as const,
          message: `${step.target} is no declared mark of target ${task.target}, so it must be a test id on the page (umpire marks lists them)`,
          fix: hint,
        },
      ];
    });
  },
};

export const stepTargets: TaskRule = {
  name: "step-targets",
  check: (task) =>
    allSteps(task).flatMap(({ step, path: at }) => {
      const findings: RuleFinding[] = [];
      const pixels = ["x", "y"].filter((k) => k in step.args);
      if (TARGETED_TOOLS.has(step.tool) && !step.target) {
        findings.push(
          error(
            [...at, "target"],
            `a ${step.tool} step needs a target (a layout mark)`,
            "add target: <mark name>, e.g. target: search-box",
          ),
        );
      }
      if (step.target && !TARGETED_TOOLS.has(step.tool) && !TARGET_OPTIONAL_TOOLS.has(step.tool)) {
        findings.push(
          error(
            [...at, "target"],
            `target does not apply to ${step.tool}`,
            "remove target; only click, double_click and scroll aim at marks",
          ),
        );
      }
      if (pixels.length > 0 && (TARGETED_TOOLS.has(step.tool) || step.target)) {
        findings.push(
          error(
            [...at, "args"],
            `steps aim at layout marks, not pixels: remove ${pixels.map((k) => `args.${k}`).join(" and ")}`,
            "name the element with target instead",
          ),
        );
      }
      return findings;
    }),
};

/** The args a step may carry: the tool's own, minus the pixels a target replaces. */
function stepArgsSchema(step: ReferenceStep): z.ZodType {
  if (step.tool === "click" || step.tool === "double_click")
    return TOOL_ARGS[step.tool].omit({ x: true, y: true }).partial();
  return TOOL_ARGS[step.tool];
}

export const stepArgs: TaskRule = {
  name: "step-args",
  check: (task) =>
    allSteps(task).flatMap(({ step, path: at }) => {
      const { x: _x, y: _y, ...rest } = step.args;
      // x/y on a targeted step are step-targets' finding; judge the rest here.
      const args = TARGETED_TOOLS.has(step.tool) || step.target ? rest : step.args;
      const schema = stepArgsSchema(step);
      const result = schema.safeParse(args, { reportInput: true });
      if (result.success) return [];
      return plainIssues(result.error.issues, schema, args, [...at, "args"]).map((issue) => ({
        ...issue,
        severity: "error" as const,
      }));
    }),
};

export const limitsInRange: TaskRule = {
  name: "limits-in-range",
  check: (task) =>
    (Object.keys(LIMIT_RANGES) as (keyof typeof LIMIT_RANGES)[]).flatMap((key) => {
      const [min, max] = LIMIT_RANGES[key];
      const value = task.limits[key];
      return value >= min && value <= max
        ? []
        : [
            error(
              ["limits", key],
              `${value} is outside the allowed range ${min}..${max}`,
              `use a value from ${min} to ${max}`,
            ),
          ];
    }),
};

export const referenceWithinLimits: TaskRule = {
  name: "reference-within-limits",
  check: (task) => {
    const steps = task.reference.length;
    // One action a step; the reference model plays one step per turn.
    return (["actions", "turns"] as const)
      .filter((limit) => steps > task.limits[limit])
      .map((limit) =>
        error(
          ["reference"],
          `the gold trajectory takes ${steps} ${limit} but limits.${limit} is ${task.limits[limit]}`,
          `raise limits.${limit}`,
        ),
      );
  },
};

export const referenceEndsWithAnswer: TaskRule = {
  name: "reference-ends-with-answer",
  check: (task) =>
    task.tools.includes("answer") && task.reference.at(-1)?.tool !== "answer"
      ? [
          warning(
            ["reference", task.reference.length - 1],
            "the gold trajectory does not end with answer, so a trial of it runs to the turn limit",
            "end the reference with an answer step",
          ),
        ]
      : [],
};
