/**
 * Every field of a model agent under `agents:` reaches the agent config the trials run with: each
 * value given in the config file comes out of resolution unchanged, so no field is read and dropped.
 * (What the agent config then changes in requests and in the loop is shown by the flags' tests.)
 */
import { describe, expect, it } from "vitest";
import { finalizeAgents, resolveNamedAgents } from "../../../src/cli/agents.js";
import type { LoadedConfig } from "../../../src/config/index.js";

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
    const [agent] = finalizeAgents(resolveNamedAgents(config, ["full"], {}, {}, { MY_KEY: "k" }), { repetitionWindow: 3, recoveryLimit: 1, maxInvalidOutputs: 3 });
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
});
