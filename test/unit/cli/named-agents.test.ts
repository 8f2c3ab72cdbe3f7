/**
 * A named agent's settings: a command-line flag beats the agent's field, the agent's field beats
 * the config's defaults (which arrive as the run's values with source "config"); the definition
 * hash changes with what the agent does and not with its name.
 */
import { describe, expect, it } from "vitest";
import { agentDefinitionHash } from "../../../src/agent/config.js";
import { finalizeAgents, resolveNamedAgents } from "../../../src/cli/run/named-agents.js";
import type { LoadedConfig } from "../../../src/config/loader.js";

const config: LoadedConfig = {
  file: "umpire.config.yaml",
  data: {
    agents: {
      a: { kind: "model", model: "reference", temperature: 0.1, recoveryLimit: 3 },
      b: { kind: "model", model: "reference" },
    },
  },
  policies: { a: "Be careful." },
};
const loop = { repetitionWindow: 3, recoveryLimit: 1, maxInvalidOutputs: 3 };

describe("named agent precedence", () => {
  it("agent field > config defaults; a flag > the agent field", () => {
    const fromConfig = finalizeAgents(
      resolveNamedAgents(
        config,
        ["a", "b"],
        { temperature: 0.7, "recovery-limit": 1 },
        { temperature: "config", "recovery-limit": "config" },
        {},
      ),
      loop,
    );
    expect(fromConfig.map((a) => [a.label, a.temperature, a.loop?.recoveryLimit, a.policy])).toEqual([
      ["a", 0.1, 3, "Be careful."],
      ["b", 0.7, 1, undefined],
    ]);
    const flagged = finalizeAgents(
      resolveNamedAgents(
        config,
        ["a"],
        { temperature: 0.5, "recovery-limit": 0 },
        { temperature: "flag", "recovery-limit": "flag" },
        {},
      ),
      loop,
    );
    expect([flagged[0]!.temperature, flagged[0]!.loop?.recoveryLimit]).toEqual([0.5, 0]);
  });

  it("the hash follows the definition, not the name", () => {
    const [a] = finalizeAgents(resolveNamedAgents(config, ["a"], {}, {}, {}), loop);
    expect(agentDefinitionHash({ ...a!, name: "renamed", label: "renamed" })).toBe(agentDefinitionHash(a!));
    expect(agentDefinitionHash({ ...a!, policy: "Be quick." })).not.toBe(agentDefinitionHash(a!));
    expect(agentDefinitionHash({ ...a!, imageBudget: 1 })).not.toBe(agentDefinitionHash(a!));
  });
});
