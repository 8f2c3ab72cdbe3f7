/**
 * docs/checks.md names what a command check's environment holds: every trial variable the check
 * puts there (src/checks/vars.ts passes the target's own, INSTANCE_DIR included), in the kinds
 * table's command row and in its own section. A variable added to the table without the doc fails.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TRIAL_VARIABLES } from "../../../src/task/trial-vars.js";

const doc = readFileSync(join(import.meta.dirname, "../../../docs/checks.md"), "utf8");

describe("docs/checks.md on the command check", () => {
  it("lists every trial variable in the command row and its section", () => {
    const row = doc.split("\n").find((l) => l.startsWith("| `command` |"))!;
    const section = doc.split("### command\n")[1]!.split("\n### ")[0]!;
    for (const name of Object.keys(TRIAL_VARIABLES)) {
      expect(row, name).toContain(`\`${name}\``);
      expect(section, name).toContain(`\`${name}\``);
    }
  });
});
