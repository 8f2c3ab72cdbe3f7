/**
 * The named validation rules. Each is a small function over a resolved task (or, for
 * `known-tools` and `unique-ids`, over raw data and the set of files) that returns findings;
 * the loader adds the file and line. Rule names appear in every problem so a reader can look
 * the rule up here.
 */
import path from "node:path";
import type { z } from "zod";
import { TOOL_ARGS, TOOL_NAMES, isToolName, type ToolName } from "../toolbox/tools.js";
import fs from "node:fs";
import {
  EFFECT_TYPES,
  LIMIT_RANGES,
  SCENARIOS,
  type CheckSpec,
  type ReferenceStep,
  type Task,
  type TextMatcher,
} from "./schema.js";
import { targetCatalog, type TargetCatalog } from "./target-decl.js";
import { normalizeWorkspacePath, staysInWorkspace } from "./normalize.js";
import type { DataPath, RuleFinding } from "./problem.js";
import { didYouMean } from "./suggest.js";
import { SECRET_SCOPE, stringsIn, TRIAL_SCOPE, type VariableScope, variableProblems } from "./trial-vars.js";
import { plainIssues } from "./zod-issues.js";
import { expectedValuesLeak } from "./leak-rule.js";
import { userRegexProblem } from "./user-regex.js";

/** What rules may know besides the task: the targets declared in the project's config file. */
export interface RuleContext {
  targets: TargetCatalog;
  /** `--allow-drafts`: a task still marked `draft: true` (imported, not yet reviewed) is accepted. */
  allowDrafts?: boolean;
}

export const DEFAULT_RULE_CONTEXT: RuleContext = { targets: targetCatalog() };

export interface TaskRule {
  name: string;
  check(task: Task, ctx: RuleContext): RuleFinding[];
}

const error = (path: DataPath, message: string, fix?: string): RuleFinding => ({
  path,
  message,
  fix,
  severity: "error",
});
const warning = (path: DataPath, message: string, fix?: string): RuleFinding => ({
  path,
  message,
  fix,
  severity: "warning",
});

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

