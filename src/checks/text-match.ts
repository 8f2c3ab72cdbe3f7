/**
 * Text normalisation and `TextMatcher` evaluation, shared by the file, page and answer checks.
 *
 * Plain-text matchers compare after normalising both sides (case, white space, unicode dashes, as
 * the spec's `normalize` says). Regex matchers run on the text with only dashes normalised, so a
 * pattern can still use `\n`, `^` and `$`; `normalize.case` adds the `i` flag instead of
 * lower-casing, so a pattern like `BB-\d{3}` keeps working.
 */
import type { z } from "zod";
import type { Normalize, TextMatcher } from "../task/schema.js";
import { compileUserRegex, type UserRegex } from "../task/user-regex.js";
import { collapseWhitespace } from "../safety/whitespace.js";
import { excerptAround } from "./evidence.js";

export type NormalizeOptions = z.output<typeof Normalize>;

export const DEFAULT_NORMALIZE: NormalizeOptions = { case: true, whitespace: true, dashes: true };

/**
 * Hyphens, dashes and minus signs a person reads as '-': U+2010..2015 (hyphen, non-breaking
 * hyphen, figure dash, en dash, em dash, horizontal bar), U+2043, U+2212 (minus), U+FE58, U+FE63,
 * U+FF0D. Models and word processors substitute these freely ("BB–042", "−3").
 */
const DASHES = /[\u2010-\u2015\u2043\u2212\uFE58\uFE63\uFF0D]/g;
const SOFT_HYPHEN = /\u00AD/g;
/** Zero-width characters that make equal-looking text compare unequal. */
const ZERO_WIDTH = /[\u200B-\u200D\u2060\uFEFF]/g;

/** Maps unicode dashes and minus signs to '-' and drops soft hyphens. */
export function normalizeDashes(text: string): string {
  return text.replace(SOFT_HYPHEN, "").replace(DASHES, "-");
}

/** Normalises text for comparison as `opts` says. Always applies unicode NFC composition. */
export function normalizeText(text: string, opts: NormalizeOptions = DEFAULT_NORMALIZE): string {
  let out = text.normalize("NFC");
  if (opts.dashes) out = normalizeDashes(out);
  if (opts.whitespace) out = collapseWhitespace(out.replace(ZERO_WIDTH, "")).trim();
  if (opts.case) out = out.toLowerCase();
  return out;
}

/** How a matcher is written in reasons: `"169/4"` or `/BB-\d{3}/i`. */
export function describeMatcher(matcher: TextMatcher): string {
  return typeof matcher === "string" ? JSON.stringify(matcher) : `/${matcher.regex}/${matcher.flags ?? ""}`;
}

/**
 * Compiles a task's regex for linear-time matching (RE2, see task/user-regex.ts), adding `i` when
 * matching is case-insensitive. Throws a SyntaxError naming the pattern when it is invalid
 * (declaration checks catch this earlier).
 */
export function compileRegex(pattern: string, flags: string, caseInsensitive: boolean): UserRegex {
  const all = new Set(flags.split(""));
  if (caseInsensitive) all.add("i");
  return compileUserRegex(pattern, [...all].join(""));
}

export interface TextFound {
  /** The text that matched, as it appears in the (normalised) text searched. */
  matched: string;
  /** The match with some context around it. */
  excerpt: string;
}

/** Finds `matcher` in `text`; null when it does not occur. */
export function findText(
  text: string,
  matcher: TextMatcher,
  opts: NormalizeOptions = DEFAULT_NORMALIZE,
): TextFound | null {
  if (typeof matcher === "string") {
    const haystack = normalizeText(text, opts);
    const needle = normalizeText(matcher, opts);
    const index = haystack.indexOf(needle);
    if (index < 0) return null;
    // Show the excerpt in its original case when lower-casing kept every position in place.
    const display = opts.case ? normalizeText(text, { ...opts, case: false }) : haystack;
    const shown = display.length === haystack.length ? display : haystack;
    return { matched: shown.slice(index, index + needle.length), excerpt: excerptAround(shown, index, needle.length) };
  }
  const haystack = opts.dashes ? normalizeDashes(text.normalize("NFC")) : text.normalize("NFC");
  const regex = compileRegex(matcher.regex, matcher.flags ?? "", opts.case);
  const m = regex.exec(haystack);
  if (!m) return null;
  return { matched: m.text, excerpt: excerptAround(haystack, m.index, m.text.length) };
}

/** The outcome of checking a list of `contains` / `notContains` matchers against one text. */
export interface MatcherReport {
  /** Human-readable failures, e.g. `does not contain "169/4"`. */
  failures: string[];
  /** One entry per matcher: what was looked for and, if found, where. */
  details: { matcher: string; expected: "present" | "absent"; found: string | null; pass: boolean }[];
}

/** Checks that every `contains` matcher occurs and no `notContains` matcher does. */
export function checkMatchers(
  text: string,
  contains: readonly TextMatcher[],
  notContains: readonly TextMatcher[],
  opts: NormalizeOptions,
): MatcherReport {
  const report: MatcherReport = { failures: [], details: [] };
  for (const matcher of contains) {
    const found = findText(text, matcher, opts);
    report.details.push({
      matcher: describeMatcher(matcher),
      expected: "present",
      found: found?.excerpt ?? null,
      pass: !!found,
    });
    if (!found) report.failures.push(`does not contain ${describeMatcher(matcher)}`);
  }
  for (const matcher of notContains) {
    const found = findText(text, matcher, opts);
    report.details.push({
      matcher: describeMatcher(matcher),
      expected: "absent",
      found: found?.excerpt ?? null,
      pass: !found,
    });
    if (found) report.failures.push(`contains ${describeMatcher(matcher)} ("${found.matched}"), which it must not`);
  }
  return report;
}
