/**
 * docs/reporting.md's "Output, as printed" examples are printed by umpire itself (scripts/doc-examples.ts,
 * from a seeded store): it fails here when a block in the checked-in file is not what umpire prints now.
 */
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { REPORTING_DOC, renderExamples, withExamples } from "../../scripts/doc-examples.js";

describe("the printed examples in docs/reporting.md", () => {
  let blocks: Map<string, string>;
  beforeAll(async () => {
    blocks = await renderExamples();
  }, 60_000);

  it("are what umpire prints now (run `npm run docs:examples` after changing what a report prints)", () => {
    const doc = readFileSync(REPORTING_DOC, "utf8");
    const current = withExamples(doc, blocks);
    expect(doc === current, "docs/reporting.md's examples are stale: run `npm run docs:examples`").toBe(true);
  });

  it("print nothing of this machine or this day: the environment and CPU are the seed's", () => {
    const text = [...blocks.values()].join("\n");
    expect(text).toContain("environment: umpire 0.2.0, chromium 141.0.7390.37 (local)");
    expect(text).toContain("CPU per episode 16.1 s");
    expect(text).not.toContain("umpire-doc-examples-");
    expect(text).not.toContain(new Date().toISOString().slice(0, 10));
  });

  it("fails on a marker without an example, and on an example without its marker", () => {
    const blocks = new Map([["runs", "```\nx\n```"]]);
    expect(() => withExamples("<!-- example: nope -->\n```\n```\n<!-- /example -->\n", blocks)).toThrow(
      "no example named 'nope'",
    );
    expect(() => withExamples("no markers here\n", blocks)).toThrow("no marker for example(s) runs");
  });
});
