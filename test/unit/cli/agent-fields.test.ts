/**
 * Every field of a model agent under `agents:` reaches the agent config the trials run with: each
 * value given in the config file comes out of resolution unchanged, so no field is read and dropped.
 * (What the agent config then changes in requests and in the loop is shown by the flags' tests.)
 */
import { describe, expect, it } from "vitest";
import { finalizeAgents, resolveNamedAgents } from "../../../src/cli/run/named-agents.js";
import type { LoadedConfig } from "../../../src/config/loader.js";
import { redactCommandAgent, resolveCommandAgent } from "../../../src/config/command-agent.js";

describe("a model agent's fields", () => {
  it("each field of agents.<name> reaches the resolved agent config", () => {
    const config: LoadedConfig = {
      file: "umpire.config.yaml",
      data: {
        agents: {
          full: {
            kind: "model",
            model: "my-model",
            baseUrl: "http://127.0.0.1:9999/v1",
            apiKeyEnv: "MY_KEY",
            mode: "tools",
            temperature: 0.25,
            reasoningEffort: "high",
            maxTokens: 1234,
            stream: true,
            imageBudget: 2,
            tools: ["click", "answer"],
            repetitionWindow: 5,
            recoveryLimit: 2,
            maxInvalidOutputs: 7,
          },
        },
      },
      policies: { full: "Read every page twice." },
    };
    const [agent] = finalizeAgents(resolveNamedAgents(config, ["full"], {}, {}, { MY_KEY: "k" }), {
      repetitionWindow: 3,
      recoveryLimit: 1,
      maxInvalidOutputs: 3,
    });
    expect(agent).toMatchObject({
      model: "my-model",
      endpoint: { kind: "url", baseUrl: "http://127.0.0.1:9999/v1" },
      apiKeyEnv: "MY_KEY",
      mode: "tools",
      temperature: 0.25,
      reasoningEffort: "high",
      maxTokens: 1234,
      stream: true,
      imageBudget: 2,
      tools: ["click", "answer"],
      policy: "Read every page twice.",
      loop: { repetitionWindow: 5, recoveryLimit: 2, maxInvalidOutputs: 7 },
    });
  });

  it("a command agent runs in cwd (relative to the config file), gets env, and is stored under its model", () => {
    const definition = {
      kind: "command" as const,
      command: ["node", "agent.mjs"],
      cwd: "agents/ts",
      env: { AGENT_TOKEN: "t0k" },
      model: "holo3-1-35b-a3b",
    };
    expect(resolveCommandAgent("ts", definition, "/project/umpire.config.yaml", "/elsewhere")).toEqual({
      name: "ts",
      command: ["node", "agent.mjs"],
      cwd: "/project/agents/ts",
      env: { AGENT_TOKEN: "t0k" },
      passEnv: [],
      network: [],
      modelProxy: null,
    });
    // The run stores the model (priced and reported under it) and the variable's name, never its value.
    const stored = redactCommandAgent("ts", definition);
    expect(stored).toMatchObject({ model: "holo3-1-35b-a3b", envNames: ["AGENT_TOKEN"] });
    expect(JSON.stringify(stored)).not.toContain("t0k");
  });
});
