import { describe, expect, it } from "vitest";
import { computerToolVersion } from "../../../src/agent/protocols/anthropic-computer.js";

// Anthropic's "Computer use tool" page: computer-use-2025-11-24 for Claude Opus 4.7, Opus 4.6, Sonnet 4.6
// and Opus 4.5; computer-use-2025-01-24 for Sonnet 4.5, Haiku 4.5, Opus 4.1, Sonnet 4 and Opus 4.
describe("the computer tool version a model id gets", () => {
  const newer = [
    "claude-opus-4-5",
    "claude-opus-4-5-20251101",
    "claude-opus-4-6",
    "claude-sonnet-4-6",
    "claude-opus-4-7",
    "claude-opus-5",
  ];
  const older = [
    "claude-sonnet-4-5",
    "claude-sonnet-4-5-20250929",
    "claude-haiku-4-5",
    "claude-haiku-4-5-20251001",
    "claude-opus-4-1",
    "claude-opus-4-1-20250805",
    "claude-sonnet-4-20250514",
    "claude-sonnet-4-0",
    "claude-opus-4-20250514",
    "claude-opus-4-0",
    "claude-3-7-sonnet-20250219",
  ];
  it.each(newer)("%s: computer_20251124 with computer-use-2025-11-24", (model) => {
    expect(computerToolVersion(model)).toEqual({ type: "computer_20251124", beta: "computer-use-2025-11-24" });
  });
  it.each(older)("%s: computer_20250124 with computer-use-2025-01-24", (model) => {
    expect(computerToolVersion(model)).toEqual({ type: "computer_20250124", beta: "computer-use-2025-01-24" });
  });
});
