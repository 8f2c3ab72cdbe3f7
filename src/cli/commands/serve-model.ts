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
import { rateTuning } from "../reference-tuning.js";
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
  --turn-latency-ms N      the latency profile's wait per turn (default 2000)
  --jitter-ms N            its deterministic jitter, +/- (default 400)
  --rpm N, --tpm N         answer 429 + retry-after beyond N requests / N tokens per window
                           (tokens: the prompt estimate plus the requested max_tokens)
  --rate-window-ms N       the rate window (default 60000: per minute)
  --fixtures-control URL   the fixture site's control API, to read each trial's layout
  --control-token T        its token (or set UMPIRE_CONTROL_TOKEN)
  --tasks DIR              task files or folders to recognise (default tasks/; repeatable)
  --quiet                  do not print one line per request on stderr

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

function optionalInteger(value: string | undefined, flag: string): number | undefined {
  return value === undefined ? undefined : integerOption(value, flag, 0);
}

export const run: Command = async (argv, io) => {
  const { values, positionals } = parseCommandArgs("serve-model", argv, {
    port: { type: "string" },
    host: { type: "string" },
    profile: { type: "string" },
    strict: { type: "boolean" },
    seed: { type: "string" },
    "latency-ms": { type: "string" },
    "turn-latency-ms": { type: "string" },
    "jitter-ms": { type: "string" },
    rpm: { type: "string" },
    tpm: { type: "string" },
    "rate-window-ms": { type: "string" },
    "fixtures-control": { type: "string" },
    "control-token": { type: "string" },
    tasks: { type: "string", multiple: true },
    quiet: { type: "boolean" },
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
  const tuning = rateTuning({
    turnLatencyMs: optionalInteger(values["turn-latency-ms"], "--turn-latency-ms"),
    jitterMs: optionalInteger(values["jitter-ms"], "--jitter-ms"),
    requests: optionalInteger(values.rpm, "--rpm"),
    tokens: optionalInteger(values.tpm, "--tpm"),
    windowMs: optionalInteger(values["rate-window-ms"], "--rate-window-ms"),
  });
  const controlUrl = values["fixtures-control"];
  const token = values["control-token"] ?? io.env.UMPIRE_CONTROL_TOKEN;
  if (controlUrl && !token) {
    throw new UmpireError("usage", "--fixtures-control needs the control token", "Pass --control-token T (printed by `umpire serve-fixtures`) or set UMPIRE_CONTROL_TOKEN.");
  }
  if (controlUrl && !/^https?:\/\//.test(controlUrl)) {
    throw new UmpireError("usage", `--fixtures-control ${controlUrl}: not an http(s) URL`, "e.g. --fixtures-control http://127.0.0.1:41234");
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
      ...tuning,
      onLogLine: values.quiet ? undefined : (line) => io.stderr.write(`${line}\n`),
    });
  } catch (error) {
    throw new UmpireError("usage", `serve-model: cannot listen: ${(error as Error).message}`, "Pick another --port (or 0 for a free one), or another --host.");
  }
  io.stdout.write(`${model.baseUrl}\n`);
  io.stderr.write(
    `reference model: ${tasks.length} task(s), default profile ${profile}, ${values.strict ? "strict" : "lenient"} lint, seed ${seed}\n` +
      (fixtures ? `layouts from ${fixtures.controlUrl}\n` : "no --fixtures-control: clicks on targets cannot be grounded (the model says so)\n") +
      "(Ctrl-C stops)\n",
  );
  await untilAborted(io.signal);
  await model.close();
  const median = model.log.medianServerMs();
  const limited = model.rateLimited();
  io.stderr.write(`reference model stopped after ${model.log.entries.length} request(s)${median === null ? "" : `, median server time ${median.toFixed(2)} ms`}${limited ? `, ${limited} answered 429` : ""}\n`);
  return EXIT.ok;
};
