/**
 * Named agents: turning the config file's `agents:` entries picked by `--agent` (or its
 * `defaultAgents`) into `AgentConfig`s, one per agent.
 *
 * Precedence for a named agent's settings: a command-line flag (`--temperature 0` applies to
 * every agent of the run), else the agent's own field, else the config file's `defaults`, else
 * the built-in default. Its endpoint, key variable, model and mode are its own and never come from
 * the run's flags (`--model`/`--mode` make an unnamed agent of their own).
 */
import { resolveAgentConfigs, type AgentConfig } from "../../agent/config.js";
import { agentProtocol, protocolNote } from "../../config/agent-protocol.js";
import { PROTOCOLS } from "../../agent/protocols/registry.js";
import type { StoredAgentProtocol } from "../../store/run-options.js";
import type { ModelAgentDefinition } from "../../config/agents.js";
import type { LoadedConfig } from "../../config/loader.js";
import { UmpireError, isUmpireError } from "../../errors.js";
import { registerSecret, registerUrlSecrets } from "../../safety/secrets.js";
import { didYouMean } from "../../task/suggest.js";
import { formatProblem } from "../../task/format-problems.js";
import { dottedPath } from "../../task/problem.js";
import type { ValueSource } from "../args.js";
import type { RunValues } from "./options.js";

/** The run options a named agent may inherit (and a flag overrides), with their sources. */
export type RunAgentValues = Partial<
  Pick<RunValues, "temperature" | "reasoning-effort" | "max-tokens" | "stream" | "repetition-window" | "recovery-limit">
>;

/** The loop's knobs every agent of a run gets unless it sets its own. */
export interface RunLoopDefaults {
  repetitionWindow: number;
  recoveryLimit: number;
  maxInvalidOutputs: number;
}

/** Resolves the named agents `names` from the config file, in the order given. */
export function resolveNamedAgents(
  config: LoadedConfig,
  names: readonly string[],
  values: RunAgentValues,
  sources: Partial<Record<keyof RunAgentValues, ValueSource>>,
  env: NodeJS.ProcessEnv,
): AgentConfig[] {
  const defined = config.data.agents ?? {};
  const where = config.file ?? "the config file";
  const seen = new Set<string>();
  return names.map((name) => {
    if (seen.has(name)) throw new UmpireError("usage", `--agent ${name} is given twice`, "name each agent once");
    seen.add(name);
    const definition = defined[name];
    if (!definition) {
      const known = Object.keys(defined);
      const hint = didYouMean(name, known);
      throw new UmpireError(
        "usage",
        config.file === null
          ? `--agent ${name}: there is no config file, so no named agents`
          : `--agent ${name}: no agent of that name under agents: in ${config.file}`,
        hint ??
          (known.length
            ? `defined agents: ${known.join(", ")}`
            : "define it under agents: in umpire.config.yaml (docs/config.md)"),
      );
    }
    // Command agents (their own loop) are planned apart, by the run command.
    if (definition.kind !== "model")
      throw new UmpireError(
        "usage",
        `--agent ${name}: an agent of kind ${definition.kind} has no model settings to resolve`,
        "run it with --agent; it is planned as an external agent",
      );
    return resolveModelAgent(name, definition, config.policies[name], values, sources, env, where);
  });
}

