/**
 * A command agent's `passEnv` and `network` fields, from the config file to what the sandbox lets
 * through: passEnv names exactly the variables of umpire's environment the agent gets (no key it did
 * not name), network the only destinations besides its trial's CDP relay.
 */
import { describe, expect, it } from "vitest";
import { CommandAgentSchema, resolveCommandAgent } from "../../../src/config/command-agent.js";
import { agentEnvironment } from "../../../src/runner/external/agent-sandbox.js";
import { egressAllowList } from "../../../src/runner/external/external-trial.js";

const agent = (extra: Record<string, unknown>) =>
  resolveCommandAgent(
    "a",
    CommandAgentSchema.parse({ kind: "command", command: ["node", "agent.mjs"], ...extra }),
    null,
    "/project",
  );

describe("a command agent's passEnv and network", () => {
  it("passEnv lets exactly the named variables of umpire's environment through", () => {
    const parent = { PATH: "/bin", AGENT_KEY: "k-agent", HAI_API_KEY: "k-umpire", OTHER: "x" };
    const without = agentEnvironment(parent, agent({}).passEnv, {}, { UMPIRE_TRIAL_ID: "t" });
    expect(without).toEqual({ PATH: "/bin", UMPIRE_TRIAL_ID: "t" });
    const withPass = agentEnvironment(parent, agent({ passEnv: ["AGENT_KEY"] }).passEnv, {}, { UMPIRE_TRIAL_ID: "t" });
    expect(withPass).toEqual({ PATH: "/bin", AGENT_KEY: "k-agent", UMPIRE_TRIAL_ID: "t" });
    expect(() => agent({ passEnv: ["HAI_API_KEY"] })).toThrow(/model key never reaches an agent/);
  });

  it("network adds its origins to the destinations the sandbox lets out; without it, only the CDP relay", () => {
    const relay = "ws://127.0.0.1:4100/devtools/browser/abc";
    expect([...egressAllowList(agent({}).network, relay)]).toEqual(["127.0.0.1:4100"]);
    const declared = agent({ network: ["http://localhost:8000", "https://api.example.test"] }).network;
    expect([...egressAllowList(declared, relay)]).toEqual(["127.0.0.1:4100", "127.0.0.1:8000", "api.example.test:443"]);
  });
});
