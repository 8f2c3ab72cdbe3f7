/**
 * `kind: command` in the config file's `agents:`: an agent that brings its own loop (its own code,
 * or a framework such as browser-use or Stagehand) and drives the trial's browser over CDP.
 * umpire runs the command once per trial (docs/external-agents.md has the contract).
 */
import { dirname, resolve } from "node:path";
import { z } from "zod";

/** Variables an agent never gets, whatever its config asks: the keys umpire itself holds. */
export const WITHHELD_VARIABLES: readonly string[] = ["HAI_API_KEY"];

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
    passEnv: z
      .array(
        z
          .string()
          .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name: letters, digits and '_'")
          .refine((name) => !WITHHELD_VARIABLES.includes(name), { message: "umpire's own model key never reaches an agent: give the agent its own variable" }),
      )
      .optional()
      .describe("Names of variables of umpire's environment the command also gets (its own keys); nothing else is inherited"),
    network: z
      .array(z.string().regex(/^https?:\/\/[^/?#@\s]+$/, "an origin: scheme://host[:port], no path"))
      .optional()
      .describe("Origins the agent's own code may reach from the sandbox (its model endpoints); nothing else but the trial's CDP endpoint"),
    model: z.string().min(1).optional().describe("The model the agent uses, for the store and for pricing the usage it reports"),
  })
  .strict()
  .describe("An agent whose loop is its own, driving the trial's browser over CDP");
export type CommandAgentDefinition = z.infer<typeof CommandAgentSchema>;

/** The runner's view of a command agent: cwd made absolute against the config file's folder. */
export function resolveCommandAgent(name: string, definition: CommandAgentDefinition, configFile: string | null, cwd: string) {
  const base = configFile ? dirname(configFile) : cwd;
  return {
    name,
    command: definition.command,
    cwd: resolve(base, definition.cwd ?? "."),
    env: definition.env ?? {},
    passEnv: definition.passEnv ?? [],
    network: definition.network ?? [],
  };
}

/** What a run stores about a command agent: never the values of its environment variables. */
export function redactCommandAgent(name: string, definition: CommandAgentDefinition) {
  return { name, kind: "command", command: definition.command, cwd: definition.cwd ?? ".", envNames: Object.keys(definition.env ?? {}), model: definition.model ?? null };
}
