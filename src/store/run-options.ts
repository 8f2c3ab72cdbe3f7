/**
 * What `umpire run` stores as a run's options (the `runs.options` JSON), as one schema: written
 * typed (`RunInput.options`), and read back through `runOptionsOf`, which parses once and gives
 * every reader (`--resume`, `--last-failed`, `merge`) the same typed record. Inspect AI's
 * EvalSpec/EvalConfig is the model: the log says what ran, and it reads back as a typed value.
 *
 * Rows written by earlier umpire versions must still read, so every field is optional or has the
 * default that its absence meant then (no `agents` list: the run had only the unnamed agent), and
 * fields this version does not know are kept as they are (a newer umpire's, read by an older one).
 * Agent definitions are stored as the agent layer redacted them; the store does not own their
 * shape (see docs/ARCHITECTURE.md's layer table), so they are opaque objects here and the CLI
 * parses each with the agent layer's schema where it rebuilds the agent.
 */
import { z } from "zod";
import { UmpireError } from "../errors.js";

/** An opaque JSON object owned by another layer (an agent config, a price list). */
const JsonObject = z.record(z.string(), z.unknown());

/**
 * The agent options of the run's unnamed agent (the one made of --model and --mode), as resolved
 * from flags and the config file, with the base URL stripped of credentials.
 */
export const StoredAgentOptionsSchema = z.looseObject({
  model: z.array(z.string()).optional(),
  "base-url": z.string().optional(),
  mode: z.string().optional(),
  "api-key-env": z.string().optional(),
  // Umpire's first versions stored these two as the text of the flag.
  temperature: z.coerce.number().optional(),
  "reasoning-effort": z.string().optional(),
  "max-tokens": z.coerce.number().int().optional(),
  stream: z.boolean().optional(),
  /** The URL had user info or a query (where keys hide), which are never stored: --resume asks for it again. */
  "base-url-had-credentials": z.boolean().optional(),
});

/**
 * A command agent (kind command) as the run stored it: its definition without its env values
 * (`redactCommandAgent` in src/config/command-agent.ts owns the other fields; --resume compares them
 * field by field with today's definition).
 */
export const StoredCommandAgentSchema = z.looseObject({ name: z.string() });

/** A stored adaptive policy as runs before issue 40 stored it: display text, with no start. */
const LEGACY_ADAPTIVE = /^adaptive \(max (\d+)\)$/;

/**
 * The run's concurrency policy (`ConcurrencyPolicy`, src/vocabulary.ts). Earlier rows read as one: a
 * number was a pinned run, the text `adaptive (max N)` an adaptive one whose start was not kept (null).
 */
const StoredConcurrencySchema = z.union([
  z.object({ mode: z.literal("pinned"), trials: z.number().int().min(1) }),
  z.object({ mode: z.literal("adaptive"), start: z.number().int().min(1).nullable(), max: z.number().int().min(1) }),
  z
    .number()
    .int()
    .min(1)
    .transform((trials) => ({ mode: "pinned" as const, trials })),
  z
    .string()
    .regex(LEGACY_ADAPTIVE)
    .transform((text) => ({ mode: "adaptive" as const, start: null, max: Number(LEGACY_ADAPTIVE.exec(text)![1]) })),
]);

/** One shard's part of the run (`--shard i/n`), as that shard stored it. */
const ShardSchema = z.looseObject({
  index: z.number().int().optional(),
  total: z.number().int().optional(),
  /** Trials of the whole (unsharded) plan. */
  trials: z.number().int().optional(),
  balance: z.string().optional(),
  /** Fingerprint of the assignment: shards that computed different ones disagree. */
  plan: z.string().optional(),
});

/**
 * A benchmark pack's run (`umpire run --pack`): its tasks are made from the user's checkout, not read
 * from files, so the run stores what makes them again (--resume, --last-failed, rejudge).
 */
const StoredPackSchema = z.looseObject({
  /** The pack, e.g. `miniwob`. */
  name: z.string(),
  /** The benchmark's folder as found (absolute). */
  dir: z.string(),
  /** The environments asked for (`--pack-tasks`); empty: all of the split. */
  tasks: z.array(z.string()).default([]),
  split: z.enum(["all", "train", "test"]).default("all"),
  /** `--pack-seed`: added to every episode's seed. */
  seed: z.number().int().min(0).default(0),
});

/**
 * A task x agent pair a run left out because the agent's protocol cannot offer a tool the task's gold
 * needs (#41): not played, never a failure. `reason` is the sentence said at run time.
 */
const StoredNotPlayedSchema = z.looseObject({
  task: z.string(),
  file: z.string(),
  agent: z.string(),
  protocol: z.string(),
  missing: z.array(z.string()),
  reason: z.string(),
});

/** A named model agent's protocol and where it came from (`protocol:`, `mode:`, its model id, the default). */
const StoredAgentProtocolSchema = z.looseObject({
  agent: z.string(),
  protocol: z.string(),
  family: z.string(),
  source: z.string(),
  model: z.string(),
});

