/**
 * One bundled task played end to end in each vendor family's protocol: the real CLI, the embedded
 * reference model answering OpenAI's Responses API and Anthropic's Messages API over HTTP through
 * the vendors' own SDKs, and real Chromium executing the mapped actions.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../../support/cli.js";

const dir = mkdtempSync(join(tmpdir(), "umpire-vendor-e2e-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each(["openai-computer", "anthropic-computer"])("umpire run --mode %s", (mode) => {
  it("passes answer-only-bb042 on the reference model in real Chromium", async () => {
    const result = await runCli([
      "run",
      "tasks/answer-only-bb042.yaml",
      "--mode",
      mode,
      "--db",
      join(dir, `${mode}.db`),
      "--out",
      join(dir, mode),
      "--no-preflight",
    ]);
    expect(result.stdout).toMatch(new RegExp(`answer-only-bb042 │ reference/${mode}\\s+│ 0 │ passed`));
    expect(result.stdout).toContain("1/1 passed, 0 failed, 0 errors");
    expect(result.code).toBe(0);
  }, 120_000);
});
