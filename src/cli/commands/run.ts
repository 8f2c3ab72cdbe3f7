/**
 * `umpire run`: the main job. Runs task files x agent configs x repeats in real Chromium
 * against the fixture site, judges every trial with independent checks, stores everything,
 * and ends with a summary per task and mode and the structured-vs-function-calling table.
 */
import { DEFAULT_API_KEY_ENV } from "../../agent/config.js";
import { registerSecret, registerUrlSecrets } from "../../safety/secrets.js";
import { defineCommand } from "../command.js";
import { exitCodesHelp } from "../exit-codes.js";
import { RUN_HELP_SECTIONS, RUN_OPTIONS } from "../run/options.js";
import { executeRun } from "../run/run.js";
import { storageFaultInRun, type RunStage } from "../run/storage-fault.js";

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
  options: RUN_OPTIONS,
  positionals: [{ name: "paths or task ids", variadic: true }],
  sections: RUN_HELP_SECTIONS,
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
