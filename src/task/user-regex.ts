/**
 * Every regular expression a task file declares (text matchers, page URL
 * and text checks) runs on RE2 (the `re2js` port: pure JavaScript, installed from the registry
 * with no native build), which matches in time linear in the text. JavaScript's backtracking
 * engine takes exponential time on patterns such as `(a+)+b`: one such pattern froze
 * `umpire validate` and, during a run, the whole process (every other trial with it).
 *
 * The price is RE2's syntax: no lookaround and no backreferences. A pattern that uses them is a
 * validation error that says so, naming the file and field, before any trial runs. Patterns
 * umpire writes itself (number words) stay on JavaScript's engine: they are fixed
 * and reviewed, not input.
 */
import { RE2JS } from "re2js";
import { messageOf } from "../errors.js";

export interface UserRegexMatch {
  /** UTF-16 index of the match in the searched text. */
  index: number;
  text: string;
}

export interface UserRegex {
  readonly source: string;
  /** The first match at or after `from`, or null. */
  exec(text: string, from?: number): UserRegexMatch | null;
  test(text: string): boolean;
}

/** JavaScript flags a task may declare (the schema allows i, m, s, u) mapped onto RE2's. */
function re2Flags(flags: string): number {
  let out = 0;
  if (flags.includes("i")) out |= RE2JS.CASE_INSENSITIVE;
  if (flags.includes("m")) out |= RE2JS.MULTILINE;
  if (flags.includes("s")) out |= RE2JS.DOTALL;
  // `u`: RE2 always reads the pattern and text as Unicode.
  return out;
}

/** Why RE2 cannot compile `source` (in words that name the likely cause), or undefined when it can. */
export function userRegexProblem(source: string, flags = ""): string | undefined {
  try {
    RE2JS.compile(source, re2Flags(flags));
    return undefined;
  } catch (e) {
    const message = messageOf(e);
    const hint = /\(\?<?[=!]/.test(source)
      ? " (lookahead and lookbehind are not supported: umpire runs task patterns on RE2, which matches in linear time)"
      : /\\[1-9]/.test(source)
        ? " (backreferences are not supported: umpire runs task patterns on RE2, which matches in linear time)"
        : "";
    return `${message}${hint}`;
  }
}

/** Compiles a task's pattern for linear-time matching. Throws a SyntaxError naming the pattern. */
export function compileUserRegex(source: string, flags = ""): UserRegex {
  let re: RE2JS;
  try {
    re = RE2JS.compile(source, re2Flags(flags));
  } catch {
    throw new SyntaxError(`invalid regular expression /${source}/: ${userRegexProblem(source, flags)}`);
  }
  return {
    source,
    exec(text, from = 0) {
      const m = re.matcher(text);
      if (!m.find(from)) return null;
      return { index: m.start(), text: m.group() ?? "" };
    },
    test(text) {
      return re.matcher(text).find();
    },
  };
}
