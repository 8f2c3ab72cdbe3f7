/**
 * `data:` pages cannot fake page checks, through the real CLI: a hostile model opens
 * `data:text/html,<h1 data-mark=match-title>BB-042</h1><!--/match/BB-042`, which would satisfy
 * both a URL check (`/match/BB-042$`) and a selector check, then answers. The navigation is
 * refused like any origin outside the task, the page checks judge the task's own page (and say
 * which page they judged), and the trial fails.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT, runCli } from "../../support/cli.js";
import { openStore } from "../../../src/store/open.js";
import { hostileRunArgs, startHostileModel } from "../../support/hostile-model.js";
import { events, scratch, trialFolder } from "./support.js";
import { readFixtureTask } from "../../support/fixture-tasks.js";

const s = scratch("datapage");
afterAll(() => s.cleanup());

const FAKE = "data:text/html,<h1 data-mark=match-title>BB-042</h1><!--/match/BB-042";

function pageTask(): string {
  const task = parse(readFixtureTask(join(REPO_ROOT, "tasks/answer-only-bb042.yaml")));
  delete task.$schema;
  task.id = "page-checks-bb042";
  task.tools.push("navigate");
  // Its own checks replace the file's, so the file's negatives (failsOn names those checks) go too.
  delete task.negatives;
  task.checks = [
    { kind: "page", name: "ended on the BB-042 scorecard", url: { regex: "/match/BB-042$" } },
    { kind: "page", name: "the scorecard title shows BB-042", selector: "[data-mark=match-title]", text: "BB-042" },
    {
      kind: "custom",
      required: false,
      module: join(REPO_ROOT, "tasks/checks/cricket.ts"),
      export: "answer",
      options: { scores: ["168/6", "169/4"] },
    },
  ];
  const dir = join(s.dir, "tasks");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${task.id}.yaml`), stringify(task));
  return dir;
}

describe("data: pages and page checks", () => {
  it("a data: page is refused as a navigation target and never passes a page check", async () => {
    const runId = "data-run";
    const model = await startHostileModel((_trial, turn) =>
      turn === 1
        ? [{ name: "navigate", args: { url: FAKE } }]
        : [
            {
              name: "answer",
              args: { content: "BB-042: Pune Pioneers 168/6, Jaipur Kites 169/4. Jaipur Kites won by 6 wickets." },
            },
          ],
    );
    try {
      const { args, env } = hostileRunArgs(model);
      const run = await runCli(
        ["run", pageTask(), ...args, "--run-id", runId, "--out", s.out, "--db", s.db, "--json"],
        { env },
      );
      const trial = JSON.parse(run.stdout).trials[0];
      expect(trial.verdict).toBe("failed");
      expect(run.code).toBe(1);

      const folder = trialFolder(s.out, runId, trial.id ?? trial.trialId);
      expect(JSON.stringify(events(folder))).toMatch(/data:text\/html[^"]*is not an allowed origin for this task/);

      const store = openStore(s.db, { readonly: true });
      const checks = store.checks(trial.id ?? trial.trialId);
      store.close();
      const pages = checks.filter((c) => c.kind === "page");
      expect(pages).toHaveLength(2);
      for (const check of pages) {
        expect(check.pass).toBe(false);
        // The evidence names the page that was judged: the task's own start page, not the fake.
        const evidence = check.evidence as { url: string; onTaskOrigin: boolean };
        expect(evidence.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
        expect(evidence.onTaskOrigin).toBe(true);
      }
    } finally {
      await model.close();
    }
  });
});
