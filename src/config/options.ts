/**
 * The options more than one place knows about: every option the config file's `defaults` may
 * set (and so every `umpire run` option worth a default), and the ones several commands share
 * (`--db`, `--config`, the price flags, `--json`). This table is the single source of their
 * parsing, ranges, built-in defaults and help text; commands pick from it and add their own
 * options in the same shape.
 */
// agent/config.js, not the agent index: the index loads the model client (openai, undici) at start-up.
import { DEFAULT_API_KEY_ENV, DEFAULT_MAX_TOKENS, DEFAULT_TEMPERATURE, REASONING_EFFORTS } from "../agent/config.js";
import { protocolList } from "../agent/protocols/registry.js";
import type { OptionSpec } from "./option.js";
import { OUTPUT_MODES, TRACE_MODES } from "../vocabulary.js";

/** `--mode`: one of the protocols (src/agent/protocols/registry.ts), or both (every Holo mode the model supports). */
export const MODE_CHOICES = [...OUTPUT_MODES, "both"] as const;

/** One help line per protocol, from the registry, then what `both` means. */
function modeHelp(): string {
  const width = Math.max(...MODE_CHOICES.map((m) => m.length));
  const lines = protocolList().map((p) => `${p.name.padEnd(width)}  ${p.summary}`);
  lines.push(`${"both".padEnd(width)}  every Holo protocol the model has (structured only without function calling)`);
  return lines.join("\n");
}
export const DEFAULT_MODE = "both";

export const DEFAULT_DB = "results/umpire.db";
export const DEFAULT_OUT = "results/runs";
/** The adaptive ceiling when --max-concurrency is not given (and no browser endpoints bound it). */
export const DEFAULT_ADAPTIVE_MAX = 32;

