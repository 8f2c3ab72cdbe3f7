/**
 * Fault profiles of the reference model: which behaviour a request gets, chosen by the model
 * id (`reference:<profile>`) or the server default, and every random-looking choice derived
 * from (seed, turn) so that a run with the same seed behaves the same way every time.
 */

export const PROFILE_DESCRIPTIONS = {
  gold: "follows the task's reference trajectory, grounded on the live layout",
  misclick: "the gold trajectory with every click offset far enough to miss small targets",
  loop: "plays the task's `loop` negative (or clicks the same spot forever) and ignores reflections",
  recover: "plays `loop` until a <reflection> arrives, then the gold trajectory from where they differ",
  "wrong-record": "plays the task's `wrong-record` negative (e.g. saves BB-024), else gold",
  "forget-save": "plays the task's `forget-save` negative, else gold",
  "premature-answer": "plays the task's `premature-answer` negative, else gold",
  "answer-now": 'answers "Done." on the first turn',
  refuse: 'refuses: message.refusal set, content "I can\'t help with that", finish_reason stop',
  truncate: "finish_reason length with partial JSON",
  malformed: "cycles through every kind of invalid output",
  "flaky-http": "500s, 429 with retry-after, dropped connections, each followed by success on retry",
  slow: "the gold trajectory with added latency before the first byte",
  latency: "the gold trajectory after a realistic model latency (default 2 s) with deterministic jitter per turn",
} as const;

export type ProfileName = keyof typeof PROFILE_DESCRIPTIONS;
export const PROFILE_NAMES = Object.keys(PROFILE_DESCRIPTIONS) as ProfileName[];
export const REFERENCE_MODEL = "reference";

export function isProfileName(name: string): name is ProfileName {
  return Object.hasOwn(PROFILE_DESCRIPTIONS, name);
}

/**
 * Resolves a request's model id: `reference` -> the server default profile, `reference:<p>` ->
 * profile p. Anything else (including an unknown profile) is null: the server answers
 * `model_not_found`.
 */
export function profileForModel(model: unknown, serverDefault: ProfileName): ProfileName | null {
  if (model === REFERENCE_MODEL) return serverDefault;
  if (typeof model !== "string" || !model.startsWith(`${REFERENCE_MODEL}:`)) return null;
  const name = model.slice(REFERENCE_MODEL.length + 1);
  return isProfileName(name) ? name : null;
}

/** Model ids `reference:negative-<name>` play the recognised task's declared negative `<name>`. */
export const NEGATIVE_PREFIX = "negative-";

/**
 * Like profileForModel, but also reads `reference:negative-<name>`: the gold profile playing the
 * task's negative trajectory `<name>` (how `umpire validate --self-test` proves each negative fails).
 */
export function parseReferenceModel(
  model: unknown,
  serverDefault: ProfileName,
): { profile: ProfileName; negative?: string } | null {
  if (typeof model === "string" && model.startsWith(`${REFERENCE_MODEL}:${NEGATIVE_PREFIX}`)) {
    const negative = model.slice(REFERENCE_MODEL.length + 1 + NEGATIVE_PREFIX.length);
    return /^[a-z0-9][a-z0-9-]*$/.test(negative) ? { profile: "gold", negative } : null;
  }
  const profile = profileForModel(model, serverDefault);
  return profile ? { profile } : null;
}

/** The model ids `/v1/models` lists: `reference` and one per profile. */
export function referenceModelIds(): string[] {
  return [REFERENCE_MODEL, ...PROFILE_NAMES.map((p) => `${REFERENCE_MODEL}:${p}`)];
}

/** Behavioural profiles that play a task negative of the same name when the task declares one. */
export const NEGATIVE_PROFILES = new Set<ProfileName>(["wrong-record", "forget-save", "premature-answer"]);

/** A 32-bit hash of integers (murmur3 finaliser per word); the source of all seeded choices. */
export function seededHash(...values: number[]): number {
  let h = 0x811c9dc5;
  for (const value of values) {
    h = Math.imul(h ^ (value | 0), 0x01000193);
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
  }
  return h >>> 0;
}

/** Bounds of a misclick offset on each axis, in [0, 1000] units (40 units = 51 px across a 1280 px image). */
export const MISCLICK_MIN = 40;
export const MISCLICK_MAX = 70;

/** The offset the `misclick` profile adds to the click of a given turn. */
export function misclickOffset(seed: number, turn: number): { dx: number; dy: number } {
  const pick = (axis: number) => {
    const h = seededHash(seed, turn, axis);
    const magnitude = MISCLICK_MIN + (h % (MISCLICK_MAX - MISCLICK_MIN + 1));
    return (h >>> 16) % 2 === 0 ? magnitude : -magnitude;
  };
  return { dx: pick(1), dy: pick(2) };
}

/** Every kind of bad output the `malformed` profile produces, in cycle order. */
export const MALFORMED_KINDS = [
  "invalid-json",
  "unknown-tool",
  "missing-field",
  "extra-field",
  "wrong-type",
  "coordinate-out-of-range",
  "xy-as-list",
  "think-in-content",
  "empty-content",
] as const;
export type MalformedKind = (typeof MALFORMED_KINDS)[number];

/** The bad-output kind for a turn: consecutive turns walk the whole list, starting where the seed says. */
export function malformedKind(seed: number, turn: number): MalformedKind {
  return MALFORMED_KINDS[mod(seed + turn, MALFORMED_KINDS.length)];
}

export type HttpFault = "server-error" | "rate-limited" | "dropped-connection" | "none";

/** Turn after turn, `flaky-http` cycles through these (starting where the seed says). */
export const FLAKY_CYCLE: readonly HttpFault[] = ["server-error", "rate-limited", "dropped-connection", "none"];

/** How many attempts of the same request a fault spoils before a retry succeeds. */
export const FAULT_ATTEMPTS: Record<HttpFault, number> = {
  "server-error": 2,
  "rate-limited": 1,
  "dropped-connection": 1,
  none: 0,
};

/** The fault `flaky-http` applies to the given attempt (0-based) of a turn's request. */
export function flakyFault(seed: number, turn: number, attempt: number): HttpFault {
  const fault = FLAKY_CYCLE[mod(seed + turn, FLAKY_CYCLE.length)];
  return attempt < FAULT_ATTEMPTS[fault] ? fault : "none";
}

/** Latency the `latency` profile waits by default before answering: a hosted model's turn. */
export const DEFAULT_TURN_LATENCY_MS = 2_000;
/** Default jitter around it (+/-), so trials in flight do not answer in lockstep. */
export const DEFAULT_TURN_JITTER_MS = 400;

/**
 * The `latency` profile's wait for one turn of one trial: `baseMs` +/- `jitterMs`, chosen by
 * (seed, trial, turn) so a rerun waits exactly as long, turn by turn. Never negative.
 */
export function turnLatencyMs(
  seed: number,
  user: string | null,
  turn: number,
  baseMs: number,
  jitterMs: number,
): number {
  const jitter = Math.max(0, Math.floor(jitterMs));
  if (jitter === 0) return Math.max(0, baseMs);
  const h = seededHash(seed, stringHash(user ?? ""), turn);
  return Math.max(0, baseMs + (h % (2 * jitter + 1)) - jitter);
}

/** A 32-bit FNV-1a hash of a string (trial ids feed the seeded choices). */
function stringHash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

function mod(value: number, n: number): number {
  return ((value % n) + n) % n;
}
