import type { CheckSpec, TextMatcher } from "./schema.js";
import { normalizeWorkspacePath, staysInWorkspace } from "./normalize.js";
import type { DataPath, RuleFinding } from "./problem.js";
import { userRegexProblem } from "./user-regex.js";
import { error, warning, isPathOrHttpUrl, type TaskRule } from "./rule.js";

export const pathsInWorkspace: TaskRule = {
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

export const regexesCompile: TaskRule = {
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

export const checksTestSomething: TaskRule = {
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
export const checksConsistent: TaskRule = {
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

export const effectsConsistent: TaskRule = {
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

export const answerToolForAnswerCheck: TaskRule = {
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