export const OPTIONS = {
  // model
  model: {
    kind: "string",
    arg: "ID",
    multiple: true,
    default: ["reference"],
    config: true,
    help: "reference, reference:<profile>, holo3-1-35b-a3b, holo3-122b-a10b,\nor any id served at --base-url; repeatable",
  },
  "base-url": {
    kind: "string",
    arg: "URL",
    config: true,
    help: "an OpenAI-compatible endpoint (a local vLLM, for instance)",
  },
  mode: {
    kind: "enum",
    arg: "M",
    values: MODE_CHOICES,
    default: DEFAULT_MODE,
    config: true,
    help: modeHelp(),
  },
  "api-key-env": {
    kind: "string",
    arg: "NAME",
    config: true,
    defaultText: `${DEFAULT_API_KEY_ENV} for H's endpoint, none for other endpoints`,
    help: "environment variable holding the API key",
  },
  temperature: {
    kind: "number",
    arg: "T",
    min: 0,
    max: 2,
    default: DEFAULT_TEMPERATURE,
    config: true,
    help: "sampling temperature",
  },
  "reasoning-effort": {
    kind: "enum",
    arg: "E",
    values: REASONING_EFFORTS,
    default: "medium",
    config: true,
    help: "low | medium | high",
  },
  "max-tokens": {
    kind: "int",
    arg: "N",
    min: 1,
    config: true,
    defaultText: `${DEFAULT_MAX_TOKENS}, or the model's maximum output when lower`,
    help: "response allowance, with headroom for reasoning",
  },
  stream: { kind: "boolean", config: true, help: "stream responses (measures time to first token)" },
  // run
  repeat: {
    kind: "int",
    arg: "N",
    min: 1,
    max: 1000,
    default: 1,
    config: true,
    help: "repeats per task and agent config",
  },
  concurrency: {
    kind: "int",
    arg: "N",
    min: 1,
    max: 256,
    config: true,
    defaultText: 'adaptive per model endpoint, see docs/running.md "Concurrency"',
    help: "pin the trials at once to N",
  },
  "max-concurrency": {
    kind: "int",
    arg: "N",
    min: 1,
    max: 256,
    config: true,
    defaultText: `${DEFAULT_ADAPTIVE_MAX}; with --browser-endpoint, their total capacity`,
    help: "the adaptive mode's ceiling, all model endpoints together",
  },
  "model-concurrency": {
    kind: "int",
    arg: "N",
    min: 1,
    max: 256,
    config: true,
    defaultText: "--concurrency, or the adaptive ceiling",
    help: "model requests at once",
  },
  tag: {
    kind: "string",
    arg: "T",
    multiple: true,
    config: true,
    help: "label the run (repeatable), for compare --baseline / --by tag",
  },
  "browser-endpoint": {
    kind: "string",
    arg: "URL",
    multiple: true,
    config: true,
    help: "run trials in a remote browser: ws://... (Playwright server), http://...\nor cdp+ws://... (CDP); add ?capacity=N (default 4); repeatable",
  },
  "fixtures-host": {
    kind: "string",
    arg: "HOST",
    config: true,
    help: "serve the fixture site to remote browsers at http://HOST[:PORT]",
  },
  // choosing what runs (umpire run; `--tag` above labels a run, `--task-tag` selects tasks)
  grep: {
    kind: "string",
    arg: "RE",
    multiple: true,
    help: "run only the tasks whose id or title matches RE (RE2 syntax); repeatable: any",
  },
  "grep-invert": {
    kind: "string",
    arg: "RE",
    multiple: true,
    help: "leave out the tasks whose id or title matches RE; repeatable",
  },
  "task-tag": {
    kind: "string",
    arg: "T",
    multiple: true,
    help: "run only the tasks whose file declares tag T (`tags:`); repeatable: any",
  },
  "last-failed": {
    kind: "boolean",
    help: "re-run the tasks x agents that did not pass in the latest run\n(failed, error, cancelled or never run), with that run's agents",
  },
  "failed-in": { kind: "string", arg: "RUN", help: "like --last-failed, for the run RUN (an id or a unique prefix)" },
  "max-failures": {
    kind: "int",
    arg: "N",
    min: 1,
    config: true,
    help: "stop starting trials after N failed or error trials; the rest are left\nnot run (umpire run --resume RUN runs them)",
  },
  "exit-first": { kind: "boolean", short: "x", help: "same as --max-failures 1" },
  "allow-drafts": {
    kind: "boolean",
    config: true,
    help: "accept tasks still marked draft: true (imported by umpire import playwright, not yet\nreviewed by a person): validate checks and self-tests them, run runs them",
  },
  "no-sandbox": {
    kind: "boolean",
    help: "run command agents (kind: command) outside bubblewrap's sandbox:\nthey see this user's files, processes and network (docs/security.md)",
  },
  list: { kind: "boolean", help: "print the planned trials (task, agent, repeat, shard) and exit" },
  retries: {
    kind: "int",
    arg: "N",
    min: 0,
    max: 10,
    default: 1,
    config: true,
    help: "re-runs of a trial whose verdict is error (infrastructure);\nfailures are never retried",
  },
  // seeing a run
  reporter: {
    kind: "string",
    arg: "R[:FILE]",
    multiple: true,
    config: true,
    help: "list | dot | json | junit | markdown | html, or a module of yours (./my-reporter.mjs,\ndocs/reporting.md), each with an optional output file (html: a folder);\nrepeatable. list and dot write to the terminal; json, junit and markdown\nwithout a file write to stdout",
  },
  quiet: { kind: "boolean", short: "q", help: "print only the summary: no progress, no live view, no heartbeat" },
  // repetition
  "repetition-window": {
    kind: "int",
    arg: "N",
    min: 2,
    max: 20,
    default: 3,
    config: true,
    help: "identical attempts before a pause",
  },
  "recovery-limit": {
    kind: "int",
    arg: "N",
    min: 0,
    max: 10,
    default: 1,
    config: true,
    help: "reflections before a trial stops as stuck",
  },
  // output
  db: { kind: "string", arg: "FILE", default: DEFAULT_DB, config: true, help: "the results database" },
  out: { kind: "string", arg: "DIR", default: DEFAULT_OUT, config: true, help: "trial folders" },
  report: { kind: "boolean", config: true, help: "also write the HTML report (see umpire report)" },
  trace: {
    kind: "enum",
    arg: "WHEN",
    values: TRACE_MODES,
    default: "off",
    config: true,
    help: "on | retain-on-failure | off: keep a Playwright trace per trial (trace.zip in\nits folder; npx playwright show-trace opens it); retain-on-failure keeps\nonly those of trials that did not pass",
  },
  // shared, never from the config file
  config: {
    kind: "string",
    arg: "FILE",
    defaultText: "umpire.config.yaml, .yml or .json in the current folder, if present",
    help: "the config file (prices, defaults for these options)",
  },
  "price-in": {
    kind: "number",
    arg: "USD",
    min: 0,
    help: "price every model's input at USD per million tokens (re-prices stored tokens)",
  },
  "price-out": { kind: "number", arg: "USD", min: 0, help: "price every model's output at USD per million tokens" },
  json: { kind: "boolean", help: "print only JSON" },
  // shared by the commands that listen (serve-fixtures, serve-model, report --serve, show-report), each with its help
  port: {
    kind: "int",
    arg: "N",
    min: 0,
    max: 65535,
    default: 0,
    defaultText: "0: a free port",
    help: "the port to listen on",
  },
} as const satisfies Record<string, OptionSpec>;

export type SharedOptionName = keyof typeof OPTIONS;

/** The options the config file's `defaults` section may set, by flag name. */
export function configurableOptions(): [string, OptionSpec][] {
  return Object.entries(OPTIONS as Record<string, OptionSpec>).filter(([, spec]) => spec.config);
}

/** `--config`, `--price-in`, `--price-out`: every command that shows costs takes them. */
export const PRICE_OPTIONS = {
  config: OPTIONS.config,
  "price-in": OPTIONS["price-in"],
  "price-out": OPTIONS["price-out"],
} as const;
