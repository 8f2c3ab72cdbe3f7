/**
 * Size limits for evidence. Evidence is stored with every trial and shown in reports, so it is
 * kept to what a person needs to see: an excerpt, not the whole file or page.
 */

/** Longest text kept for any single evidence string (file excerpt, page text). */
export const MAX_EVIDENCE_CHARS = 2_000;
/** Most list entries (effects, matches) kept in evidence. */
export const MAX_EVIDENCE_ITEMS = 50;

/** Cuts `text` to `max` characters, saying how much was left out. */
export function clip(text: string, max: number = MAX_EVIDENCE_CHARS): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… [${text.length - max} more characters]`;
}

/** The text around `index` (a match position), with ellipses where it was cut. */
export function excerptAround(text: string, index: number, length: number, radius = 80): string {
  const start = Math.max(0, index - radius);
  const end = Math.min(text.length, index + length + radius);
  return `${start > 0 ? "…" : ""}${text.slice(start, end)}${end < text.length ? "…" : ""}`;
}

/** Keeps at most `max` items, noting how many were dropped. */
export function clipList<T>(items: readonly T[], max: number = MAX_EVIDENCE_ITEMS): { items: T[]; omitted: number } {
  return { items: items.slice(0, max), omitted: Math.max(0, items.length - max) };
}
