/**
 * One bundled task played end to end in each vendor family's protocol: the real CLI, the embedded
 * reference model answering OpenAI's Responses API and Anthropic's Messages API over HTTP through
 * the vendors' own SDKs, and real Chromium executing the mapped actions.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { openStore } from "../../../src/store/open.js";
import { REPO_ROOT, runCli } from "../../support/cli.js";
import { readFixtureTask } from "../../support/fixture-tasks.js";

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

describe("umpire run --agent with computerTool: computer_toolset_20260801", () => {
  it("passes answer-only-bb042 through Anthropic's computer toolset, every request clean under the strict lint", async () => {
    // The embedded reference model is strict: a request breaking the toolset's lint is answered 400 and the trial errors.
    const config = join(dir, "toolset.config.yaml");
    writeFileSync(
      config,
      stringify({
        agents: {
          "claude-toolset": {
            model: "reference",
            protocol: "anthropic-computer",
            computerTool: "computer_toolset_20260801",
          },
        },
      }),
    );
    const db = join(dir, "toolset.db");
    const result = await runCli([
      "run",
      join(REPO_ROOT, "tasks/answer-only-bb042.yaml"),
      "--config",
      config,
      "--agent",
      "claude-toolset",
      "--db",
      db,
      "--out",
      join(dir, "toolset"),
      "--no-preflight",
    ]);
    expect(result.stderr).not.toMatch(/umpire_lint/);
    expect(result.stdout).toContain("1/1 passed, 0 failed, 0 errors");
    const store = openStore(db, { readonly: true });
    try {
      const [trial] = store.trials(store.listRuns()[0]!.id);
      // The gold clicks the search box and types: member calls mapped onto umpire's tools.
      expect(store.actions(trial!.id).map((a) => a.tool)).toContain("click");
    } finally {
      store.close();
    }
  }, 120_000);
});

describe("umpire run --mode openai-computer at DPR 2", () => {
  it("scrolls as far as at DPR 1: scroll_x/scroll_y are screenshot pixels, twice the CSS pixels at DPR 2", async () => {
    // The gold scrolls 10 notches (1000 CSS px) at a time; the reference model says 2000 screenshot px.
    const doc = parse(readFixtureTask(join(REPO_ROOT, "tasks/long-scroll-bb017.yaml")));
    delete doc.$schema;
    const task = join(dir, "long-scroll-dpr2.yaml");
    writeFileSync(task, stringify({ ...doc, viewport: { width: 1280, height: 800, deviceScaleFactor: 2 } }));
    const db = join(dir, "scroll-dpr2.db");
    const result = await runCli(["run", task, "--mode", "openai-computer", "--db", db, "--out", join(dir, "scroll")]);
    expect(result.stdout).toContain("1/1 passed, 0 failed, 0 errors");
    const store = openStore(db, { readonly: true });
    try {
      const [trial] = store.trials(store.listRuns()[0]!.id);
      const scrolls = store.actions(trial!.id).filter((a) => a.tool === "scroll");
      expect(scrolls).toHaveLength(5);
      for (const s of scrolls) expect(s.args).toMatchObject({ direction: "down", amount: 10 });
    } finally {
      store.close();
    }
  }, 180_000);
});
