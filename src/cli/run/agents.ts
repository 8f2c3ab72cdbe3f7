/**
 * The agents of a run: chosen fresh from the options (`--agent`, the config file's defaultAgents,
 * an unnamed agent made of --model/--mode), or restored from a stored run (`--resume`,
 * `--last-failed`) by one function, `restoreAgents`, so both rebuild them the same way.
 */
import { resolve } from "node:path";
import {
  AgentConfigSchema,
  DEFAULT_MAX_TOKENS,
  DEFAULT_RETRY_POLICY,
  DEFAULT_TEMPERATURE,
  resolveAgentConfigs,
  type AgentConfig,
} from "../../agent/config.js";
import { lookupModel, nativeProtocolOf } from "../../agent/models.js";
import { redactCommandAgent, resolveCommandAgent } from "../../config/command-agent.js";
import type { LoadedConfig } from "../../config/loader.js";
import { DEFAULT_MODE, OPTIONS as O } from "../../config/options.js";
import { firstLineOf, UmpireError } from "../../errors.js";
import type { SandboxMode } from "../../runner/external/agent-sandbox.js";
import type { CommandAgentSpec } from "../../runner/external/command-agent.js";
import { withoutUrlCredentials } from "../../safety/secrets.js";
import type { StoredAgentOptions, StoredRunOptions } from "../../store/run-options.js";
import { finalizeAgents, resolveNamedAgents, type RunAgentValues, type RunLoopDefaults } from "./named-agents.js";
import type { ValueSource } from "../args.js";
import { modelProxyWithKey } from "./model-proxy-key.js";
import type { RunValues } from "./options.js";

/** The options that make the unnamed agent (`run`'s model options but --agent and --no-preflight). */
const AGENT_KEYS = [
  "model",
  "base-url",
  "mode",
  "api-key-env",
  "temperature",
  "reasoning-effort",
  "max-tokens",
  "stream",
] as const satisfies readonly (keyof RunValues)[];

/** The agent options as resolved (flag, config or default): those of `run`'s table that make the unnamed agent. */
export type AgentValues = Partial<Pick<RunValues, (typeof AGENT_KEYS)[number]>>;

/** Flags that ask for an unnamed agent (made of --model/--mode) next to or instead of named ones. */
const UNNAMED_AGENT_FLAGS = ["model", "mode", "base-url", "api-key-env"] as const;

type Sources = Partial<Record<string, ValueSource>>;

/** The agents of a run, as the select phase chose them. */
export interface RunAgents {
  agents: AgentConfig[];
  commandAgents: CommandAgentPlan[];
  unnamedAgents: boolean;
  /** The unnamed agent's options, stored with the run. */
  agentValues: AgentValues;
}

export interface CommandAgentPlan {
  /** A stand-in agent config for the plan, the store and the tables (label = the agent's name). */
  config: AgentConfig;
  command: Omit<CommandAgentSpec, "sandbox">;
  stored: ReturnType<typeof redactCommandAgent>;
}

/** What choosing or restoring agents reads besides the stored run. */
export interface AgentRequest {
  values: AgentValues & RunAgentValues & { agent?: string[] };
  sources: Sources;
  config: LoadedConfig;
  cwd: string;
  env: NodeJS.ProcessEnv;
  loopDefaults: RunLoopDefaults;
}

/**
 * Agent configs for every model. The default mode, both, means "every mode this model has": a
 * model the model table says has no function calling runs structured only; a --mode both or
 * tools that was asked for stays an error on it.
 */
export function resolveAgents(
  values: AgentValues,
  sources: Partial<Record<keyof AgentValues, ValueSource>>,
  env: NodeJS.ProcessEnv,
): AgentConfig[] {
  const models = values.model?.length ? values.model : (O.model.default as readonly string[]);
  const configs: AgentConfig[] = [];
  for (const model of models) {
    const mode = values.mode ?? DEFAULT_MODE;
    const defaulted = (sources.mode ?? "default") === "default" && mode === DEFAULT_MODE;
    configs.push(
      ...resolveAgentConfigs({
        model,
        baseUrl: values["base-url"],
        apiKeyEnv: values["api-key-env"],
        temperature: values.temperature,
        reasoningEffort: values["reasoning-effort"],
        maxTokens: values["max-tokens"],
        stream: values.stream ?? false,
        env,
        // No mode chosen: a vendor's model speaks its own protocol (its label says which).
        mode: defaulted
          ? (nativeProtocolOf(model) ?? (lookupModel(model).functionCalling === false ? "structured" : mode))
          : mode,
      }),
    );
  }
  const labels = new Set<string>();
  for (const c of configs) {
    if (labels.has(c.label))
      throw new UmpireError("usage", `the agent config ${c.label} is given twice`, "name each --model once");
    labels.add(c.label);
  }
  return configs;
}