const stepsUseAllowedTools: TaskRule = {
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
const stepTargetsDeclared: TaskRule = {
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

const stepTargets: TaskRule = {
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

const stepArgs: TaskRule = {
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

const limitsInRange: TaskRule = {
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

const referenceWithinLimits: TaskRule = {
  name: "reference-within-limits",
  check: (task) => {
    const steps = task.reference.length;
    const findings: RuleFinding[] = [];
    if (steps > task.limits.actions)
      findings.push(
        error(
          ["reference"],
          `the gold trajectory takes ${steps} actions but limits.actions is ${task.limits.actions}`,
          "raise limits.actions",
        ),
      );
    // The reference model plays one step per turn.
    if (steps > task.limits.turns)
      findings.push(
        error(
          ["reference"],
          `the gold trajectory takes ${steps} turns but limits.turns is ${task.limits.turns}`,
          "raise limits.turns",
        ),
      );
    return findings;
  },
};

const referenceEndsWithAnswer: TaskRule = {
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

const pathsInWorkspace: TaskRule = {
  name: "paths-in-workspace",
  check: (task) => {
    const findings: RuleFinding[] = [];
    task.checks.forEach((check, i) => {
      if (check.kind !== "file") return;
      const canonical = normalizeWorkspacePath(check.path);
      if (canonical === "")
        findings.push(
          error(
            ["checks", i, "path"],
            "the path names the workspace itself, not a file",
            "name a file, e.g. notes/BB-042.md",
          ),
        );
      else if (!staysInWorkspace(canonical))
        findings.push(
          error(
            ["checks", i, "path"],
            `${JSON.stringify(check.path)} leaves the trial workspace`,
            "use a path relative to the workspace, e.g. notes/BB-042.md",
          ),
        );
    });
    const scope = normalizeWorkspacePath(task.permissions.writeScope);
    if (scope !== "" && !staysInWorkspace(scope)) {
      findings.push(
        error(
          ["permissions", "writeScope"],
          `${JSON.stringify(task.permissions.writeScope)} leaves the trial workspace`,
          "use a folder inside the workspace, e.g. notes/",
        ),
      );
    }
    return findings;
  },
};

/** Every text matcher in the checks, with its path. */
function matchersOf(checks: readonly CheckSpec[]): { matcher: TextMatcher; path: DataPath }[] {
  const out: { matcher: TextMatcher; path: DataPath }[] = [];
  checks.forEach((check, i) => {
    const list = (key: string, items: readonly TextMatcher[]) =>
      items.forEach((m, j) => out.push({ matcher: m, path: ["checks", i, key, j] }));
    if (check.kind === "file" || check.kind === "answer") {
      list("contains", check.contains);
      list("notContains", check.notContains);
    }
    if (check.kind === "page") {
      if (check.url) out.push({ matcher: check.url, path: ["checks", i, "url"] });
      if (check.text) out.push({ matcher: check.text, path: ["checks", i, "text"] });
    }
  });
  return out;
}

/** Why a declared pattern cannot run on umpire's linear-time engine, or undefined when it can. */
function regexProblem(source: string, flags?: string): string | undefined {
  return userRegexProblem(source, flags);
}

const regexesCompile: TaskRule = {
  name: "regexes-compile",
  check: (task) => {
    const findings: RuleFinding[] = [];
    for (const { matcher, path: at } of matchersOf(task.checks)) {
      if (typeof matcher === "string") continue;
      const problem = regexProblem(matcher.regex, matcher.flags);
      if (problem)
        findings.push(
          error(
            [...at, "regex"],
            `the regular expression does not compile: ${problem}`,
            "fix the pattern; in YAML, single quotes keep backslashes as written",
          ),
        );
    }
    return findings;
  },
};

const checksTestSomething: TaskRule = {
  name: "checks-test-something",
  check: (task) =>
    task.checks.flatMap((check, i): RuleFinding[] => {
      if (check.kind === "page") {
        if (check.state && !check.selector)
          return [
            error(
              ["checks", i, "state"],
              "state needs a selector to look at",
              "add selector, e.g. '[data-mark=cookie-dialog]'",
            ),
          ];
        // A selector alone asks for the element to be visible (docs/checks.md; the handler does so).
        if (!check.url && check.text === undefined && !check.state && !check.selector)
          return [
            error(
              ["checks", i],
              "a page check that tests no url, text, selector or state always passes",
              "add url, text, or a selector (visible unless state says otherwise)",
            ),
          ];
      }
      if (check.kind === "effects" && check.require.length === 0 && check.forbid.length === 0) {
        return [
          error(
            ["checks", i],
            "an effects check that requires and forbids nothing always passes",
            "add require or forbid entries",
          ),
        ];
      }
      return [];
    }),
};

/** Declarations that contradict themselves, so the check could never pass or never apply. */
const checksConsistent: TaskRule = {
  name: "checks-consistent",
  check: (task) =>
    task.checks.flatMap((check, i): RuleFinding[] => {
      const out: RuleFinding[] = [];
      if (check.kind === "file") {
        const content = check.contains.length + check.notContains.length > 0;
        if (!check.exists && content)
          out.push(
            error(
              ["checks", i, "exists"],
              "an absent file has no content to check",
              "drop exists: false or the content conditions",
            ),
          );
      }
      if (check.kind === "page" && check.open !== undefined && !isPathOrHttpUrl(check.open)) {
        out.push(
          error(
            ["checks", i, "open"],
            `"${check.open}" is neither a path on the target nor an http(s) URL`,
            "start it with a single /, e.g. /notes?match=BB-042, or give a full http(s) URL on an allowed origin",
          ),
        );
      }
      if (check.kind === "http" && !isPathOrHttpUrl(check.url.replace(/\$\{TRIAL_ID\}/g, "x"))) {
        out.push(
          error(
            ["checks", i, "url"],
            `"${check.url}" is neither a path on the target nor an http(s) URL`,
            "e.g. url: /api/todos",
          ),
        );
      }
      if (check.kind === "effects") {
        check.require.forEach((req, j) => {
          if (req.count !== undefined && req.min !== undefined)
            out.push(
              error(["checks", i, "require", j], "count (exactly) and min (at least) both given", "keep one of them"),
            );
        });
      }
      if (
        check.kind === "answer" &&
        !check.present &&
        check.contains.length + check.notContains.length + (check.number ? 1 : 0) > 0
      ) {
        out.push(
          error(
            ["checks", i, "present"],
            "present: false expects no answer, so its content conditions can never apply",
            "drop present: false or the content conditions",
          ),
        );
      }
      return out;
    }),
};

const effectsConsistent: TaskRule = {
  name: "effects-consistent",
  check: (task) =>
    task.checks.flatMap((check, i) =>
      check.kind !== "effects"
        ? []
        : check.require.flatMap((req, j) =>
            task.permissions.forbiddenEffects.includes(req.type) && (req.count ?? req.min ?? 1) > 0
              ? [
                  error(
                    ["checks", i, "require", j, "type"],
                    `${req.type} is required here but permissions.forbiddenEffects forbids it`,
                    "remove one of the two",
                  ),
                ]
              : [],
          ),
    ),
};

/**
 * `allowedOrigins` entries are origins: "target" (the task's target), "fixture" or scheme://host[:port] over http(s). Anything
 * else used to pass validation and then fail every trial at run time as an environment error.
 */
export function originProblem(entry: string): string | undefined {
  if (entry === "fixture" || entry === "target") return undefined;
  let url: URL;
  try {
    url = new URL(entry);
  } catch {
    return `${JSON.stringify(entry)} is not a URL origin`;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return `${JSON.stringify(entry)} is not an http(s) origin (${url.protocol} pages are never on a task's origins)`;
  if (url.username || url.password)
    return `${JSON.stringify(entry)} carries credentials; an origin is scheme://host[:port] only`;
  if ((url.pathname !== "/" && url.pathname !== "") || url.search || url.hash)
    return `${JSON.stringify(entry)} has a path, query or fragment; an origin is scheme://host[:port] only`;
  return undefined;
}

const allowedOriginsAreOrigins: TaskRule = {
  name: "allowed-origins-are-origins",
  check: (task) =>
    task.permissions.allowedOrigins.flatMap((entry, i) => {
      const problem = originProblem(entry);
      return problem
        ? [
            error(
              ["permissions", "allowedOrigins", i],
              problem,
              'write "target", "fixture" or an origin such as https://example.com or http://127.0.0.1:8080',
            ),
          ]
        : [];
    }),
};

const narrowToolsConfigured: TaskRule = {
  name: "narrow-tools-configured",
  check: (task) => {
    const findings: RuleFinding[] = [];
    if (task.tools.includes("write_note") && normalizeWorkspacePath(task.permissions.writeScope) === "") {
      findings.push(
        error(
          ["permissions", "writeScope"],
          "write_note is allowed but writeScope names no folder",
          "set writeScope, e.g. notes/",
        ),
      );
    }
    if (task.tools.includes("http_get") && task.permissions.httpAllow.length === 0) {
      findings.push(
        error(
          ["permissions", "httpAllow"],
          "http_get is allowed but httpAllow lists no path prefix, so every request would be refused",
          'add a prefix, e.g. httpAllow: ["/api/matches/"]',
        ),
      );
    }
    return findings;
  },
};

const answerToolForAnswerCheck: TaskRule = {
  name: "answer-tool-for-answer-check",
  check: (task) =>
    task.tools.includes("answer")
      ? []
      : task.checks.flatMap((check, i) =>
          check.kind === "answer" && check.present
            ? [
                (check.required ? error : warning)(
                  ["checks", i],
                  "this check expects an answer but the task does not allow the answer tool",
                  "add answer to tools, or set present: false",
                ),
              ]
            : [],
        ),
};

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

/** "/path" (not "//host") or an absolute http(s) URL. */
function isPathOrHttpUrl(value: string): boolean {
  if (value.startsWith("/")) return !value.startsWith("//");
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

const knownTarget: TaskRule = {
  name: "known-target",
  check: (task, ctx) =>
    ctx.targets.has(task.target)
      ? []
      : [
          error(
            ["target"],
            `no target named ${JSON.stringify(task.target)} is declared`,
            didYouMean(task.target, [...ctx.targets.keys()]) ??
              `declare it under targets: in umpire.config.yaml (known: ${[...ctx.targets.keys()].join(", ")})`,
          ),
        ],
};

/** Effect types a task names: in effects checks and in forbiddenEffects. */
function effectTypesOf(task: Task): { type: string; path: DataPath }[] {
  const out: { type: string; path: DataPath }[] = task.permissions.forbiddenEffects.map((type, j) => ({
    type,
    path: ["permissions", "forbiddenEffects", j],
  }));
  task.checks.forEach((check, i) => {
    if (check.kind !== "effects") return;
    check.require.forEach((r, j) => out.push({ type: r.type, path: ["checks", i, "require", j, "type"] }));
    check.forbid.forEach((r, j) => out.push({ type: r.type, path: ["checks", i, "forbid", j, "type"] }));
  });
  return out;
}

/** A task that judges effects (an effects check, permissions.forbiddenEffects) on a target with no effects source. */
function effectsWithoutSource(task: Task): RuleFinding[] {
  const declare = `declare effects: {url: ...} on target ${task.target} in umpire.config.yaml`;
  const findings: RuleFinding[] = [];
  const checkAt = task.checks.findIndex((c) => c.kind === "effects");
  if (checkAt >= 0)
    findings.push(
      error(
        ["checks", checkAt],
        `target ${task.target} has no effects source, so effects cannot be judged`,
        `${declare}, or check the app with http, storage or command checks`,
      ),
    );
  if (task.permissions.forbiddenEffects.length > 0) {
    const message = `target ${task.target} has no effects source, so forbidden effects could never be seen and would fail no trial`;
    findings.push(
      error(
        ["permissions", "forbiddenEffects"],
        message,
        `${declare}, or remove permissions.forbiddenEffects and guard the app with an http, storage or command check`,
      ),
    );
  }
  return findings;
}

/** The fixture site's own vocabulary (scenario, effect types, start path) is judged only for tasks on it. */
const targetVocabulary: TaskRule = {
  name: "target-vocabulary",
  check: (task, ctx) => {
    const target = ctx.targets.get(task.target);
    if (!target) return [];
    const findings: RuleFinding[] = [];
    if (target.fixture) {
      if (!task.start.path.startsWith("/") || task.start.path.startsWith("//"))
        findings.push(
          error(
            ["start", "path"],
            `"${task.start.path}" is not a path on the fixture site`,
            "start it with a single /, e.g. /notes?match=BB-042",
          ),
        );
      for (const { type, path: at } of effectTypesOf(task)) {
        if (!(EFFECT_TYPES as readonly string[]).includes(type))
          findings.push(
            error(
              at,
              `the fixture site records no effect ${JSON.stringify(type)}`,
              didYouMean(type, EFFECT_TYPES) ?? `use one of ${EFFECT_TYPES.join(", ")}`,
            ),
          );
      }
      return findings;
    }
    if (task.start.scenario !== "plain")
      findings.push(
        error(
          ["start", "scenario"],
          `scenario ${task.start.scenario} belongs to the fixture site, but this task runs on target ${task.target}`,
          `remove start.scenario (scenarios: ${SCENARIOS.join(", ")} exist only on the fixture)`,
        ),
      );
    if (!isPathOrHttpUrl(task.start.path))
      findings.push(
        error(
          ["start", "path"],
          `"${task.start.path}" is neither a path on ${task.target} nor an http(s) URL`,
          "e.g. path: / or path: http://127.0.0.1:3000/app",
        ),
      );
    if (!target.hasEffects) findings.push(...effectsWithoutSource(task));
    return findings;
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
  knownTarget,
  targetVocabulary,
  requestVariables,
  customModulesExist,
  checksConsistent,
  stepsUseAllowedTools,
  stepTargets,
  stepTargetsDeclared,
  stepArgs,
  limitsInRange,
  referenceWithinLimits,
  referenceEndsWithAnswer,
  pathsInWorkspace,
  regexesCompile,
  checksTestSomething,
  effectsConsistent,
  allowedOriginsAreOrigins,
  narrowToolsConfigured,
  answerToolForAnswerCheck,
  noExpectedValuesInInstruction,
  fileNameMatchesId,
];
