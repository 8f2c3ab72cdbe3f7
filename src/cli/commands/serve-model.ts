/**
 * `umpire serve-model`: runs the reference model (an OpenAI-compatible server that plays each
 * task's reference trajectory or a fault profile) standalone until interrupted, and prints its
 * base URL. Without a fixture site it can still answer, but cannot ground clicks on targets.
 */
import { FixtureControlClient } from "../../../fixtures-site/client.js";
import { UmpireError } from "../../errors.js";
import { PROFILE_NAMES, isProfileName } from "../../sim/profiles.js";
import { startReferenceModel } from "../../sim/server.js";
import { loadTasksOrThrow } from "../../task/loader.js";
import { parseCommandArgs } from "../args.js";
import { EXIT } from "../exit-codes.js";
import { untilAborted, type Command } from "../io.js";

const USAGE = `usage: umpire serve-model [--port N] [--host H] [--profile P] [--strict] [--seed N]
                          [--fixtures-control URL --control-token T] [--tasks DIR]... [--quiet]

  --port N                 port (default 0: a free port); the base URL is printed on stdout
  --host H                 interface to listen on (default 127.0.0.1)
  --profile P              profile for the model id "reference" (default gold); requests may
                           pick one with the model id reference:<profile>
  --strict                 answer 400 to requests that break a Holo convention
  --seed N                 seed of the deterministic faults (default 0; a request's seed wins)
  --latency-ms N           latency the slow profile adds (default 1500)
  --fixtures-control URL   the fixture site's control API, to read each trial's layout
  --control-token T        its token (or set UMPIRE_CONTROL_TOKEN)
  --tasks DIR              task files or folders to recognise (default tasks/; repeatable)
  --quiet                  do not print one line per request on stderr
  --api-key-env NAME       require the key held in this environment variable (401 without it)

profiles: ${PROFILE_NAMES.join(", ")}
Runs until Ctrl-C.
`;

function integerOption(value: string | undefined, flag: string, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) > max) {
    throw new UmpireError("usage", `${flag}: '${value}' is not a whole number from 0 to ${max}`, `e.g. ${flag} ${fallback}`);
  }
  return Number(value);
}

export const run: Command = async (argv, io) => {
  const { values, positionals } = parseCommandArgs("serve-model", argv, {
    port: { type: "string" },
    host: { type: "string" },
    profile: { type: "string" },
    strict: { type: "boolean" },
    seed: { type: "string" },
    "latency-ms": { type: "string" },
    "fixtures-control": { type: "string" },
    "control-token": { type: "string" },
    tasks: { type: "string", multiple: true },
    quiet: { type: "boolean" },
    "api-key-env": { type: "string" },
  });
  if (positionals.length > 0) throw new UmpireError("usage", `serve-model takes no arguments, got ${positionals.join(" ")}`, "umpire serve-model --help lists the options");
  if (values.help) {
    io.stdout.write(USAGE);
    return EXIT.ok;
  }
  const profile = values.profile ?? "gold";
  if (!isProfileName(profile)) {
    throw new UmpireError("usage", `--profile ${profile}: no such profile`, `Use one of: ${PROFILE_NAMES.join(", ")}.`);
  }
  const port = integerOption(values.port, "--port", 0, 65535);
  const seed = integerOption(values.seed, "--seed", 0);
  const latencyMs = integerOption(values["latency-ms"], "--latency-ms", 1500);
  const controlUrl = values["fixtures-control"];
  const token = values["control-token"] ?? io.env.UMPIRE_CONTROL_TOKEN;
  if (controlUrl && !token) {
    throw new UmpireError("usage", "--fixtures-control needs the control token", "Pass --control-token T (printed by `umpire serve-fixtures`) or set UMPIRE_CONTROL_TOKEN.");
  }
  if (controlUrl && !/^https?:\/\//.test(controlUrl)) {
    throw new UmpireError("usage", `--fixtures-control ${controlUrl}: not an http(s) URL`, "e.g. --fixtures-control http://127.0.0.1:41234");
  }
  const keyEnv = values["api-key-env"];
  const apiKey = keyEnv === undefined ? undefined : io.env[keyEnv];
  if (keyEnv !== undefined && !apiKey) {
    throw new UmpireError("usage", `--api-key-env ${keyEnv}: the environment variable ${keyEnv} is not set`, `export ${keyEnv}=<the key clients must send>`);
  }
  const tasks = loadTasksOrThrow(values.tasks ?? [], { cwd: io.cwd });
  const fixtures = controlUrl && token ? new FixtureControlClient(controlUrl, token) : undefined;

  let model;
  try {
    model = await startReferenceModel({
      port,
      host: values.host ?? "127.0.0.1",
      tasks,
      fixtures,
      strict: values.strict ?? false,
      profile,
      seed,
      latencyMs,
      apiKey,
      onLogLine: values.quiet ? undefined : (line) => io.stderr.write(`${line}\n`),
    });
  } catch (error) {
    throw new UmpireError("usage", `serve-model: cannot listen: ${(error as Error).message}`, "Pick another --port (or 0 for a free one), or another --host.");
  }
  io.stdout.write(`${model.baseUrl}\n`);
  io.stderr.write(
    `reference model: ${tasks.length} task(s), default profile ${profile}, ${values.strict ? "strict" : "lenient"} lint, seed ${seed}${apiKey ? `, key required (${keyEnv})` : ""}\n` +
      (fixtures ? `layouts from ${fixtures.controlUrl}\n` : "no --fixtures-control: clicks on targets cannot be grounded (the model says so)\n") +
      "(Ctrl-C stops)\n",
  );
  await untilAborted(io.signal);
  await model.close();
  const median = model.log.medianServerMs();
  io.stderr.write(`reference model stopped after ${model.log.entries.length} request(s)${median === null ? "" : `, median server time ${median.toFixed(2)} ms`}\n`);
  return EXIT.ok;
};
