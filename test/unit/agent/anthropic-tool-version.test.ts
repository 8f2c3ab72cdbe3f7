import { describe, expect, it } from "vitest";
import { computerToolVersion, documentedComputerTool } from "../../../src/agent/protocols/anthropic-computer.js";

// Anthropic's "Computer use tool" page (platform.claude.com/docs/en/agents-and-tools/tool-use/computer-use-tool):
// computer-use-2025-11-24 for Claude Opus 4.7, Opus 4.6, Sonnet 4.6 and Opus 4.5; computer-use-2025-01-24 for
// Sonnet 4.5, Haiku 4.5, Opus 4.1, Sonnet 4 and Opus 4 (and, in the page's earlier text, Claude Sonnet 3.7).
// Ids as Anthropic, Bedrock (`anthropic.…-v1:0`) and Vertex (`…@date`) spell them.
const NEWER = { type: "computer_20251124", beta: "computer-use-2025-11-24" };
const OLDER = { type: "computer_20250124", beta: "computer-use-2025-01-24" };

describe("the computer tool version a model id gets", () => {
  const newer = [
    "claude-opus-4-5",
    "claude-opus-4-5-20251101",
    "claude-opus-4-5@20251101",
    "claude-opus-4-6",
    "us.anthropic.claude-opus-4-6-v1",
    "claude-sonnet-4-6",
    "claude-opus-4-7",
  ];
  const older = [
    "claude-sonnet-4-5",
    "claude-sonnet-4-5-20250929",
    "anthropic.claude-sonnet-4-5-20250929-v1:0",
    "claude-haiku-4-5",
    "claude-haiku-4-5-20251001",
    "claude-opus-4-1",
    "claude-opus-4-1-20250805",
    "claude-sonnet-4-20250514",
    "claude-sonnet-4@20250514",
    "claude-sonnet-4-0",
    "claude-opus-4-20250514",
    "claude-opus-4-0",
    "claude-3-7-sonnet-20250219",
    "claude-3-7-sonnet-latest",
  ];
  it.each(newer)("%s: documented, computer_20251124 with computer-use-2025-11-24", (model) => {
    expect(documentedComputerTool(model)).toEqual(NEWER);
    expect(computerToolVersion(model)).toEqual(NEWER);
  });
  it.each(older)("%s: documented, computer_20250124 with computer-use-2025-01-24", (model) => {
    expect(documentedComputerTool(model)).toEqual(OLDER);
    expect(computerToolVersion(model)).toEqual(OLDER);
  });

  // Not on the page: nothing to check them against; umpire sends the newer tool (a model newer than
  // the list), or for another 3.x id the older one it always sent.
  it.each([
    ["claude-opus-5", NEWER],
    ["claude-opus-4-10", NEWER],
    ["claude-opus-4.5", NEWER],
    ["my-proxy-sonnet", NEWER],
    ["reference", NEWER],
    ["claude-3-5-sonnet-20241022", OLDER],
  ])("%s: not documented; sent %o", (model, sent) => {
    expect(documentedComputerTool(model)).toBeNull();
    expect(computerToolVersion(model)).toEqual(sent);
  });
});
