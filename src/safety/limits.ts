/**
 * Size caps for untrusted text (model output, error bodies, tool outputs) before it is stored,
 * logged or echoed back to the model. A cap keeps the start of the text and says, in the text
 * itself, how much was cut, so a reader of the record knows it is not the whole.
 */

/** One model output field (note, thought, content, reasoning) as stored per turn and sent back. */
export const FIELD_LIMIT = 64 * 1024;
/** An HTTP error body kept for the message and the log. */
export const ERROR_BODY_LIMIT = 4 * 1024;
/** Any single string in an events.jsonl record. */
export const LOG_STRING_LIMIT = 64 * 1024;

/** The marker appended to a cut text; `isTruncated` looks for it. */
export function truncationMarker(omitted: number): string {
  return `\n[truncated by umpire: ${omitted} more characters not kept]`;
}

/** `text` cut to `limit` characters plus a marker, or `text` itself when it fits. */
export function capText(text: string, limit: number): string {
  if (text.length <= limit) return text;
  return text.slice(0, limit) + truncationMarker(text.length - limit);
}

/** `capText` for nullable fields; also reports whether it cut. */
export function capField(text: string | null | undefined, limit = FIELD_LIMIT): { text: string | null; cut: number } {
  if (text === null || text === undefined) return { text: null, cut: 0 };
  return text.length > limit ? { text: capText(text, limit), cut: text.length - limit } : { text, cut: 0 };
}

/** A deep copy with every string longer than `limit` cut; `paths` lists where (dotted) it cut. */
export function capDeep<T>(value: T, limit = LOG_STRING_LIMIT): { value: T; paths: string[] } {
  const paths: string[] = [];
  const walk = (v: unknown, path: string): unknown => {
    if (typeof v === "string") {
      if (v.length <= limit) return v;
      paths.push(path || "(value)");
      return capText(v, limit);
    }
    if (Array.isArray(v)) return v.map((x, i) => walk(x, `${path}[${i}]`));
    if (v === null || typeof v !== "object" || ArrayBuffer.isView(v) || v instanceof Date) return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = walk(x, path ? `${path}.${k}` : k);
    return out;
  };
  const capped = walk(value, "") as T;
  return { value: paths.length ? capped : value, paths };
}
