/**
 * Reading numbers out of prose: digits ("1,234.5", "-3") and English number words up to
 * ninety-nine ("six", "twenty-one"), which is how people write small counts (a margin, a number of items).
 */
import { normalizeDashes } from "./text-match.js";

const SMALL: Record<string, number> = {
  zero: 0,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
};
const TENS: Record<string, number> = {
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
};

const byLengthDesc = (a: string, b: string) => b.length - a.length;
const SMALL_ALT = Object.keys(SMALL)
  .filter((w) => w !== "zero")
  .sort(byLengthDesc)
  .join("|");
const TENS_ALT = Object.keys(TENS).sort(byLengthDesc).join("|");

/**
 * A regex source (no groups) for one number word: "six", "nineteen", "twenty", "twenty-one",
 * "twenty one". Longer words come first so "seventeen" is not read as "seven".
 */
export const NUMBER_WORD_SOURCE = `(?:(?:${TENS_ALT})(?:[- ](?:one|two|three|four|five|six|seven|eight|nine))?|${SMALL_ALT}|zero)`;

/** The value of a number word ("six" -> 6, "twenty-one" -> 21), or null if it is not one. */
export function parseNumberWord(word: string): number | null {
  const w = word.trim().toLowerCase().replace(/\s+/g, " ");
  if (w in SMALL) return SMALL[w];
  if (w in TENS) return TENS[w];
  const m = /^([a-z]+)[- ]([a-z]+)$/.exec(w);
  if (m && m[1] in TENS && m[2] in SMALL && SMALL[m[2]] > 0 && SMALL[m[2]] < 10) return TENS[m[1]] + SMALL[m[2]];
  return null;
}

/** A number token: digits, or a number word. Returns null for anything else. */
export function parseNumberToken(token: string): number | null {
  if (/^\d+$/.test(token.trim())) return Number(token.trim());
  return parseNumberWord(token);
}

export interface NumberMention {
  value: number;
  text: string;
  index: number;
}

/**
 * Every number stated in `text`, in order. "168/6" yields 168 and 6 (never 28: a slash is not
 * read as division); "1,234" yields 1234; "six" yields 6. A '-' counts as a sign only at the start
 * of a word, so "BB-042" yields 42 and "2024-05-12" yields 2024, 5 and 12.
 */
export function findNumbers(text: string): NumberMention[] {
  const source = normalizeDashes(text);
  const pattern = new RegExp(
    `(?<![\\w.,])(-?)(\\d{1,3}(?:,\\d{3})+|\\d+)(\\.\\d+)?(?![\\w])|\\b(${NUMBER_WORD_SOURCE})\\b`,
    "gi",
  );
  const out: NumberMention[] = [];
  for (const m of source.matchAll(pattern)) {
    if (m[4] !== undefined) {
      const value = parseNumberWord(m[4]);
      if (value !== null) out.push({ value, text: m[0], index: m.index });
      continue;
    }
    // A '-' directly after a letter or digit is a separator ("BB-042", "168-6"), not a sign.
    const before = m.index > 0 ? source[m.index - 1] : " ";
    const signed = m[1] === "-" && !/[\w]/.test(before);
    const magnitude = Number(`${m[2].replace(/,/g, "")}${m[3] ?? ""}`);
    out.push({ value: signed ? -magnitude : magnitude, text: signed ? m[0] : m[0].replace(/^-/, ""), index: m.index });
  }
  return out;
}
