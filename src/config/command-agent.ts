/**
 * `kind: command` in the config file's `agents:`: an agent that brings its own loop (its own code,
 * or a framework such as browser-use or Stagehand) and drives the trial's browser over CDP.
 * umpire runs the command once per trial (docs/external-agents.md has the contract).
 */
import { dirname, resolve } from "node:path";
import { z } from "zod";

export const CommandAgentSchema = z
  .object({
    kind: z.literal("command").describe("command: an agent that brings its own loop; umpire runs `command` once per trial"),
    command: z
      .array(z.string().min(1))
      .min(1, "give the program and its arguments, e.g. [node, agent.js]")
      .describe("argv: the program and its arguments (no shell); trial details arrive as UMPIRE_* environment variables"),
    cwd: z.string().min(1).optional().describe("Working folder, relative to this config file (default: the config file's folder)"),
    env: z
      .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name: letters, digits and '_'"), z.string())
      .optional()
      .describe("Extra environment variables for the command; values are never stored (only their names)"),
    model: z.string().min(1).optional().describe("The model the agent uses, for the store and for pricing the usage it reports"),
  })
  .strict()
  .describe("An agent whose loop is its own, driving the trial's browser over CDP");
export type CommandAgentDefinition = z.infer<typeof CommandAgentSchema>;

/** The runner's view of a command agent: cwd made absolute against the config file's folder. */
export function resolveCommandAgent(name: string, definition: CommandAgentDefinition, configFile: string | null, cwd: string) {
  const base = configFile ? dirname(configFile) : cwd;
  return { name, command: definition.command, cwd: resolve(base, definition.cwd ?? "."), env: definition.env ?? {} };
}

/** What a run stores about a command agent: never the values of its environment variables. */
export function redactCommandAgent(name: string, definition: CommandAgentDefinition) {
  return { name, kind: "command", command: definition.command, cwd: definition.cwd ?? ".", envNames: Object.keys(definition.env ?? {}), model: definition.model ?? null };
}
