/**
 * The lint's `anthropic-computer-tool-version`: the single computer tool's version against the one
 * Anthropic's "Computer use tool" page documents for the request's model. The requests are the ones
 * umpire's Anthropic protocol builds (its `betas` become the `anthropic-beta` header, as the SDK sends
 * them), with `computerTool` left on auto or forced; an id the page does not list is not checked.
 */
import { describe, expect, it } from "vitest";
import { resolveAgentConfigs, type AgentConfig } from "../../../src/agent/config.js";
import { anthropicComputer } from "../../../src/agent/protocols/anthropic-computer.js";
import { LINT_RULES } from "../../../src/sim/lint.js";
import { lintVendorRequest } from "../../../src/sim/vendor-lint.js";

const PNG_1x1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

/** The first request umpire sends for `model` with the knob, and the header its `betas` become. */
function firstRequest(model: string, computerTool?: AgentConfig["computerTool"]) {
  const [config] = resolveAgentConfigs({
    model,
    mode: "anthropic-computer",
    baseUrl: "http://127.0.0.1:9/v1",
    env: {},
  });
  const c = anthropicComputer.open({
    config: { ...config!, ...(computerTool && { computerTool }) },
    instruction: "Answer with the page's title.",
    offered: ["click", "answer"],
    trialId: "t1",
  });
  c.observe({ screenshot: { data: PNG_1x1, mimeType: "image/png" }, url: "http://127.0.0.1/" });
  const { betas, ...body } = c.request() as { betas?: string[]; tools: { type: string }[] };
  return { body, headers: betas ? { "anthropic-beta": betas.join(",") } : {} };
}

const rules = ({ body, headers }: ReturnType<typeof firstRequest>) =>
  lintVendorRequest("anthropic", body, headers).map((v) => v.rule);

describe("anthropic-computer-tool-version", () => {
  it("is listed, and says an id the page does not list is not checked", () => {
    expect(LINT_RULES["anthropic-computer-tool-version"]).toMatch(/not checked/);
  });

  it.each([
    ["claude-opus-4-6", "computer_20251124"],
    ["claude-opus-4-5-20251101", "computer_20251124"],
    ["claude-sonnet-4-5", "computer_20250124"],
    ["claude-haiku-4-5-20251001", "computer_20250124"],
  ])("%s on auto (%s) is conformant, and so is naming its documented version", (model, version) => {
    const auto = firstRequest(model);
    expect(auto.body.tools[0]!.type).toBe(version);
    expect(rules(auto)).toEqual([]);
    expect(rules(firstRequest(model, version as AgentConfig["computerTool"]))).toEqual([]);
  });

  it.each([
    ["claude-opus-4-6", "computer_20250124", "computer_20251124 (beta computer-use-2025-11-24)"],
    ["claude-opus-4-7", "computer_20250124", "computer_20251124 (beta computer-use-2025-11-24)"],
    ["claude-sonnet-4-5", "computer_20251124", "computer_20250124 (beta computer-use-2025-01-24)"],
    [
      "anthropic.claude-opus-4-1-20250805-v1:0",
      "computer_20251124",
      "computer_20250124 (beta computer-use-2025-01-24)",
    ],
  ] as const)("%s with %s forced is flagged, naming the documented version", (model, forced, documented) => {
    const sent = firstRequest(model, forced);
    const violations = lintVendorRequest("anthropic", sent.body, sent.headers);
    expect(violations).toEqual([
      {
        rule: "anthropic-computer-tool-version",
        path: "tools[0].type",
        message: `${forced} is sent for ${model}, which Anthropic documents with ${documented}`,
      },
    ]);
  });

  it.each(["reference", "my-proxy-sonnet", "claude-opus-5", "claude-opus-4.5"])(
    "%s is not a model id the page lists: not checked, whichever version is forced",
    (model) => {
      expect(rules(firstRequest(model, "computer_20250124"))).toEqual([]);
      expect(rules(firstRequest(model, "computer_20251124"))).toEqual([]);
    },
  );

  it("the toolset names no version: not checked against the model", () => {
    expect(rules(firstRequest("claude-sonnet-4-5", "computer_toolset_20260801"))).toEqual([]);
  });

  it("a beta that disagrees with the tool is anthropic-computer-tool's, not a second finding here", () => {
    const sent = firstRequest("claude-opus-4-6");
    expect(rules({ ...sent, headers: { "anthropic-beta": "computer-use-2025-01-24" } })).toEqual([
      "anthropic-computer-tool",
    ]);
    const older = firstRequest("claude-sonnet-4-5");
    expect(rules({ ...older, headers: { "anthropic-beta": "computer-use-2025-11-24" } })).toEqual([
      "anthropic-computer-tool",
    ]);
    // No beta at all is the same rule's.
    expect(rules({ ...sent, headers: {} })).toEqual(["anthropic-computer-tool"]);
  });
});