/** A new run's agents: `--agent` names them; else the config's defaultAgents, unless --model/--mode ask for an unnamed one. */
export function chooseAgents(request: AgentRequest): RunAgents {
  const { values, sources, config, cwd, env } = request;
  const unnamedAsked = UNNAMED_AGENT_FLAGS.some((k) => sources[k] === "flag");
  const names = values.agent ?? (unnamedAsked ? [] : (config.data.defaultAgents ?? []));
  // Agents of kind command bring their own loop; the others are model agents of umpire's loop.
  const isCommand = (name: string) => config.data.agents?.[name]?.kind === "command";
  const commandAgents = commandAgentPlans(names.filter(isCommand), config, cwd);
  const named = resolveNamedAgents(
    config,
    names.filter((n) => !isCommand(n)),
    values,
    sources,
    env,
  );
  const unnamedAgents = (named.length === 0 && commandAgents.length === 0) || unnamedAsked;
  const agents = finalizeAgents(
    [...named, ...(unnamedAgents ? resolveAgents(values, sources, env) : [])],
    request.loopDefaults,
  );
  return { agents, commandAgents, unnamedAgents, agentValues: pickAgentValues(values, sources, ["flag", "config"]) };
}

/** A run stored in the store, with its options parsed (`runOptionsOf`). */
export interface StoredRun {
  id: string;
  options: StoredRunOptions;
}

/**
 * The agents of a stored run, for `--resume` and `--last-failed`: the named ones exactly as
 * stored (their definitions, policy text included, are in the run), the unnamed one from its
 * stored options with today's flags on top, the command agents rebuilt from the config file.
 */
export function restoreAgents(run: StoredRun, flag: "--resume" | "--last-failed", request: AgentRequest): RunAgents {
  const { values, sources, env } = request;
  const { "base-url-had-credentials": had, ...before } = run.options.agentOptions;
  if (had === true && values["base-url"] === undefined) {
    const again = flag === "--resume" ? `umpire run --resume ${run.id}` : "umpire run --last-failed";
    throw new UmpireError(
      "usage",
      `run ${run.id} used a --base-url with credentials in it, which are never stored`,
      `pass the same --base-url again: ${again} --base-url <url>`,
    );
  }
  const now = pickAgentValues(values, sources, ["flag"]);
  const named = run.options.agents.filter((a) => a.name !== undefined).map((a) => AgentConfigSchema.parse(a));
  const unnamedAgents = run.options.unnamedAgents;
  const then = storedAgentValues(before);
  const unnamed = unnamedAgents
    ? resolveAgents({ ...then, ...now }, { ...sourcesOf(then, "config"), ...sourcesOf(now, "flag") }, env)
    : [];
  const agents = finalizeAgents([...named, ...unnamed], request.loopDefaults);
  const commandAgents = storedCommandAgents(run, flag, request.config, request.cwd);
  return { agents, commandAgents, unnamedAgents, agentValues: { ...then, ...now } };
}

/** The stored unnamed agent's options, only those this version knows. */
function storedAgentValues(stored: Omit<StoredAgentOptions, "base-url-had-credentials">): AgentValues {
  return Object.fromEntries(AGENT_KEYS.filter((k) => stored[k] !== undefined).map((k) => [k, stored[k]]));
}

/** The agent options that came from `from` (not built-in defaults), stored so --resume rebuilds the same configs. */
function pickAgentValues(values: AgentValues, sources: Sources, from: ValueSource[]): AgentValues {
  return Object.fromEntries(
    AGENT_KEYS.filter((k) => values[k] !== undefined && from.includes(sources[k]!)).map((k) => [k, values[k]]),
  );
}

function sourcesOf(values: AgentValues, source: ValueSource): Partial<Record<keyof AgentValues, ValueSource>> {
  return Object.fromEntries(Object.keys(values).map((k) => [k, source]));
}

/**
 * Agent values as stored with the run: a base URL without user info or query (where keys hide);
 * the run remembers that it had them, so --resume asks for the URL again instead of silently
 * calling the wrong endpoint.
 */
export function storable(values: AgentValues): StoredAgentOptions {
  const url = values["base-url"];
  if (typeof url !== "string") return values;
  const bare = withoutUrlCredentials(url);
  return {
    ...values,
    "base-url": bare,
    ...(bare !== url.replace(/\/+$/, "") ? { "base-url-had-credentials": true } : {}),
  };
}

/**
 * The agents `--agent NAME` names, from the config file's `agents:` (kind command on this
 * branch). An unknown name is a usage error that lists the defined ones.
 */
