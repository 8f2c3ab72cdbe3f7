/**
 * A named model agent's protocol and its family knobs (#41): which protocol the entry speaks
 * (`protocol:`, its older name `mode:`, else the family of a known model id, else Holo structured),
 * and the refusal of every knob that protocol does not read, so no knob is accepted and then not sent.
 * What a protocol reads is its registry entry's `knobs` (src/agent/protocols/), never a list here.
 * Also the notices a knob earns without being refused (a forced version the model is not documented with).
 */
import { nativeProtocolOf } from "../agent/models.js";
import { chosenComputerTool, documentedComputerTool } from "../agent/protocols/anthropic-computer.js";
import type { ProtocolKnobs, ProtocolName } from "../agent/protocols/protocol.js";
import { PROTOCOLS, protocolList } from "../agent/protocols/registry.js";
import type { ModelAgentDefinition } from "./agents.js";

/** Where an agent's protocol came from, for the line that says it. */
export type ProtocolSource = "protocol" | "mode" | "model" | "default";

export interface AgentProtocol {
  name: ProtocolName;
  source: ProtocolSource;
}

/** The protocol an entry speaks and why (when `protocol:` and `mode:` disagree, `protocol:` is taken; the check refuses it). */
export function agentProtocol(def: Pick<ModelAgentDefinition, "protocol" | "mode" | "model">): AgentProtocol {
  if (def.protocol !== undefined) return { name: def.protocol, source: "protocol" };
  if (def.mode !== undefined) return { name: def.mode, source: "mode" };
  const native = nativeProtocolOf(def.model);
  return native !== null ? { name: native, source: "model" } : { name: "structured", source: "default" };
}

/** One line saying an agent's protocol when it was not written in its entry (the run's header prints it). */
export function protocolNote(name: string, def: ModelAgentDefinition): string | null {
  const chosen = agentProtocol(def);
  const family = PROTOCOLS[chosen.name].family;
  if (chosen.source === "model")
    return `agent ${name}: protocol ${chosen.name} (${family}), inferred from its model id ${def.model}; set protocol: to choose another`;
  if (chosen.source === "default")
    return `agent ${name}: protocol structured (Holo), the default: umpire knows no native protocol for the model id ${def.model}; set protocol: to choose another`;
  return null;
}

/** One problem with an entry's protocol or knobs: the field (under the entry), what is wrong, the fix. */
export interface AgentProtocolProblem {
  field: string;
  message: string;
  fix: string;
}

type KnobField =
  | "imageBudget"
  | "reasoningEffort"
  | "displaySize"
  | "promptCaching"
  | "computerTool"
  | "minPixels"
  | "maxPixels";
const KNOB_OF: Record<KnobField, keyof ProtocolKnobs> = {
  imageBudget: "imageBudget",
  reasoningEffort: "reasoningEffort",
  displaySize: "displaySize",
  promptCaching: "promptCaching",
  computerTool: "computerTool",
  minPixels: "pixels",
  maxPixels: "pixels",
};

/** The knob fields a protocol reads, in the entry's words. */
export function knobFieldsOf(name: ProtocolName): KnobField[] {
  const knobs = PROTOCOLS[name].knobs;
  return (Object.keys(KNOB_OF) as KnobField[]).filter((field) => knobs[KNOB_OF[field]] !== undefined);
}

/** Every problem with a model agent's protocol choice and knobs, in field order. */
export function agentProtocolProblems(def: ModelAgentDefinition): AgentProtocolProblem[] {
  const problems: AgentProtocolProblem[] = [];
  if (def.protocol !== undefined && def.mode !== undefined && def.protocol !== def.mode)
    problems.push({
      field: "mode",
      message: `mode: ${def.mode} disagrees with protocol: ${def.protocol} (mode is protocol's older name)`,
      fix: `keep one of them: protocol: ${def.protocol}, or protocol: ${def.mode}`,
    });
  const chosen = agentProtocol(def);
  const why =
    chosen.source === "model"
      ? ` (inferred from the model id ${def.model})`
      : chosen.source === "default"
        ? ` (the default: umpire knows no native protocol for the model id ${def.model})`
        : "";
  const own = knobFieldsOf(chosen.name);
  for (const field of Object.keys(KNOB_OF) as KnobField[]) {
    if (def[field] === undefined || own.includes(field)) continue;
    const takers = protocolList()
      .filter((p) => p.knobs[KNOB_OF[field]] !== undefined)
      .map((p) => p.name);
    problems.push({
      field,
      message: `${field} is not a knob of protocol ${chosen.name}${why}, which would send nothing different for it; its knobs: ${own.join(", ") || "none"}`,
      fix: `remove ${field}, or set protocol: to one that takes it (${takers.join(", ")})`,
    });
  }
  return [...problems, ...pixelProblems(def, chosen.name)];
}

function pixelProblems(def: ModelAgentDefinition, name: ProtocolName): AgentProtocolProblem[] {
  const bounds = PROTOCOLS[name].knobs.pixels;
  if (!bounds) return [];
  const problems: AgentProtocolProblem[] = [];
  const range = `${bounds.min} to ${bounds.max} (${PROTOCOLS[name].family}'s own smart_resize bounds)`;
  for (const field of ["minPixels", "maxPixels"] as const) {
    const value = def[field];
    if (value !== undefined && (value < bounds.min || value > bounds.max))
      problems.push({
        field,
        message: `${field}: ${value} is outside ${range}`,
        fix: `give ${field} from ${range}`,
      });
  }
  if (def.minPixels !== undefined && def.maxPixels !== undefined && def.minPixels > def.maxPixels)
    problems.push({
      field: "minPixels",
      message: `minPixels: ${def.minPixels} is above maxPixels: ${def.maxPixels}`,
      fix: "make minPixels at most maxPixels",
    });
  return problems;
}

/**
 * The notices (never refusals: the user may know better, e.g. of a model newer than Anthropic's page)
 * an entry's knobs earn: a `computerTool` forcing the single tool's version other than the one
 * Anthropic documents for the entry's model id, which a real endpoint may refuse. An id the page does
 * not list is not checked; a knob the protocol does not read is `agentProtocolProblems`' refusal.
 */
export function agentProtocolNotices(def: ModelAgentDefinition): AgentProtocolProblem[] {
  const forced = def.computerTool;
  if (forced === undefined || forced === "auto" || !knobFieldsOf(agentProtocol(def).name).includes("computerTool"))
    return [];
  const sent = chosenComputerTool(forced, def.model);
  const documented = documentedComputerTool(def.model);
  if (sent === null || documented === null || sent.type === documented.type) return [];
  return [
    {
      field: "computerTool",
      message: `${forced} is not the version Anthropic documents for ${def.model} (${documented.type}, beta ${documented.beta}); a real endpoint may refuse the request`,
      fix: `computerTool: auto (or no computerTool) sends ${documented.type}; keep ${forced} only if you know ${def.model} takes it`,
    },
  ];
}
