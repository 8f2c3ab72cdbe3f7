/**
 * Reading `key: value` fields out of a note, the way people and models actually write them:
 * `match: BB-042`, `- **match:** BB-042`, `**Match**: BB-042`, `## Result: ...`, `> score: ...`,
 * or a two-column markdown table row `| match | BB-042 |`. Keys compare case-insensitively, with
 * '_', '-' and spaces treated alike ("Match ID" = "match_id"). Used by the fixture suite's note
 * check (./cricket.ts) through umpire's public check API only.
 */
import { normalizeText, type NormalizeOptions } from "umpire/checks";

/** Canonical form of a field key: lower case, separators collapsed to one space. */
export function fieldKey(key: string): string {
  return key
    .replace(/[*_`]+/g, " ")
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, " ");
}

/** Markdown emphasis, code ticks and quotes around a value or key. */
const WRAPPING = /^[\s*_`"'“”‘’]+|[\s*_`"'“”‘’]+$/g;
/** A plausible key: short, starting with a letter, made of words. */
const KEY_SHAPE = /^[\p{L}][\p{L}\p{N} _-]{0,39}$/u;

function fieldFromTableRow(line: string): [string, string] | null {
  const cells = line.slice(1, line.endsWith("|") ? -1 : undefined).split("|").map((c) => c.trim());
  if (cells.length !== 2 || cells.every((c) => /^:?-{2,}:?$/.test(c))) return null;
  return [cells[0], cells[1]];
}

function fieldFromLine(raw: string): [string, string] | null {
  let line = raw.trim();
  if (line.startsWith("|")) return fieldFromTableRow(line);
  line = line
    .replace(/^(?:>\s*)+/, "") // block quote
    .replace(/^#{1,6}\s+/, "") // heading
    .replace(/^(?:[-*+]|\d+[.)])\s+/, ""); // list item
  // The separating colon is followed by white space, the end, or markdown (`**match:** x`);
  // "12:30" and "https://" are not fields.
  const colon = line.search(/:(?=[\s*_`]|$)/);
  if (colon <= 0) return null;
  return [line.slice(0, colon), line.slice(colon + 1)];
}

/**
 * Every field in `text`, keyed by canonical key, each with all its values in order (a note may
 * state a field twice, possibly differently; the check sees both).
 */
export function readFields(text: string): Map<string, string[]> {
  const fields = new Map<string, string[]>();
  for (const line of text.split(/\r?\n/)) {
    const pair = fieldFromLine(line);
    if (!pair) continue;
    const rawKey = pair[0].replace(WRAPPING, "");
    if (!KEY_SHAPE.test(rawKey)) continue;
    const value = pair[1].replace(WRAPPING, "");
    const key = fieldKey(rawKey);
    fields.set(key, [...(fields.get(key) ?? []), value]);
  }
  return fields;
}

/**
 * Whether a field's value says `expected`: equal after normalisation, ignoring markdown emphasis,
 * surrounding quotes and trailing sentence punctuation ("Jaipur Kites won by 6 wickets.").
 */
export function fieldValueEquals(value: string, expected: string, opts: NormalizeOptions): boolean {
  const clean = (s: string) => normalizeText(s.replace(WRAPPING, "").replace(/[.;,!]+$/, "").replace(WRAPPING, ""), opts);
  return clean(value) === clean(expected);
}
