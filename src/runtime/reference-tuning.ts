/**
 * How the embedded reference model of `umpire run` / `validate --self-test` is tuned for
 * throughput work: the `latency` profile's wait and a rate limit, read from environment
 * variables (benchmarks and tests set them; a user never needs them to judge an agent, so
 * they stay off the option table). `umpire serve-model` takes the same settings as flags.
 */
import { UmpireError } from "../errors.js";
import { DEFAULT_RATE_WINDOW_MS } from "../sim/rate-limit.js";
import type { ReferenceModelOptions } from "../sim/server.js";

export type ReferenceTuning = Pick<ReferenceModelOptions, "turnLatencyMs" | "jitterMs" | "rateLimit">;

export const REFERENCE_TUNING_ENV = {
  UMPIRE_REFERENCE_LATENCY_MS: "the latency profile's wait per turn, ms (default 2000)",
  UMPIRE_REFERENCE_JITTER_MS: "its jitter, +/- ms (default 400)",
  UMPIRE_REFERENCE_RPM: "requests allowed per rate window (default: no limit)",
  UMPIRE_REFERENCE_TPM: "tokens allowed per rate window (default: no limit)",
  UMPIRE_REFERENCE_RATE_WINDOW_MS: `the rate window, ms (default ${DEFAULT_RATE_WINDOW_MS}: per minute)`,
} as const;

/** Reads the tuning; a value that is not a whole number is a usage error naming the variable. */
export function referenceTuningFromEnv(env: NodeJS.ProcessEnv): ReferenceTuning {
  const read = (name: keyof typeof REFERENCE_TUNING_ENV): number | undefined =>
    wholeNumber(
      env[name],
      name,
      `set ${name} to a whole number of ${name.endsWith("_MS") ? "milliseconds" : "units"}, or unset it`,
    );
  return rateTuning({
    turnLatencyMs: read("UMPIRE_REFERENCE_LATENCY_MS"),
    jitterMs: read("UMPIRE_REFERENCE_JITTER_MS"),
    requests: read("UMPIRE_REFERENCE_RPM"),
    tokens: read("UMPIRE_REFERENCE_TPM"),
    windowMs: read("UMPIRE_REFERENCE_RATE_WINDOW_MS"),
  });
}

/** The same settings from flags or variables already read as numbers. */
export function rateTuning(values: {
  turnLatencyMs?: number;
  jitterMs?: number;
  requests?: number;
  tokens?: number;
  windowMs?: number;
}): ReferenceTuning {
  const tuning: ReferenceTuning = {};
  if (values.turnLatencyMs !== undefined) tuning.turnLatencyMs = values.turnLatencyMs;
  if (values.jitterMs !== undefined) tuning.jitterMs = values.jitterMs;
  if (values.requests || values.tokens) {
    tuning.rateLimit = {
      requests: values.requests,
      tokens: values.tokens,
      ...(values.windowMs ? { windowMs: values.windowMs } : {}),
    };
  }
  return tuning;
}

export function wholeNumber(value: string | undefined, name: string, fix: string): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  if (!/^\d+$/.test(value.trim()))
    throw new UmpireError("usage", `${name}=${value}: expected a whole number >= 0`, fix);
  return Number(value.trim());
}
