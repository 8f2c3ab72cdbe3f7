/**
 * Problems in a check declaration that the schema alone cannot see: a path that would leave the
 * workspace, a regular expression that does not compile, an expected cricket result that cannot be
 * read, contradictory counts. Pure, so the task validator can report them (with file and dotted
 * path) before any trial runs; at run time the same declarations would crash or always fail.
 */
import type { CheckSpec, TextMatcher } from "../task/schema.js";
import { parseResult } from "./cricket.js";
import { compileRegex } from "./text-match.js";
import { workspacePathProblem } from "./workspace-path.js";

export interface DeclarationProblem {
  /** Dotted path inside the check, e.g. "contains[1].regex" (prefix it with "checks[i]."). */
  path: string;
  message: string;
}

function regexProblem(pattern: string, flags = ""): string | null {
  try {
    compileRegex(pattern, flags, false);
    return null;
  } catch (e) {
    return `${(e as Error).message}; fix the pattern (remember to escape \\ in YAML double quotes)`;
  }
}

function matcherProblems(matchers: readonly TextMatcher[] | undefined, field: string, out: DeclarationProblem[]): void {
  (matchers ?? []).forEach((m, i) => {
    if (typeof m === "string") return;
    const problem = regexProblem(m.regex, m.flags);
    if (problem) out.push({ path: `${field}[${i}].regex`, message: problem });
  });
}

/** Every problem in one check declaration; empty when it is sound. */
export function checkDeclarationProblems(spec: CheckSpec): DeclarationProblem[] {
  const out: DeclarationProblem[] = [];
  switch (spec.kind) {
    case "file": {
      const problem = workspacePathProblem(spec.path);
      if (problem) out.push({ path: "path", message: `${problem}; file checks only read inside the trial workspace` });
      matcherProblems(spec.contains, "contains", out);
      matcherProblems(spec.notContains, "notContains", out);
      if (spec.onlyRecord) {
        const p = regexProblem(spec.onlyRecord.pattern);
        if (p) out.push({ path: "onlyRecord.pattern", message: p });
        else if (!new RegExp(`^(?:${spec.onlyRecord.pattern})$`, "i").test(spec.onlyRecord.expect)) {
          out.push({ path: "onlyRecord.expect", message: `"${spec.onlyRecord.expect}" does not match the pattern /${spec.onlyRecord.pattern}/, so the check could never pass` });
        }
      }
      const hasContent = (spec.contains?.length ?? 0) + (spec.notContains?.length ?? 0) + Object.keys(spec.fields ?? {}).length > 0 || spec.onlyRecord;
      if (spec.exists === false && hasContent) {
        out.push({ path: "exists", message: "an absent file has no content to check; drop exists: false or the content conditions" });
      }
      break;
    }
    case "page": {
      if (spec.open !== undefined && (!spec.open.startsWith("/") || spec.open.startsWith("//"))) {
        out.push({ path: "open", message: `"${spec.open}" must be a path on the fixture site starting with a single "/", e.g. /notes?match=BB-042` });
      }
      if (spec.url !== undefined && typeof spec.url !== "string") {
        const p = regexProblem(spec.url.regex, spec.url.flags);
        if (p) out.push({ path: "url.regex", message: p });
      }
      if (spec.text !== undefined && typeof spec.text !== "string") {
        const p = regexProblem(spec.text.regex, spec.text.flags);
        if (p) out.push({ path: "text.regex", message: p });
      }
      if (spec.state !== undefined && spec.selector === undefined) {
        out.push({ path: "state", message: "a state needs a selector, e.g. selector: \"[data-mark=cookie-dialog]\"" });
      }
      if (spec.url === undefined && spec.selector === undefined && spec.text === undefined) {
        out.push({ path: "", message: "a page check needs at least one of url, selector or text" });
      }
      break;
    }
    case "effects": {
      (spec.require ?? []).forEach((r, i) => {
        if (r.count !== undefined && r.min !== undefined) {
          out.push({ path: `require[${i}]`, message: "give either count (exactly) or min (at least), not both" });
        }
      });
      if ((spec.require?.length ?? 0) + (spec.forbid?.length ?? 0) === 0) {
        out.push({ path: "", message: "an effects check needs at least one entry in require or forbid" });
      }
      break;
    }
    case "answer": {
      matcherProblems(spec.contains, "contains", out);
      matcherProblems(spec.notContains, "notContains", out);
      if (spec.cricket?.result !== undefined && parseResult(spec.cricket.result) === null) {
        out.push({ path: "cricket.result", message: `cannot read "${spec.cricket.result}" as a result; write e.g. "Jaipur Kites won by 6 wickets"` });
      }
      const conditions = (spec.contains?.length ?? 0) + (spec.notContains?.length ?? 0) + (spec.number ? 1 : 0) + (spec.cricket ? 1 : 0);
      if (spec.present === false && conditions > 0) {
        out.push({ path: "present", message: "present: false expects no answer, so its content conditions can never apply" });
      }
      break;
    }
  }
  return out;
}
