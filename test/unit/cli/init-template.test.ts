/**
 * `umpire init`'s config template names every reset kind (none, http, command, restore, restart),
 * and each commented example, uncommented, is a reset the config schema accepts.
 */
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { configText } from "../../../src/cli/commands/init.js";
import { TargetsSection } from "../../../src/task/target-decl.js";

describe("umpire init's config template", () => {
  it("lists every reset kind, and each example parses (#39)", () => {
    const text = configText("http://127.0.0.1:${PORT}", "app");
    const examples = [...text.matchAll(/^ {4}# (reset: \{.+\})$/gm)].map((m) => m[1]!);
    const kinds = examples.map((e) => (parse(e) as { reset: { kind: string } }).reset.kind);
    expect(kinds).toEqual(["http", "command", "restore", "restart"]);
    expect(text).toContain("reset: { kind: none }");
    for (const example of examples) {
      const decl = {
        baseUrl: "http://127.0.0.1:${PORT}",
        start: { command: "npm start" },
        ...(parse(example) as object),
      };
      const parsed = TargetsSection.safeParse({ app: decl });
      expect(parsed.success, `${example}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
    }
  });
});
