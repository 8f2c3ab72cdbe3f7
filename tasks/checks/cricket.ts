/**
 * The fixture suite's own checks, as custom checks: umpire's core knows nothing about cricket or
 * notes. They use only umpire's public check API (src/checks/custom-api.ts), as any app's checks
 * would, and prove that extension point by real use on all of the fixture's tasks.
 *
 * - `note`: a note in the trial workspace carries `key: value` fields (./note-fields.ts), names
 *   one record and no other (`onlyRecord`: the BB-024 trap, right scores but the wrong match),
 *   and contains (or not) some text. Confidence verified: it reads the saved artifact.
 * - `answer`: the agent's final answer states the scores as cricket scores and the same result
 *   (./cricket-notation.ts). Confidence claimed: it reads only the agent's own words.
 *
 *   - kind: custom
 *     module: ./checks/cricket.ts
 *     export: note
 *     options: { path: notes/BB-042.md, fields: { match: BB-042 }, onlyRecord: { pattern: 'BB-\d{3}', expect: BB-042 } }
 *
 * Each validates its own options when the task file is validated (the errors name the field and
 * the fix) and declares its expected values, so the instruction may not state them.
 */
import {
  checkMatchers,
  clip,
  clipList,
  compileRegex,
  DEFAULT_NORMALIZE,
  defineCheck,
  normalizeDashes,
  normalizeText,
  readWorkspaceFile,
  regexProblem,
  workspacePathProblem,
  type Evidence,
  type ExpectedValue,
  type NormalizeOptions,
  type OptionProblem,
  type TextMatcher,
} from "umpire/checks";
import { parseResult, readCricketAnswer } from "./cricket-notation.js";
import { fieldKey, fieldValueEquals, readFields } from "./note-fields.js";

type Path = (string | number)[];

/** Options shared by both checks: text the note or answer must (not) contain, and how to compare. */
interface TextOptions {
  contains?: TextMatcher[];
  notContains?: TextMatcher[];
  normalize?: Partial<NormalizeOptions>;
}

export interface NoteOptions extends TextOptions {
  /** Path inside the trial workspace, e.g. notes/BB-042.md. */
  path: string;
  /** `key: value` lines the note must carry, e.g. {match: BB-042}. */
  fields?: Record<string, string>;
  /** The note names this record and no other: `pattern` matches any record id, e.g. BB-\d{3}. */
  onlyRecord?: { pattern: string; expect: string };
}

export interface AnswerOptions extends TextOptions {
  /** Scores the answer must state, as runs/wickets, e.g. ["168/6", "169/4"]. */
  scores?: string[];
  /** The result, e.g. "Jaipur Kites won by 6 wickets". */
  result?: string;
}

