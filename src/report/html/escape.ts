/**
 * Escaping for the HTML report. Everything that reaches a page from a run (model output, page
 * text, action arguments, executor messages, check reasons and evidence, task titles, even ids)
 * goes through one of these; templates never concatenate raw strings.
 */

const HTML_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
  // NUL is a parse error in HTML; show the replacement character instead.
  "\u0000": "\uFFFD",
};

const NEEDS_ESCAPE = /[&<>"'\u0000]/;
const ESCAPABLE = /[&<>"'\u0000]/g;

/**
 * Escapes text for an HTML text node or a quoted attribute value: `<img onerror=...>` comes
 * out as the characters `<img onerror=...>`, never as markup. Non-strings are stringified;
 * null and undefined become the empty string.
 */
export function escapeHtml(value: unknown): string {
  if (value === null || value === undefined) return "";
  const text = String(value);
  // Most values (ids, numbers, labels) need nothing: skip the replace pass for them.
  return NEEDS_ESCAPE.test(text) ? text.replace(ESCAPABLE, (c) => HTML_ESCAPES[c]!) : text;
}

/**
 * A tagged template that escapes every interpolated value unless it is already `Raw` markup
 * (what this template returns), so fragments nest without double escaping and a plain string
 * can never slip into a page unescaped. Arrays are joined; null, undefined and false vanish.
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Raw {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += interpolate(values[i]) + strings[i + 1]!;
  return new Raw(out);
}

/** Markup built by `html` (already escaped), which must not be escaped again. */
export class Raw {
  constructor(readonly markup: string) {}
  toString(): string {
    return this.markup;
  }
}

/** Trusted markup written by the report itself (never for run data). */
export function raw(markup: string): Raw {
  return new Raw(markup);
}

function interpolate(value: unknown): string {
  if (value instanceof Raw) return value.markup;
  if (Array.isArray(value)) return value.map(interpolate).join("");
  if (value === false) return "";
  return escapeHtml(value);
}
