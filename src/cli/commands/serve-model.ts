/**
 * `umpire serve-model`: runs the reference model (an OpenAI-compatible server that plays each
 * task's reference trajectory or a fault profile) standalone until interrupted, and prints its
 * base URL. Without a fixture site it can still answer, but cannot ground clicks on targets.
 */
import { FixtureControlClient } from "../../../fixtures-site/client.js";
import { UmpireError, messageOf } from "../../errors.js";
import { PROFILE_NAMES, isProfileName } from "../../sim/profiles.js";
import { startReferenceModel } from "../../sim/server.js";
import { DEFAULT_RATE_WINDOW_MS } from "../../sim/rate-limit.js";
import type { OptionSpec } from "../../config/option.js";
import { OPTIONS as O } from "../../config/options.js";
import { loadTasksOrThrowAsync } from "../../task/loader.js";
import { CUSTOM_CHECK_RULES } from "../../checks/custom-rules.js";
import type { ParsedCommand } from "../args.js";
import { defineCommand } from "../command.js";
import { rateTuning } from "../../runtime/reference-tuning.js";
import { EXIT } from "../exit-codes.js";
import { untilAborted, type CommandIO } from "../io.js";

const OPTIONS = {
  port: { ...O.port, help: "port; the base URL is printed on stdout" },
  host: { kind: "string", arg: "H", default: "127.0.0.1", help: "interface to listen on" },
  // Checked below against the profile list (printed under the options) with its own message.
  profile: {
    kind: "string",
    arg: "P",
    default: "gold",
    help: 'profile for the model id "reference"; requests may\npick one with the model id reference:<profile>',
  },
  strict: { kind: "boolean", help: "answer 400 to requests that break a Holo convention" },
  seed: { kind: "int", arg: "N", min: 0, default: 0, help: "seed of the deterministic faults (a request's seed wins)" },
  "latency-ms": { kind: "int", arg: "N", min: 0, default: 1500, help: "latency the slow profile adds" },
  "turn-latency-ms": { kind: "int", arg: "N", min: 0, default: 2000, help: "the latency profile's wait per turn" },
  "jitter-ms": { kind: "int", arg: "N", min: 0, default: 400, help: "its deterministic jitter, +/-" },
  rpm: { kind: "int", arg: "N", min: 1, help: "answer 429 + retry-after beyond N requests per rate window" },
  tpm: { kind: "int", arg: "N", min: 1, help: "... beyond N tokens per rate window (prompt estimate + max_tokens)" },
  "rate-window-ms": {
    kind: "int",
    arg: "N",
    min: 1,
    default: DEFAULT_RATE_WINDOW_MS,
    defaultText: `${DEFAULT_RATE_WINDOW_MS}: per minute`,
    help: "the rate window",
  },
  "fixtures-control": {
    kind: "string",
    arg: "URL",
    help: "the fixture site's control API, to read each trial's layout",
  },
  "control-token": { kind: "string", arg: "T", help: "its token (or set UMPIRE_CONTROL_TOKEN)" },
  tasks: {
    kind: "string",
    arg: "DIR",
    multiple: true,
    defaultText: "tasks/",
    help: "task files or folders to recognise",
  },
  quiet: { kind: "boolean", help: "do not print one line per request on stderr" },
  "api-key-env": {
    kind: "string",
    arg: "NAME",
    help: "require the key held in this environment variable (401 without it)",
  },
} as const satisfies Record<string, OptionSpec>;

export const run = defineCommand({
  name: "serve-model",
  options: OPTIONS,
  positionals: [],
  description: "Serves the reference model (OpenAI-compatible) standalone and prints its base URL.",
  epilogue: `profiles: ${PROFILE_NAMES.join(", ")}\nRuns until Ctrl-C.`,
  run: execute,
});

async function execute({ values }: ParsedCommand<typeof OPTIONS>, io: CommandIO): Promise<number> {
  const { profile, port, seed, "latency-ms": latencyMs } = values;
  const tuning = rateTuning({
    turnLatencyMs: values["turn-latency-ms"],
    jitterMs: values["jitter-ms"],
    requests: values.rpm,
    tokens: values.tpm,
    windowMs: values["rate-window-ms"],
  });
  if (!isProfileName(profile))
    throw new UmpireError("usage", `--profile ${profile}: no such profile`, `Use one of: ${PROFILE_NAMES.join(", ")}.`);
  const controlUrl = values["fixtures-control"];
  const token = values["control-token"] ?? io.env.UMPIRE_CONTROL_TOKEN;
  if (controlUrl && !token) {
    throw new UmpireError(
      "usage",
      "--fixtures-control needs the control token",
      "Pass --control-token T (printed by `umpire serve-fixtures`) or set UMPIRE_CONTROL_TOKEN.",
    );
  }
  if (controlUrl && !/^https?:\/\//.test(controlUrl)) {
    throw new UmpireError(
      "usage",
      `--fixtures-control ${controlUrl}: not an http(s) URL`,
      "e.g. --fixtures-control http://127.0.0.1:41234",
    );
  }
  const keyEnv = values["api-key-env"];
  const apiKey = keyEnv === undefined ? undefined : io.env[keyEnv];
  if (keyEnv !== undefined && !apiKey) {
    throw new UmpireError(
      "usage",
      `--api-key-env ${keyEnv}: the environment variable ${keyEnv} is not set`,
      `export ${keyEnv}=<the key clients must send>`,
    );
  }
  const tasks = await loadTasksOrThrowAsync(values.tasks ?? [], { cwd: io.cwd }, CUSTOM_CHECK_RULES);
  const fixtures = controlUrl && token ? new FixtureControlClient(controlUrl, token) : undefined;

  let model;
  try {
    model = await startReferenceModel({
      port,
      host: values.host,
      tasks,
      fixtures,
      strict: values.strict ?? false,
      profile,
      seed,
      latencyMs,
      ...tuning,
      apiKey,
      onLogLine: values.quiet ? undefined : (line) => io.stderr.write(`${line}\n`),
    });
  } catch (error) {
    throw new UmpireError(
      "usage",
      `serve-model: cannot listen: ${messageOf(error)}`,
      "Pick another --port (or 0 for a free one), or another --host.",
    );
  }
  io.stdout.write(`${model.baseUrl}\n`);
  io.stderr.write(
    `reference model: ${tasks.length} task(s), default profile ${profile}, ${values.strict ? "strict" : "lenient"} lint, seed ${seed}${apiKey ? `, key required (${keyEnv})` : ""}\n` +
      (fixtures
        ? `layouts from ${fixtures.controlUrl}\n`
        : "no --fixtures-control: clicks on targets cannot be grounded (the model says so)\n") +
      "(Ctrl-C stops)\n",
  );
  await untilAborted(io.signal);
  await model.close();
  const median = model.log.medianServerMs();
  const limited = model.rateLimited();
  io.stderr.write(
    `reference model stopped after ${model.log.entries.length} request(s)${median === null ? "" : `, median server time ${median.toFixed(2)} ms`}${limited ? `, ${limited} answered 429` : ""}\n`,
  );
  return EXIT.ok;
}
