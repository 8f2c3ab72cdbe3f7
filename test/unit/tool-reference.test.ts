/**
 * docs/tools.md is generated from the toolbox (scripts/tool-reference.ts): it fails here when the
 * checked-in file is not what `npm run docs:tools` writes now (a tool or argument changed, the doc not).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { TOOL_REFERENCE_FILE, toolReference, toolSignature } from "../../scripts/tool-reference.js";
import { TOOL_NAMES } from "../../src/toolbox/tools.js";

describe("the generated tool reference (docs/tools.md)", () => {
  it("is what the generator writes now (run npm run docs:tools after changing src/toolbox/tools.ts)", () => {
    expect(readFileSync(TOOL_REFERENCE_FILE, "utf8")).toBe(toolReference());
  });

  it("has every tool with its arguments, optional ones marked", () => {
    const text = toolReference();
    for (const tool of TOOL_NAMES) expect(text).toContain(`### \`${toolSignature(tool)}\``);
    expect(toolSignature("press")).toBe("press {keys}");
    expect(toolSignature("wait")).toBe("wait {seconds}");
    expect(toolSignature("scroll")).toBe("scroll {direction, amount, x?, y?}");
    expect(toolSignature("go_back")).toBe("go_back");
    expect(text).toContain('| `direction` | "up" \\| "down" \\| "left" \\| "right" | yes |');
    expect(text).toContain("| `seconds` | number 0..30 | yes |");
  });

  it("has the authoring notes: clearing a field, iframes, server state, dialogs", () => {
    const text = toolReference();
    for (const heading of [
      "### Clearing a pre-filled field",
      "### Marks in iframes",
      "### Apps whose state lives on the server",
      "### Native dialogs",
    ]) {
      expect(text).toContain(heading);
    }
  });
});