function commandAgentPlans(names: string[], config: LoadedConfig, cwd: string): CommandAgentPlan[] {
  const defined = config.data.agents ?? {};
  const seen = new Set<string>();
  return names.map((name) => {
    const definition = defined[name];
    if (!definition) {
      const known = Object.keys(defined);
      throw new UmpireError(
        "usage",
        `--agent ${name}: no agent of that name in ${config.file ?? "the config file (there is none)"}`,
        known.length
          ? `defined agents: ${known.join(", ")}`
          : "define it under agents: in umpire.config.yaml (docs/external-agents.md)",
      );
    }
    if (definition.kind !== "command")
      throw new UmpireError(
        "usage",
        `--agent ${name}: not an agent of kind command`,
        "model agents are resolved by resolveNamedAgents",
      );
    if (seen.has(name))
      throw new UmpireError(
        "usage",
        `--agent ${name} is given twice`,
        "name each agent once; --repeat runs it more times",
      );
    seen.add(name);
    const configFile = config.file ? resolve(cwd, config.file) : null;
    const command = resolveCommandAgent(name, definition, configFile, cwd);
    return {
      config: commandAgentConfig(name, definition.model),
      command,
      stored: redactCommandAgent(name, definition),
    };
  });
}

/**
 * The command agents of a stored run. The run stores each one's definition without the values of
 * its environment variables (they may be keys), so the agent is rebuilt from the config file's
 * `agents:`, and only when that definition is still the one the run stored: otherwise the new
 * trials would run another agent under the same name.
 */
function storedCommandAgents(
  run: StoredRun,
  flag: "--resume" | "--last-failed",
  config: LoadedConfig,
  cwd: string,
): CommandAgentPlan[] {
  const thenFile = run.options.config?.file ?? null;
  const nowFile = config.file ?? "the config file (none was found)";
  const instead =
    flag === "--resume"
      ? "or start a new run: umpire run --agent <name> ..."
      : "or name the agents yourself: umpire run --failed-in <run> --agent <name>";
  return run.options.commandAgents.map((was) => {
    const definition = config.data.agents?.[was.name];
    const where = `${thenFile ?? "the config file"}${thenFile && thenFile !== config.file ? ` (today: ${nowFile})` : ""}`;
    if (!definition || definition.kind !== "command") {
      throw new UmpireError(
        "usage",
        `${flag}: run ${run.id} ran the command agent ${was.name}, which ${nowFile} does not define as kind command; the run stores the agent without its environment values, so it is rebuilt from the config file`,
        `define agents: ${was.name} (kind command) as it was in ${where}${thenFile && thenFile !== config.file ? `, or pass --config ${thenFile}` : ""}; ${instead}`,
      );
    }
    const now: Record<string, unknown> = redactCommandAgent(was.name, definition);
    const changed = Object.keys(was).filter((k) => JSON.stringify(was[k]) !== JSON.stringify(now[k]));
    if (changed.length > 0) {
      throw new UmpireError(
        "usage",
        `${flag}: the command agent ${was.name} in ${nowFile} is not the one run ${run.id} ran (${changed.map((k) => `${k}: ${JSON.stringify(was[k])} then, ${JSON.stringify(now[k])} now`).join("; ")})`,
        `restore its ${changed.join(" and ")} as the run had them; ${instead}`,
      );
    }
    const configFile = config.file ? resolve(cwd, config.file) : null;
    return {
      config: commandAgentConfig(was.name, definition.model),
      command: resolveCommandAgent(was.name, definition, configFile, cwd),
      stored: redactCommandAgent(was.name, definition),
    };
  });
}

/**
 * The agent config that stands for a command agent in the plan, the store and the tables: its
 * name as label, its model (for pricing what it reports) or `command:<name>`. It never reaches
 * a model session or the preflight: umpire makes no model request for a command agent. The
 * store's mode column knows structured|tools only (docs/external-agents.md, "Limits").
 */
export function commandAgentConfig(name: string, model: string | undefined): AgentConfig {
  return {
    label: name,
    model: model ?? `command:${name}`,
    provider: "custom",
    mode: "structured",
    endpoint: { kind: "url", baseUrl: "http://127.0.0.1/command-agent" },
    apiKeyEnv: null,
    temperature: DEFAULT_TEMPERATURE,
    reasoningEffort: "medium",
    maxTokens: DEFAULT_MAX_TOKENS,
    stream: false,
    requestTimeoutMs: 60_000,
    retry: DEFAULT_RETRY_POLICY,
  };
}

function listingSandbox(sandbox: () => SandboxMode): SandboxMode {
  try {
    return sandbox();
  } catch (error) {
    return { kind: "none", why: firstLineOf(error) };
  }
}

/** The command each command agent's trials run, by the agent's label. */
export function commandSpecs(
  plans: readonly CommandAgentPlan[],
  sandbox: () => SandboxMode,
  env: NodeJS.ProcessEnv,
  listing: boolean,
): Map<string, CommandAgentSpec> {
  if (plans.length === 0) return new Map();
  // A listing starts no agent, so a sandbox that cannot start does not refuse it.
  const mode = listing ? listingSandbox(sandbox) : sandbox();
  const spec = (c: CommandAgentPlan) => {
    const modelProxy = modelProxyWithKey(c.command.name, c.command.modelProxy, env, listing);
    return { ...c.command, sandbox: mode, modelProxy };
  };
  return new Map(plans.map((c) => [c.config.label, spec(c)]));
}
