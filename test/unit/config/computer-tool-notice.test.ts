/**
 * A named agent's `computerTool` forcing a single tool's version other than the one Anthropic
 * documents for its model id earns a notice, never a refusal (the user may know better, e.g. of a
 * model newer than the page): the config file, the line, the field, the documented version and the
 * way back (`computerTool: auto`). `umpire run` prints those of its agents (agentNotices).
 */
import { describe, expect, it } from "vitest";
import type { AgentConfig } from "../../../src/agent/config.js";
import { agentNotices } from "../../../src/cli/run/named-agents.js";
import { agentProtocolNotices } from "../../../src/config/agent-protocol.js";
import type { ModelAgentDefinition } from "../../../src/config/agents.js";
import { validateConfigText } from "../../../src/config/loader.js";

/** An agent entry; its protocol written, so a model id umpire does not know (a proxy's alias) speaks Anthropic's too. */
const agent = (model: string, computerTool?: string, protocol = "anthropic-computer") =>
  `    model: ${model}\n    baseUrl: https://api.anthropic.com/v1\n    protocol: ${protocol}\n${computerTool ? `    computerTool: ${computerTool}\n` : ""}`;

function noticesOf(text: string) {
  const result = validateConfigText(text, "umpire.config.yaml", false);
  if ("problems" in result) throw new Error(`expected a valid config, got ${JSON.stringify(result.problems)}`);
  return result.notices ?? [];
}

const def = (model: string, computerTool?: string): ModelAgentDefinition =>
  ({
    kind: "model",
    model,
    protocol: "anthropic-computer",
    ...(computerTool && { computerTool }),
  }) as ModelAgentDefinition;

describe("computerTool notices", () => {
  it("a version forced against the documented one, either way, is a warning with file, line, field and the way back", () => {
    const notices = noticesOf(
      `agents:\n  newer:\n${agent("claude-opus-4-6", "computer_20250124")}  older:\n${agent("claude-sonnet-4-5", "computer_20251124")}`,
    );
    expect(notices).toEqual([
      {
        file: "umpire.config.yaml",
        line: 6,
        path: "agents.newer.computerTool",
        severity: "warning",
        rule: "agents",
        message:
          "computer_20250124 is not the version Anthropic documents for claude-opus-4-6 (computer_20251124, beta computer-use-2025-11-24); a real endpoint may refuse the request",
        fix: "computerTool: auto (or no computerTool) sends computer_20251124; keep computer_20250124 only if you know claude-opus-4-6 takes it",
      },
      expect.objectContaining({
        line: 11,
        path: "agents.older.computerTool",
        severity: "warning",
        message: expect.stringContaining(
          "computer_20251124 is not the version Anthropic documents for claude-sonnet-4-5 (computer_20250124, beta computer-use-2025-01-24)",
        ),
      }),
    ]);
  });

  it.each([
    ["auto", "claude-opus-4-6", "auto"],
    ["no knob", "claude-opus-4-6", undefined],
    ["the documented version named", "claude-opus-4-6", "computer_20251124"],
    ["the documented older version named", "claude-haiku-4-5-20251001", "computer_20250124"],
    ["the toolset, which names no version", "claude-sonnet-4-5", "computer_toolset_20260801"],
    ["an id Anthropic's page does not list (a proxy's alias)", "sonnet-via-proxy", "computer_20250124"],
    ["a model newer than the page", "claude-opus-5", "computer_20250124"],
  ])("no notice: %s", (_, model, computerTool) => {
    expect(agentProtocolNotices(def(model, computerTool))).toEqual([]);
    expect(noticesOf(`agents:\n  claude:\n${agent(model, computerTool)}`)).toEqual([]);
  });

  it("a protocol that does not read computerTool gets its refusal, not a notice as well", () => {
    const result = validateConfigText(
      `agents:\n  claude:\n${agent("claude-opus-4-6", "computer_20250124", "structured")}`,
      "umpire.config.yaml",
      false,
    );
    expect(result).not.toHaveProperty("data");
    expect(agentProtocolNotices({ ...def("claude-opus-4-6", "computer_20250124"), protocol: "structured" })).toEqual(
      [],
    );
  });

  it("umpire run says those of its own agents, one line each naming the file and the line", () => {
    const text = `agents:\n  forced:\n${agent("claude-opus-4-7", "computer_20250124")}  other:\n${agent("claude-sonnet-4-5", "computer_20251124")}`;
    const config = { file: "umpire.config.yaml", data: {}, policies: {}, notices: noticesOf(text) };
    const named = (name: string) => ({ name, label: name }) as AgentConfig;
    const lines = agentNotices(config, [named("forced"), { label: "reference/structured" } as AgentConfig]);
    expect(lines).toEqual([
      "umpire.config.yaml:6: warning: agents.forced.computerTool: computer_20250124 is not the version Anthropic documents for claude-opus-4-7 (computer_20251124, beta computer-use-2025-11-24); a real endpoint may refuse the request (fix: computerTool: auto (or no computerTool) sends computer_20251124; keep computer_20250124 only if you know claude-opus-4-7 takes it)",
    ]);
    expect(agentNotices(config, [named("other")])).toHaveLength(1);
    expect(agentNotices(config, [named("forced-too")])).toEqual([]);
  });
});
