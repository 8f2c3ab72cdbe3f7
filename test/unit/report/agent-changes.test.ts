/**
 * The short diff of two stored agent definitions that `compare` says first (src/report/agent-changes.ts):
 * field by field, naming fields skipped, long or multi-line values cut to one line.
 */
import { describe, expect, it } from "vitest";
import { definitionDiff } from "../../../src/report/agent-changes.js";

const agent = {
  label: "ours",
  name: "ours",
  model: "reference",
  mode: "structured",
  temperature: 0.8,
  loop: { recoveryLimit: 1 },
};

describe("definitionDiff", () => {
  it("names each changed field with both values, nested fields by their dotted path", () => {
    expect(definitionDiff(agent, { ...agent, model: "reference:wrong-record" })).toBe(
      "model reference -> reference:wrong-record",
    );
    expect(definitionDiff(agent, { ...agent, temperature: 0.2, loop: { recoveryLimit: 2 } })).toBe(
      "temperature 0.8 -> 0.2; loop.recoveryLimit 1 -> 2",
    );
    expect(definitionDiff(agent, { ...agent, tools: ["click", "answer"] })).toBe("tools (none) -> click, answer");
  });

  it("a rename alone is no change of definition", () => {
    expect(definitionDiff(agent, { ...agent, label: "theirs", name: "theirs" })).toBeNull();
  });

  it("cuts long and multi-line values to one line, and counts fields past the fifth", () => {
    const long = "Work carefully.\nCheck every record twice before saving any note at all.";
    const diff = definitionDiff(agent, { ...agent, policy: long })!;
    expect(diff).toMatch(/^policy \(none\) -> "Work carefully\. Check every re\.\.\." \(\d+ chars\)$/);
    expect(definitionDiff(agent, { ...agent, policy: "a\nb" })).toBe('policy (none) -> "a\\nb"');
    const many = { ...agent, a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7 };
    expect(definitionDiff(agent, many)).toMatch(/; and 2 more$/);
  });
});