function normalizeOf(options: TextOptions): NormalizeOptions {
  return { ...DEFAULT_NORMALIZE, ...(options.normalize ?? {}) };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const problem = (path: Path, message: string, fix?: string): OptionProblem => ({ path, message, fix });

/** Only the keys a check knows: a misspelt option must not be ignored silently. */
function unknownKeys(options: Record<string, unknown>, known: readonly string[]): OptionProblem[] {
  return Object.keys(options)
    .filter((k) => !known.includes(k))
    .map((k) => problem([k], `unknown option ${JSON.stringify(k)}`, `use ${known.join(", ")}`));
}

function textOptionProblems(options: Record<string, unknown>): OptionProblem[] {
  const out: OptionProblem[] = [];
  for (const key of ["contains", "notContains"] as const) {
    const list = options[key];
    if (list === undefined) continue;
    if (!Array.isArray(list)) {
      out.push(problem([key], "expected a list of text or {regex, flags}", `e.g. ${key}: [BB-042]`));
      continue;
    }
    list.forEach((m: unknown, j) => {
      if (typeof m === "string" && m !== "") return;
      if (isObject(m) && typeof m.regex === "string" && m.regex !== "" && (m.flags === undefined || (typeof m.flags === "string" && /^[imsu]*$/.test(m.flags)))) {
        const why = regexProblem(m.regex, m.flags as string | undefined);
        if (why) out.push(problem([key, j, "regex"], `the regular expression does not compile: ${why}`, "fix the pattern; in YAML, single quotes keep backslashes as written"));
        return;
      }
      out.push(problem([key, j], "expected text or {regex, flags} (flags from i, m, s, u)", "e.g. - BB-042 or - { regex: 'BB-\\d{3}' }"));
    });
  }
  if (options.normalize !== undefined) {
    if (!isObject(options.normalize)) out.push(problem(["normalize"], "expected {case, whitespace, dashes}", "e.g. normalize: { case: false }"));
    else for (const [k, v] of Object.entries(options.normalize)) {
      if (!["case", "whitespace", "dashes"].includes(k)) out.push(problem(["normalize", k], `unknown option ${JSON.stringify(k)}`, "use case, whitespace or dashes"));
      else if (typeof v !== "boolean") out.push(problem(["normalize", k], "expected true or false"));
    }
  }
  return out;
}

function containsValues(options: TextOptions): ExpectedValue[] {
  return (options.contains ?? []).flatMap((m, j) => (typeof m === "string" ? [{ path: ["contains", j], value: m }] : []));
}

const TOKEN_CHAR = /[A-Za-z0-9]/;

/**
 * Every record the note names, by the `onlyRecord` pattern (whole tokens only: BB-0421 is not
 * BB-042). RE2 has no lookaround, so the token boundary is checked around each leftmost match;
 * a match inside a longer token is skipped by searching again one character further on.
 */
function recordsNamed(text: string, pattern: string, opts: NormalizeOptions): { record: string; line: string }[] {
  const regex = compileRegex(`(?:${pattern})`, "", opts.case);
  const found: { record: string; line: string }[] = [];
  for (const line of normalizeDashes(text).split(/\r?\n/)) {
    let from = 0;
    while (from <= line.length) {
      const m = regex.exec(line, from);
      if (!m) break;
      const end = m.index + m.text.length;
      const whole = m.text.length > 0 && !TOKEN_CHAR.test(line[m.index - 1] ?? "") && !TOKEN_CHAR.test(line[end] ?? "");
      if (whole) found.push({ record: m.text, line: clip(line.trim(), 200) });
      from = whole ? end : m.index + 1;
    }
  }
  return found;
}

function judgeOnlyRecord(text: string, only: NonNullable<NoteOptions["onlyRecord"]>, opts: NormalizeOptions, failures: string[], evidence: Evidence): void {
  const { pattern, expect } = only;
  const found = recordsNamed(text, pattern, opts);
  const isExpected = (r: string) => normalizeText(r, opts) === normalizeText(expect, opts);
  const wrong = found.filter((f) => !isExpected(f.record));
  const wrongIds = [...new Set(wrong.map((w) => w.record))];
  const namesExpected = found.some((f) => isExpected(f.record));
  evidence.records = { expected: expect, named: [...new Set(found.map((f) => f.record))], wrongLines: clipList(wrong, 10).items };
  if (wrongIds.length > 0) failures.push(`names ${wrongIds.join(", ")}${namesExpected ? ` as well as ${expect}` : ` instead of ${expect}`}`);
  else if (!namesExpected) failures.push(`never names ${expect}`);
}

function judgeFields(text: string, wanted: Record<string, string>, opts: NormalizeOptions, failures: string[], evidence: Evidence): void {
  const entries = Object.entries(wanted);
  if (entries.length === 0) return;
  const fields = readFields(text);
  const seen: Record<string, string[]> = {};
  for (const [key, expected] of entries) {
    const values = fields.get(fieldKey(key)) ?? [];
    seen[key] = values;
    if (values.length === 0) {
      failures.push(`has no "${key}:" line (expected ${key}: ${expected})`);
      continue;
    }
    const wrong = values.filter((v) => !fieldValueEquals(v, expected, opts));
    if (wrong.length > 0) failures.push(`has ${key}: ${wrong[0]}, expected ${expected}`);
  }
  evidence.fields = seen;
}

const NOTE_KEYS = ["path", "fields", "onlyRecord", "contains", "notContains", "normalize"] as const;

export const note = defineCheck<NoteOptions>({
  name: (o) => `note ${o.path}`,
  confidence: "verified",
  validate(options) {
    const raw = options as unknown as Record<string, unknown>;
    const out = [...unknownKeys(raw, NOTE_KEYS), ...textOptionProblems(raw)];
    if (typeof raw.path !== "string" || raw.path.trim() === "") out.push(problem(["path"], "the note's path is missing", "e.g. path: notes/BB-042.md"));
    else {
      const why = workspacePathProblem(raw.path);
      if (why) out.push(problem(["path"], why, "use a path relative to the workspace, e.g. notes/BB-042.md"));
    }
    if (raw.fields !== undefined && (!isObject(raw.fields) || Object.values(raw.fields).some((v) => typeof v !== "string"))) {
      out.push(problem(["fields"], "expected a mapping of field names to text", "e.g. fields: { match: BB-042 }"));
    }
    const only = raw.onlyRecord;
    if (only !== undefined) {
      if (!isObject(only) || typeof only.pattern !== "string" || only.pattern === "" || typeof only.expect !== "string" || only.expect === "") {
        out.push(problem(["onlyRecord"], "expected {pattern, expect}", "e.g. onlyRecord: { pattern: 'BB-\\d{3}', expect: BB-042 }"));
      } else {
        const why = regexProblem(only.pattern);
        if (why) out.push(problem(["onlyRecord", "pattern"], `the regular expression does not compile: ${why}`, "fix the pattern"));
        else if (!compileRegex(`^(?:${only.pattern})$`, "", true).test(only.expect)) {
          out.push(problem(["onlyRecord", "expect"], `"${only.expect}" does not match the pattern /${only.pattern}/, so the check could never pass`, "make expect one of the records the pattern matches"));
        }
      }
    }
    const tests = Object.keys(isObject(raw.fields) ? raw.fields : {}).length + (Array.isArray(raw.contains) ? raw.contains.length : 0) + (Array.isArray(raw.notContains) ? raw.notContains.length : 0) + (only ? 1 : 0);
    if (tests === 0) out.push(problem([], "a note check with no fields, onlyRecord, contains or notContains tests only that the file exists", "add fields or onlyRecord, or use a file check"));
    return out;
  },
  expected: (o) => [
    ...Object.entries(o.fields ?? {}).map(([key, value]) => ({ path: ["fields", key], value })),
    ...(o.onlyRecord ? [{ path: ["onlyRecord", "expect"], value: o.onlyRecord.expect }] : []),
    ...containsValues(o),
  ],
  async judge(ctx, o) {
    const read = await readWorkspaceFile(ctx, o.path);
    if (read.status !== "read") return read.judgement;
    const opts = normalizeOf(o);
    const evidence = read.evidence;
    const failures: string[] = [];
    if (o.onlyRecord) judgeOnlyRecord(read.text, o.onlyRecord, opts, failures, evidence);
    judgeFields(read.text, o.fields ?? {}, opts, failures, evidence);
    const matchers = checkMatchers(read.text, o.contains ?? [], o.notContains ?? [], opts);
    if (matchers.details.length > 0) evidence.matchers = matchers.details;
    failures.push(...matchers.failures);
    if (failures.length > 0) return { pass: false, reason: `${o.path} ${failures.join("; ")}`, evidence };
    const fields = Object.entries(o.fields ?? {});
    const checked = [
      o.onlyRecord && `names only ${o.onlyRecord.expect}`,
      fields.length > 0 && `has ${fields.map(([k, v]) => `${k}: ${v}`).join(", ")}`,
      matchers.details.length > 0 && `matches ${matchers.details.length} text condition(s)`,
    ].filter(Boolean);
    return { pass: true, reason: `${o.path} exists${checked.length ? ` and ${checked.join("; ")}` : ""}`, evidence };
  },
});

const ANSWER_KEYS = ["scores", "result", "contains", "notContains", "normalize"] as const;
const SCORE = /^\d{1,3}\/\d{1,2}$/;

export const answer = defineCheck<AnswerOptions>({
  name: "answer (cricket)",
  confidence: "claimed",
  validate(options, site) {
    const raw = options as unknown as Record<string, unknown>;
    const out = [...unknownKeys(raw, ANSWER_KEYS), ...textOptionProblems(raw)];
    if (raw.scores !== undefined && !Array.isArray(raw.scores)) out.push(problem(["scores"], "expected a list of scores as runs/wickets", "e.g. scores: [168/6, 169/4]"));
    else (raw.scores ?? []).forEach((s: unknown, j: number) => {
      if (typeof s !== "string" || !SCORE.test(s)) out.push(problem(["scores", j], `${JSON.stringify(s)} is not a score written as runs/wickets`, "write it as runs/wickets, e.g. 168/6"));
    });
    if (raw.result !== undefined && (typeof raw.result !== "string" || !parseResult(raw.result))) {
      out.push(problem(["result"], `cannot read the expected result ${JSON.stringify(raw.result)}`, 'write e.g. "Jaipur Kites won by 6 wickets" or "Match tied"'));
    }
    const tests = (Array.isArray(raw.scores) ? raw.scores.length : 0) + (raw.result !== undefined ? 1 : 0) + (Array.isArray(raw.contains) ? raw.contains.length : 0) + (Array.isArray(raw.notContains) ? raw.notContains.length : 0);
    if (tests === 0) out.push(problem([], "an answer check with no scores, result, contains or notContains tests nothing", "add scores or result"));
    if (!site.tools.includes("answer")) {
      out.push({ ...problem([], "this check expects an answer but the task does not allow the answer tool", "add answer to tools"), severity: site.required ? "error" : "warning" });
    }
    return out;
  },
  expected: (o) => [
    ...(o.scores ?? []).map((value, j) => ({ path: ["scores", j], value })),
    ...(o.result !== undefined ? [{ path: ["result"], value: o.result }] : []),
    ...containsValues(o),
  ],
  judge(ctx, o) {
    const text = ctx.answer;
    if (text === null || text.trim() === "") return { pass: false, reason: "the agent gave no final answer", evidence: { answer: text } };
    const evidence: Evidence = { answer: clip(text) };
    const failures: string[] = [];
    const matchers = checkMatchers(text, o.contains ?? [], o.notContains ?? [], normalizeOf(o));
    if (matchers.details.length > 0) evidence.matchers = matchers.details;
    failures.push(...matchers.failures);
    const reading = readCricketAnswer(text, { scores: o.scores ?? [], result: o.result });
    evidence.cricket = { scoresFound: reading.scoresFound, resultsFound: reading.resultsFound };
    failures.push(...reading.failures);
    if (failures.length > 0) return { pass: false, reason: `the answer ${failures.join("; ")}`, evidence };
    return { pass: true, reason: "the answer states what was expected (the agent's claim only)", evidence };
  },
});
