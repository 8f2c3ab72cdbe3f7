/**
 * The key of a command agent's `modelProxy`, read from umpire's environment (the CLI is the only layer
 * that reads it) and registered for scrubbing before anything can echo it. The agent never gets it:
 * umpire's model proxy adds it to each call it forwards (src/runner/external/model-proxy.ts).
 */
import { UmpireError } from "../../errors.js";
import { registerSecret } from "../../safety/secrets.js";
import type { CommandAgentSpec } from "../../runner/external/command-agent.js";

type ProxySpec = NonNullable<CommandAgentSpec["modelProxy"]>;

/**
 * The agent's modelProxy with its key. A named variable that is not set is a usage error naming the
 * agent and the variable (never a value); `listing` (run --list) calls nothing, so it needs no key.
 */
export function modelProxyWithKey(
  agent: string,
  proxy: ProxySpec | null | undefined,
  env: NodeJS.ProcessEnv,
  listing: boolean,
): ProxySpec | null {
  if (!proxy) return null;
  if (!proxy.apiKeyEnv) return { ...proxy, apiKey: null };
  const key = env[proxy.apiKeyEnv];
  if (!key && !listing) {
    throw new UmpireError(
      "usage",
      `agents.${agent}.modelProxy.apiKeyEnv: ${proxy.apiKeyEnv} is not set in umpire's environment`,
      `export ${proxy.apiKeyEnv}=<the upstream's key> before umpire run ` +
        "(umpire adds it to the agent's model calls; the agent never sees it)",
    );
  }
  registerSecret(key);
  return { ...proxy, apiKey: key ?? null };
}
