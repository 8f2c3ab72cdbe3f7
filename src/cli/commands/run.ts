/**
 * `umpire run`: the main job. Runs task files x agent configs x repeats in real Chromium
 * against the fixture site, judges every trial with independent checks, stores everything,
 * and ends with a summary per task and mode and the structured-vs-function-calling table.
 */
import { DEFAULT_API_KEY_ENV } from "../../agent/config.js";
import type { OptionSpec } from "../../config/option.js";
import { OPTIONS as O, PRICE_OPTIONS } from "../../config/options.js";
import { registerSecret, registerUrlSecrets } from "../../safety/secrets.js";
import { defineCommand } from "../command.js";
import { exitCodesHelp } from "../exit-codes.js";
import { executeRun } from "../run/run.js";
import { storageFaultInRun, type RunStage } from "../run/storage-fault.js";
import { UNTIL_DECIDED_OPTIONS } from "../run/until-decided.js";

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
const RUN_OPTIONS = {
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
const OPTIONS = {
  ...MODEL_OPTIONS,
  ...SELECT_OPTIONS,
  ...RUN_OPTIONS,
  ...SCALE_OPTIONS,
  ...REPETITION_OPTIONS,
  ...OUTPUT_OPTIONS,
} as const;

const HELP_SECTIONS = {
  model: MODEL_OPTIONS,
  "choosing what runs (--tag labels a run; --task-tag selects tasks)": SELECT_OPTIONS,
  run: RUN_OPTIONS,
  "scale out (docs/scale-out.md)": SCALE_OPTIONS,
  repetition: REPETITION_OPTIONS,
  output: OUTPUT_OPTIONS,
};

const RUN_EXIT_CODES = exitCodesHelp({
  ok: "every trial passed",
  failed: "some trial failed (the agent's doing)",
  usage:
    "usage or input error, including a model endpoint that is unreachable, refuses the key or\ndoes not serve the model (found by the preflight, before any browser starts)",
  infrastructure: "some trial ended in verdict error (infrastructure) after its retries (--retries), and none failed",
  internal: "umpire could not do its whole job (e.g. a reporter failed; the run itself went on)",
  interrupted: "interrupted (Ctrl-C): trials in flight are stored as cancelled; --resume runs them again",
});

export const run = defineCommand({
  name: "run",
  options: OPTIONS,
  positionals: [{ name: "paths or task ids", variadic: true }],
  sections: HELP_SECTIONS,
  description: `Runs every task (default: tasks/) with each agent, in parallel, in real Chromium against
the fixture site; judges each trial with independent checks and stores it in SQLite.
With no options: the whole suite, both output modes, on the embedded reference model
(or the config file's defaultAgents). Agents: --agent NAME (repeatable) from the config
file's agents:, and/or an unnamed agent made of --model and --mode.
A value comes from the command line, else the config file's "defaults", else the built-in default.`,
  epilogue: RUN_EXIT_CODES,
  run: async (parsed, io) => {
    // How far the run got, so a full or unwritable disk is explained for where it struck (storage-fault.ts).
    const stage: RunStage = {};
    try {
      const { values, sources, positionals } = parsed;
      registerRunSecrets(values, io.env);
      return await executeRun({ values, sources, positionals, config: parsed.config, io, stage });
    } catch (error) {
      throw storageFaultInRun(error, stage);
    }
  },
});

/** Registers the key values and URL credentials this run will use, before anything can print them. */
function registerRunSecrets(values: { "base-url"?: string; "api-key-env"?: string }, env: NodeJS.ProcessEnv): void {
  registerUrlSecrets(values["base-url"]);
  registerSecret(env[DEFAULT_API_KEY_ENV]);
  if (values["api-key-env"]) registerSecret(env[values["api-key-env"]]);
}
