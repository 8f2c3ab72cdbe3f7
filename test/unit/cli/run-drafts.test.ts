/**
 * `umpire run`'s choice to accept draft tasks (src/cli/run/run-drafts.ts): only with --allow-drafts (flag or
 * config), and a resumed run keeps the choice it was started with unless today's flag overrules it.
 * The CLI's effect is shown in test/integration/importer/import-awaited-requests.test.ts.
 */
import { describe, expect, it } from "vitest";
import { runAllowsDrafts } from "../../../src/cli/run/run-drafts.js";

const startedWithDrafts = { config: { file: null, options: { "allow-drafts": { value: true, source: "flag" } } } };
const startedWithout = { config: { file: null, options: {} } };

describe("run --allow-drafts", () => {
  it("accepts drafts only when asked, by flag or by the config's default", () => {
    expect(runAllowsDrafts({}, {})).toBe(false);
    expect(runAllowsDrafts({ "allow-drafts": true }, { "allow-drafts": "flag" })).toBe(true);
    expect(runAllowsDrafts({ "allow-drafts": true }, { "allow-drafts": "config" })).toBe(true);
  });

  it("resuming, keeps the run's own choice unless today's flag says otherwise", () => {
    expect(runAllowsDrafts({}, {}, startedWithDrafts)).toBe(true);
    expect(runAllowsDrafts({}, {}, startedWithout)).toBe(false);
    expect(runAllowsDrafts({ "allow-drafts": false }, { "allow-drafts": "flag" }, startedWithDrafts)).toBe(false);
    expect(runAllowsDrafts({ "allow-drafts": true }, { "allow-drafts": "flag" }, startedWithout)).toBe(true);
  });
});