function resolveModelAgent(
  name: string,
  def: ModelAgentDefinition,
  policy: string | undefined,
  values: RunAgentValues,
  sources: Partial<Record<keyof RunAgentValues, ValueSource>>,
  env: NodeJS.ProcessEnv,
  where: string,
): AgentConfig {
  // Its key and URL credentials, before anything (a refusal, an echoing endpoint) can print them.
  registerUrlSecrets(def.baseUrl);
  if (def.apiKeyEnv) registerSecret(env[def.apiKeyEnv]);
  // A flag beats the agent's field; the agent's field beats the config's defaults and the built-in.
  const pick = <K extends keyof RunAgentValues>(
    key: K,
    own: RunAgentValues[K] | undefined,
  ): RunAgentValues[K] | undefined => (sources[key] === "flag" ? values[key] : (own ?? values[key]));
  let resolved: AgentConfig[];
  try {
    resolved = resolveAgentConfigs({
      model: def.model,
      baseUrl: def.baseUrl,
      apiKeyEnv: def.apiKeyEnv,
      // No protocol: a vendor's model speaks its own (the run's header says so), others Holo structured.
      mode: agentProtocol(def).name,
      temperature: pick("temperature", def.temperature as number | undefined),
      reasoningEffort: pick("reasoning-effort", def.reasoningEffort as RunAgentValues["reasoning-effort"]),
      maxTokens: pick("max-tokens", def.maxTokens as number | undefined),
      stream: pick("stream", def.stream as boolean | undefined) ?? false,
      env,
    });
  } catch (error) {
    // The same refusal as for flags, pointed at the agent's entry in the file.
    if (isUmpireError(error))
      throw new UmpireError(
        error.code,
        `${where}: agents.${name}: ${error.message}`,
        error.hint
          ?.replace(/--mode /g, "protocol: ")
          .replace(/--base-url/g, "baseUrl")
          .replace(/--api-key-env/g, "apiKeyEnv"),
      );
    throw error;
  }
  const loop = {
    repetitionWindow: pick("repetition-window", def.repetitionWindow as number | undefined),
    recoveryLimit: pick("recovery-limit", def.recoveryLimit as number | undefined),
    maxInvalidOutputs: def.maxInvalidOutputs,
  };
  return {
    ...resolved[0]!,
    label: name,
    name,
    ...(def.imageBudget !== undefined && { imageBudget: def.imageBudget }),
    // The family's knobs (the config check refused any its protocol does not read).
    ...(def.displaySize !== undefined && { displaySize: def.displaySize }),
    ...(def.minPixels !== undefined && { minPixels: def.minPixels }),
    ...(def.maxPixels !== undefined && { maxPixels: def.maxPixels }),
    ...(def.promptCaching !== undefined && { promptCaching: def.promptCaching }),
    ...(def.computerTool !== undefined && { computerTool: def.computerTool }),
    ...(policy !== undefined && { policy }),
    ...(def.tools !== undefined && { tools: def.tools as AgentConfig["tools"] }),
    loop: Object.fromEntries(Object.entries(loop).filter(([, v]) => v !== undefined)),
  };
}

/** Each named model agent's protocol and its source, as the run stores it (`umpire show` says the inferred ones). */
export function agentProtocolRecords(config: LoadedConfig, agents: readonly AgentConfig[]): StoredAgentProtocol[] {
  return agents.flatMap((agent) => {
    const def = agent.name === undefined ? undefined : config.data.agents?.[agent.name];
    if (def?.kind !== "model") return [];
    const chosen = agentProtocol(def);
    const family = PROTOCOLS[chosen.name].family;
    return [{ agent: agent.name!, protocol: chosen.name, family, source: chosen.source, model: def.model }];
  });
}

/** A line per named model agent of `agents` whose protocol was inferred or defaulted, saying which and why. */
export function protocolNotes(config: LoadedConfig, agents: readonly AgentConfig[]): string[] {
  return agents.flatMap((agent) => {
    const def = agent.name === undefined ? undefined : config.data.agents?.[agent.name];
    const note = def?.kind === "model" ? protocolNote(agent.name!, def) : null;
    return note === null ? [] : [note];
  });
}

/**
 * The config file's notices about the named agents of `agents` (`LoadedConfig.notices`: a forced
 * `computerTool` its model id is not documented with), one line each with the file, line and field.
 */
export function agentNotices(config: LoadedConfig, agents: readonly AgentConfig[]): string[] {
  const under = agents.flatMap((a) => (a.name === undefined ? [] : [`${dottedPath(["agents", a.name])}.`]));
  return (config.notices ?? [])
    .filter((p) => under.some((prefix) => p.path.startsWith(prefix)))
    .map((p) => formatProblem(p));
}

/**
 * Every agent of the run with its loop knobs filled in from the run's (so an agent's stored
 * definition, and its hash, say exactly which knobs it ran with), checked for unique labels.
 */
export function finalizeAgents(agents: AgentConfig[], loop: RunLoopDefaults): AgentConfig[] {
  const labels = new Set<string>();
  for (const a of agents) {
    if (labels.has(a.label))
      throw new UmpireError("usage", `the agent ${a.label} is given twice`, "name each --agent and --model once");
    labels.add(a.label);
  }
  return agents.map((a) => ({
    ...a,
    loop: {
      repetitionWindow: a.loop?.repetitionWindow ?? loop.repetitionWindow,
      recoveryLimit: a.loop?.recoveryLimit ?? loop.recoveryLimit,
      maxInvalidOutputs: a.loop?.maxInvalidOutputs ?? loop.maxInvalidOutputs,
    },
  }));
}
