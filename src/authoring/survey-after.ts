/**
 * `umpire marks TASK --after N`: the controls of the page the task's gold reaches after its first N
 * steps, so a tray or dialog that only opens mid-task can be aimed at. The steps are played exactly
 * as `umpire try` plays them (the self-test's trial on the reference model, src/authoring/self-test.ts),
 * on a copy of the task whose gold stops there with an answer; the last observation's page is the one
 * surveyed (controls listed and boxed before the browser closes). Stored in a scratch database, not
 * the project's: a survey is not a run.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ProjectTargets } from "../config/project.js";
import { UmpireError } from "../errors.js";
import { openStore } from "../store/open.js";
import { drawNumberedBoxes, pageControls, type PageControl } from "../targets/page-controls.js";
import type { Task } from "../task/schema.js";
import { probesFor } from "./probes.js";
import { runSelfTest } from "./self-test.js";
import { triedStepLine, triedSteps } from "./tried-steps.js";

export interface SurveyAfter {
  url: string;
  viewport: { width: number; height: number };
  controls: PageControl[];
  /** The page with every control boxed and numbered. */
  png: Buffer;
  /** A step of the first N the trial could not play as written (the survey shows where it stopped). */
  broken: string | null;
}

export async function surveyAfterSteps(input: {
  task: Task;
  project: ProjectTargets;
  after: number;
  testIdAttribute: string;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
}): Promise<SurveyAfter> {
  const { task, after } = input;
  if (after > task.reference.length)
    throw new UmpireError(
      "usage",
      `marks: --after ${after}: task ${task.id}'s gold has ${task.reference.length} steps`,
      `give --after 0 to ${task.reference.length}`,
    );
  const steps = [
    ...task.reference.slice(0, after),
    { tool: "answer", args: { content: "(surveyed by umpire marks)" } },
  ];
  const survey: Task = { ...task, reference: steps as Task["reference"], negatives: {} };
  const scratch = mkdtempSync(join(tmpdir(), "umpire-marks-after-"));
  const store = openStore(join(scratch, "survey.db"));
  let last: Omit<SurveyAfter, "broken" | "viewport"> | null = null;
  try {
    const probe = probesFor(survey).find((p) => p.name === "gold/structured")!;
    const outcome = await runSelfTest({
      tasks: [survey],
      config: input.project,
      store,
      outDir: scratch,
      concurrency: 1,
      signal: input.signal,
      env: input.env,
      probes: () => [probe],
      onObserved: async (_trial, _n, page) => {
        const controls = await pageControls(page, { testIdAttribute: input.testIdAttribute });
        const remove = await drawNumberedBoxes(page, controls);
        const png = await page.screenshot();
        await remove();
        last = { url: page.url(), controls, png };
      },
    });
    const result = outcome.results[0];
    if (!last || !result)
      throw new UmpireError(
        "input",
        `marks: ${task.id}: the page was never observed${result ? ` (${result.stopReason}: ${result.stopLine})` : ""}`,
        `umpire try ${task.id} shows how the task's start went`,
      );
    const tried = triedSteps({
      trajectory: "reference",
      steps: survey.reference,
      records: outcome.records(result.trialId),
      turns: store.turns(result.trialId),
      actions: store.actions(result.trialId),
      tools: task.tools,
    });
    const broken = tried.find((s) => s.broken && s.step !== null && s.step < after);
    const found = last as Omit<SurveyAfter, "broken" | "viewport">;
    return { ...found, viewport: task.viewport, broken: broken ? triedStepLine(broken) : null };
  } finally {
    store.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}