export const StoredRunOptionsSchema = z.looseObject({
  /** The task paths as given (empty: the default `tasks/`). */
  paths: z.array(z.string()).default([]),
  agentOptions: StoredAgentOptionsSchema.default({}),
  /** The filters that narrowed the plan (`--grep`, `--grep-invert`, `--task-tag`, `--failed-in`). */
  selection: z
    .looseObject({
      grep: z.array(z.string()).optional(),
      grepInvert: z.array(z.string()).optional(),
      taskTags: z.array(z.string()).optional(),
      failedIn: z.string().optional(),
    })
    .optional(),
  repeat: z.number().int().min(1).default(1),
  /** The run's concurrency policy: pinned, or adaptive with its start and ceiling. */
  concurrency: StoredConcurrencySchema.optional(),
  /** Every model agent's config (redacted), named ones included: --resume reruns the named ones as stored. */
  agents: z.array(JsonObject).default([]),
  agentNames: z.array(z.string()).default([]),
  /** Whether the run had the unnamed agent; runs stored before named agents always had it. */
  unnamedAgents: z.boolean().default(true),
  commandAgents: z.array(StoredCommandAgentSchema).default([]),
  /** The config file read and every option's value and source. */
  config: z
    .looseObject({
      file: z.string().nullable().optional(),
      options: z.record(z.string(), z.looseObject({ value: z.unknown(), source: z.string() })).optional(),
      prices: z.unknown().optional(),
    })
    .optional(),
  /**
   * Per task, a short hash of each top-level part of the resolved task (src/task/content-hash.ts):
   * what lets `compare` name what changed in an edited task. Absent in runs stored before issue 36.
   * A list, not a map by task id: the store redacts values under secret-looking names, and a task
   * id may look like one (`cookie-escape-note-bb042`).
   */
  taskParts: z.array(z.looseObject({ task: z.string(), parts: z.record(z.string(), z.string()) })).optional(),
  /** Set by a shard (`--shard i/n`). */
  shard: ShardSchema.optional(),
  /** Set by `umpire merge` on the merged run: the shards' common part of `shard` (no index). */
  shards: ShardSchema.optional(),
  /** Set by a run of a benchmark pack (`--pack`): what makes its tasks again. */
  pack: StoredPackSchema.optional(),
  /** The task x agent pairs left out: the agent's protocol cannot offer a tool the task needs. */
  notPlayed: z.array(StoredNotPlayedSchema).optional(),
  /** Each named model agent's protocol and its source (`umpire show` says those inferred from a model id). */
  agentProtocols: z.array(StoredAgentProtocolSchema).optional(),
  /** A self-test's run (`umpire validate --self-test`), which stores only paths and concurrency (and a pack's, its pack). */
  selfTest: z.boolean().optional(),
});

/** A run's options as read back (defaults filled in). */
export type StoredRunOptions = z.output<typeof StoredRunOptionsSchema>;
/** A run's options as written (fields with a default may be left out). */
export type StoredRunOptionsInput = z.input<typeof StoredRunOptionsSchema>;
export type StoredAgentOptions = z.output<typeof StoredAgentOptionsSchema>;
export type StoredCommandAgent = z.output<typeof StoredCommandAgentSchema>;
export type StoredShard = z.output<typeof ShardSchema>;
export type StoredPack = z.output<typeof StoredPackSchema>;
export type StoredNotPlayed = z.output<typeof StoredNotPlayedSchema>;
export type StoredAgentProtocol = z.output<typeof StoredAgentProtocolSchema>;

/**
 * The options of stored run `runId`, parsed. Throws `input` naming the run, the field and the
 * fix when a field has a shape no umpire version wrote (the row was edited, or is damaged).
 */
export function runOptionsOf(run: { id: string; options: unknown }): StoredRunOptions {
  const parsed = StoredRunOptionsSchema.safeParse(run.options ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = ["options", ...issue.path.map(String)].join(".");
  throw new UmpireError(
    "input",
    `run ${run.id}: its stored ${field} does not read: ${issue.message}`,
    `the row was changed outside umpire; start a new run instead of reusing run ${run.id}`,
  );
}

/**
 * The options of a merged run (`umpire merge`): a shard's `shard: {index, total, ...}` becomes the
 * run's `shards: {total, ...}` (no index: the merged run is all of them). Everything else is kept
 * exactly as stored, fields this version does not know included.
 */
export function mergedRunOptions(run: {
  id: string;
  options: Readonly<Record<string, unknown>>;
}): Record<string, unknown> {
  const { shard } = runOptionsOf(run);
  const { shard: _shard, ...rest } = run.options;
  if (!shard) return { ...run.options };
  const { index: _index, ...whole } = shard;
  return { ...rest, shards: rest.shards ?? whole };
}
