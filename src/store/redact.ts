/**
 * Removes secrets from a run's options before they are stored. The CLI should never pass a key
 * here in the first place; this is the second line of defence, because a database is shared,
 * merged and attached to CI artifacts, and a key written there is leaked for good.
 */

/** Property names that hold credentials (api key, token, secret, password, authorization, cookie). */
const SECRET_NAME =
  /(api[-_]?key|apikey|secret|password|passwd|token|authorization|auth[-_]?header|cookie|credential|bearer)/i;

/** Values that look like a credential even under an innocent name. */
const SECRET_VALUE = /^(sk-[A-Za-z0-9_-]{8,}|Bearer\s+\S+|hai[-_][A-Za-z0-9_-]{8,})$/i;

/** The redaction marker left in place of a removed value, so readers know something was there. */
export const REDACTED = "[redacted]";

/**
 * A deep copy of `value` with every secret-looking property replaced by `[redacted]`.
 * Names that end in `Env` (e.g. `apiKeyEnv: "HAI_API_KEY"`) name an environment variable, not a
 * secret, and are kept.
 */
export function redactSecrets<T>(value: T): T {
  return redact(value) as T;
}

function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (typeof value === "string") return SECRET_VALUE.test(value.trim()) ? REDACTED : value;
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
    const namesEnvVar = /env$/i.test(key) && typeof inner === "string";
    // Token counts and budgets (maxTokens, "max-tokens", tokens) are numbers about usage, not credentials.
    const countsTokens = /tokens$/i.test(key) && typeof inner !== "string";
    out[key] =
      SECRET_NAME.test(key) && !namesEnvVar && !countsTokens && inner !== null && inner !== undefined
        ? REDACTED
        : redact(inner);
  }
  return out;
}
