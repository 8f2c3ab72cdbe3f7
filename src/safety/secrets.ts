/**
 * The secrets umpire was given (API key values, credentials inside a base URL), and one function
 * that removes them from any text. The CLI registers them as soon as it reads them; every sink
 * (the store, the trial log, the terminal) scrubs what it writes. A registry instead of a
 * parameter threaded through every layer: a secret can surface anywhere (an error body that
 * echoes the key, a stack message that quotes the URL), so the sinks, not the sources, enforce it.
 */

/** What replaces a secret: says something was there without saying what. */
export const REDACTED = "[redacted]";

/** Values shorter than this are not scrubbed: a one-letter "key" would erase every such letter. */
const MIN_SECRET_LENGTH = 4;

const secrets = new Set<string>();
let pattern: RegExp | null = null;

/**
 * Registers a secret value and the encodings umpire itself produces of it: as a query value
 * (`encodeURIComponent`, and `URLSearchParams`' form encoding, which the model client and the
 * preflight use), and as a JSON string (an echo stored in a JSON column or log line). A Bearer
 * header is the value itself after `Bearer `, so the value covers it. Ignores very short values.
 */
export function registerSecret(value: string | undefined | null): void {
  if (!value || value.length < MIN_SECRET_LENGTH) return;
  const before = secrets.size;
  const forms = [
    value,
    encodeURIComponent(value),
    new URLSearchParams({ k: value }).toString().slice(2),
    JSON.stringify(value).slice(1, -1),
  ];
  for (const form of forms) secrets.add(form);
  if (secrets.size !== before) pattern = null;
}

/**
 * Registers the Basic authorization umpire sends for user info in a base URL
 * (`base64(user:password)`, as `splitBaseUrl` makes it): an endpoint that echoes its headers
 * would otherwise hand the key back in a form no plain match finds. Registered without its `=`
 * padding, so a copy that lost the padding is caught too.
 */
export function registerBasicAuth(user: string, password: string): void {
  if (!user && !password) return;
  const encoded = Buffer.from(`${user}:${password}`).toString("base64").replace(/=+$/, "");
  if (encoded.length < MIN_SECRET_LENGTH) return;
  if (!secrets.has(encoded)) {
    secrets.add(encoded);
    pattern = null;
  }
}

/**
 * Registers the credentials a URL carries: user name, password, and every query value (people
 * put `?key=...` there). Tolerates a string that is not a URL (then nothing is registered).
 */
export function registerUrlSecrets(raw: string | undefined): void {
  if (!raw) return;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return;
  }
  // `user:password@`: the password is the secret. `key@` (no password): the user part is the key.
  const secret = url.password || url.username;
  registerSecret(secret);
  registerSecret(safeDecode(secret));
  registerBasicAuth(safeDecode(url.username), safeDecode(url.password));
  for (const [, value] of url.searchParams) registerSecret(value);
  if (url.search.length > 1) registerSecret(url.search.slice(1));
}

/** Forgets every registered secret (tests that run commands in one process). */
export function clearSecrets(): void {
  secrets.clear();
  pattern = null;
}

/** `text` with every registered secret replaced by `[redacted]`. */
export function scrub(text: string): string {
  if (secrets.size === 0) return text;
  pattern ??= new RegExp(
    [...secrets]
      .sort((a, b) => b.length - a.length)
      .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join("|"),
    "g",
  );
  return text.replace(pattern, REDACTED);
}

/** A deep copy of `value` with every string value scrubbed (keys are umpire's own names); the value itself when no secret is known. */
export function scrubDeep<T>(value: T): T {
  if (secrets.size === 0) return value;
  return walk(value) as T;
}

function walk(value: unknown): unknown {
  if (typeof value === "string") return scrub(value);
  if (Array.isArray(value)) return value.map(walk);
  if (value === null || typeof value !== "object" || Buffer.isBuffer(value) || ArrayBuffer.isView(value)) return value;
  if (value instanceof Date) return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value as Record<string, unknown>)) out[key] = walk(inner);
  return out;
}

/** `raw` without user info, query or fragment: the form of a base URL that may be stored or printed. */
export function withoutUrlCredentials(raw: string): string {
  try {
    const url = new URL(raw);
    url.username = "";
    url.password = "";
    url.search = "";
    url.hash = "";
    return url.toString().replace(/\/$/, "");
  } catch {
    return scrub(raw);
  }
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
