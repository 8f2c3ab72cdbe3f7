/**
 * The options of `umpire run`: the one table its parser, its help and its types come from.
 * `RunValues` is what the parser yields for it, so no list of the options is restated by hand.
 */
import type { OptionSpec } from "../../config/option.js";
import { OPTIONS as O, PRICE_OPTIONS } from "../../config/options.js";
import type { Values } from "../args.js";
import { PACK_OPTIONS } from "./pack.js";
import { UNTIL_DECIDED_OPTIONS } from "./until-decided.js";

const MODEL_OPTIONS = {
  agent: {
    kind: "string",
    arg: "NAME",
    multiple: true,
    defaultText: "the config file's defaultAgents; without them, an agent made of --model and --mode",
    help: "run the named agent from the config file's agents: (docs/config.md); kind command: an agent with its own loop (docs/external-agents.md)",
  },
  model: O.model,
  "base-url": O["base-url"],
  mode: O.mode,
  "api-key-env": O["api-key-env"],
  temperature: O.temperature,
  "reasoning-effort": O["reasoning-effort"],
  "max-tokens": O["max-tokens"],
  stream: O.stream,
  "no-preflight": {
    kind: "boolean",
    help: "skip the check, before the first trial, that each endpoint is reachable,\naccepts the key and serves the model",
  },
} as const satisfies Record<string, OptionSpec>;
const TRIAL_OPTIONS = {
  repeat: O.repeat,
  concurrency: O.concurrency,
  "max-concurrency": O["max-concurrency"],
  "model-concurrency": O["model-concurrency"],
  tag: O.tag,
  resume: { kind: "string", arg: "RUN", help: "run only the unfinished trials of an earlier run" },
  "run-id": { kind: "string", arg: "ID", help: "use this run id (all shards of one run share it)" },
  retries: O.retries,
  "max-failures": O["max-failures"],
  "exit-first": O["exit-first"],
  ...UNTIL_DECIDED_OPTIONS,
  "no-sandbox": O["no-sandbox"],
} as const satisfies Record<string, OptionSpec>;
const SELECT_OPTIONS = {
  grep: O.grep,
  "grep-invert": O["grep-invert"],
  "task-tag": O["task-tag"],
  "last-failed": O["last-failed"],
  "failed-in": O["failed-in"],
  "allow-drafts": O["allow-drafts"],
  list: O.list,
} as const;
const SCALE_OPTIONS = {
  shard: {
    kind: "string",
    arg: "i/n",
    help: "run shard i of n (from 1), balanced by the durations stored in --db\n(or --shard-history); default from UMPIRE_SHARD, CI_NODE_INDEX/TOTAL,\nJOB_COMPLETION_INDEX + UMPIRE_SHARD_TOTAL, BUILDKITE_*, CIRCLE_NODE_*",
  },
  "shard-history": { kind: "string", arg: "FILE", help: "read earlier durations from this database instead of --db" },
  "browser-endpoint": O["browser-endpoint"],
  "fixtures-host": O["fixtures-host"],
} as const satisfies Record<string, OptionSpec>;
const REPETITION_OPTIONS = {
  "repetition-window": O["repetition-window"],
  "recovery-limit": O["recovery-limit"],
} as const;
const OUTPUT_OPTIONS = {
  db: O.db,
  out: O.out,
  ...PRICE_OPTIONS,
  json: { ...O.json, help: "print only JSON (run id and every trial); same as --reporter json" },
  report: O.report,
  trace: O.trace,
  reporter: O.reporter,
  quiet: O.quiet,
} as const;
export const RUN_OPTIONS = {
  ...MODEL_OPTIONS,
  ...SELECT_OPTIONS,
  ...PACK_OPTIONS,
  ...TRIAL_OPTIONS,
  ...SCALE_OPTIONS,
  ...REPETITION_OPTIONS,
  ...OUTPUT_OPTIONS,
} as const;

export const RUN_HELP_SECTIONS = {
  model: MODEL_OPTIONS,
  "choosing what runs (--tag labels a run; --task-tag selects tasks)": SELECT_OPTIONS,
  "benchmark packs (docs/benchmarks.md)": PACK_OPTIONS,
  run: TRIAL_OPTIONS,
  "scale out (docs/scale-out.md)": SCALE_OPTIONS,
  repetition: REPETITION_OPTIONS,
  output: OUTPUT_OPTIONS,
};

/** The options of `umpire run` as parsed (flag, config file or built-in default). */
export type RunValues = Values<typeof RUN_OPTIONS>;
