/**
 * `kind: command` in the config file's `agents:`: an agent that brings its own loop (its own code,
 * or a framework such as browser-use or Stagehand) and drives the trial's browser over CDP.
 * umpire runs the command once per trial (docs/external-agents.md has the contract).
 */
import { dirname, resolve } from "node:path";
import { z } from "zod";
import { apiKeyEnvField } from "./api-key-env.js";

/** Variables an agent never gets, whatever its config asks: the keys umpire itself holds. */
export const WITHHELD_VARIABLES: readonly string[] = ["HAI_API_KEY"];

/**
 * `modelProxy`: the agent's OpenAI-compatible model calls go through a proxy umpire runs per trial, which
 * adds the key umpire holds and measures tokens, cost and latency itself (src/runner/external/model-proxy.ts).
 */
export const ModelProxySchema = z
  .object({
    baseUrl: z
      .string()
      .url()
      .refine((raw) => /^https?:$/.test(new URL(raw).protocol), {
        message: "an http(s) URL, e.g. https://api.openai.com/v1",
      })
      .refine(
        (raw) => {
          const url = new URL(raw);
          return !url.username && !url.password && !url.search;
        },
        { message: "no credentials in the URL (user info or query): give the key's variable in apiKeyEnv" },
      )
      .describe(
        "The upstream OpenAI-compatible endpoint, ending where /chat/completions and /models begin " +
          "(e.g. https://api.openai.com/v1)",
      ),
    apiKeyEnv: apiKeyEnvField(
      "The NAME of umpire's variable holding the upstream key; umpire adds it, the agent never sees it",
    ),
  })
  .strict()
  .describe("Route the agent's model calls through umpire: measured usage, and the key stays outside the sandbox");
export type ModelProxyDefinition = z.infer<typeof ModelProxySchema>;

export const CommandAgentSchema = z
  .object({
    kind: z
      .literal("command")
      .describe("command: an agent that brings its own loop; umpire runs `command` once per trial"),
    command: z
      .array(z.string().min(1))
      .min(1, "give the program and its arguments, e.g. [node, agent.js]")
      .describe(
        "argv: the program and its arguments (no shell); trial details arrive as UMPIRE_* environment variables",
      ),
    cwd: z
      .string()
      .min(1)
      .optional()
      .describe("Working folder, relative to this config file (default: the config file's folder)"),
    env: z
      .record(
        z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name: letters, digits and '_'"),
        z.string(),
      )
      .optional()
      .describe("Extra environment variables for the command; values are never stored (only their names)"),
    passEnv: z
      .array(
        z
          .string()
          .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name: letters, digits and '_'")
          .refine((name) => !WITHHELD_VARIABLES.includes(name), {
            message: "umpire's own model key never reaches an agent: give the agent its own variable",
          }),
      )
      .optional()
      .describe(
        "Names of variables of umpire's environment the command also gets (its own keys); nothing else is inherited",
      ),
    network: z
      .array(z.string().regex(/^https?:\/\/[^/?#@\s]+$/, "an origin: scheme://host[:port], no path"))
      .optional()
      .describe(
        "Origins the agent's own code may reach from the sandbox (its model endpoints); nothing else but the trial's CDP endpoint",
      ),
    model: z
      .string()
      .min(1)
      .optional()
      .describe("The model the agent uses, for the store and for pricing the usage it reports"),
    modelProxy: ModelProxySchema.optional(),
  })
  .strict()
  .superRefine((agent, ctx) => {
    const proxy = agent.modelProxy;
    if (!proxy) return;
    if (proxy.apiKeyEnv && agent.passEnv?.includes(proxy.apiKeyEnv)) {
      const message = `${proxy.apiKeyEnv} is modelProxy's key: umpire holds it, so it cannot also be passed to the agent`;
      ctx.addIssue({ code: "custom", path: ["passEnv"], message: `${message} (remove it from passEnv)` });
    }
    const upstream = new URL(proxy.baseUrl).origin;
    if (agent.network?.some((origin) => new URL(origin).origin === upstream)) {
      const message = `${upstream} is modelProxy's upstream: the agent reaches it through umpire only`;
      ctx.addIssue({ code: "custom", path: ["network"], message: `${message} (remove it from network)` });
    }
  })
  .describe("An agent whose loop is its own, driving the trial's browser over CDP");
export type CommandAgentDefinition = z.infer<typeof CommandAgentSchema>;

/** The runner's view of a command agent: cwd made absolute against the config file's folder. */
export function resolveCommandAgent(
  name: string,
  definition: CommandAgentDefinition,
  configFile: string | null,
  cwd: string,
) {
  const base = configFile ? dirname(configFile) : cwd;
  const proxy = definition.modelProxy;
  return {
    name,
    command: definition.command,
    cwd: resolve(base, definition.cwd ?? "."),
    env: definition.env ?? {},
    passEnv: definition.passEnv ?? [],
    network: definition.network ?? [],
    modelProxy: proxy ? { baseUrl: proxy.baseUrl.replace(/\/+$/, ""), apiKeyEnv: proxy.apiKeyEnv ?? null } : null,
  };
}

/** What a run stores about a command agent: never the values of its environment variables. */
export function redactCommandAgent(name: string, definition: CommandAgentDefinition) {
  return {
    name,
    kind: "command",
    command: definition.command,
    cwd: definition.cwd ?? ".",
    envNames: Object.keys(definition.env ?? {}),
    model: definition.model ?? null,
    modelProxy: definition.modelProxy ?? null,
  };
}
