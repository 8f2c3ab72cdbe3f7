/**
 * The per-step savings keep behaviour unchanged, in real Chromium on the fixture site:
 * - what lies under the turn's clicks (a consequential control, a covered control and its cover)
 *   is read in ONE page evaluation by the repetition guard, and the executor's click reads nothing;
 *   the covered-control wording still reaches the pause condition;
 * - the observation waits for the page's layout report only when the model reads it;
 * - the task's selector masks are resolved in the observation's one page read, with the picture,
 *   and the guard reads nothing more for them.
 * Page evaluations are counted by wrapping the real `page.evaluate` (it still runs).
 */
import { fixtureTarget } from "../../../src/targets/fixture-target.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFixtureSite, type FixtureSite } from "../../../fixtures-site/fixture-site.js";
import { launchChromium } from "../../../src/browser/chromium.js";
import { TrialEnvironment } from "../../../src/runner/trial/environment.js";
import { Executor } from "../../../src/runner/trial/executor.js";
import { createRepetitionGuard } from "../../../src/runner/trial/repetition-guard.js";
import { loadTasksOrThrow } from "../../../src/task/loader.js";
import type { Task } from "../../../src/task/schema.js";
import type { ProposedAction } from "../../../src/toolbox/tools.js";
import { ROOT } from "./harness.js";

let site: FixtureSite;
let browser: Browser;
let dir: string;
const tasks = loadTasksOrThrow([], { cwd: ROOT });
let n = 0;

beforeAll(async () => {
  site = await startFixtureSite();
  browser = await launchChromium();
  dir = mkdtempSync(join(tmpdir(), "umpire-savings-"));
});
afterAll(async () => {
  await browser?.close();
  await site?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The task on the notes page of BB-042, with no selector masks. */
function notesTask(id: string): Task {
  const t = structuredClone(tasks.find((x) => x.id === id)!);
  t.start.path = "/notes?match=BB-042";
  t.repetition.masks = [];
  return t;
}

/** Counts (and names, with their argument) every page.evaluate call while leaving it to run for real. */
function countEvaluations(page: Page): { calls: string[]; args: unknown[] } {
  const seen = { calls: [] as string[], args: [] as unknown[] };
  const real = page.evaluate.bind(page) as (...a: unknown[]) => Promise<unknown>;
  (page as unknown as { evaluate: (...a: unknown[]) => Promise<unknown> }).evaluate = (...args: unknown[]) => {
    seen.calls.push(String(args[0]));
    seen.args.push(args[1]);
    return real(...args);
  };
  return seen;
}

async function open(t: Task, layoutFlush?: boolean) {
  const id = `savings-${++n}`;
  const workspaceDir = join(dir, id, "workspace");
  const env = await TrialEnvironment.open({
    browser,
    task: t,
    trialId: id,
    workspaceDir,
    target: fixtureTarget(site),
    ...(layoutFlush !== undefined ? { layoutFlush } : {}),
  });
  const executor = new Executor({
    env,
    task: t,
    frame: () => ({
      width: t.viewport.width * t.viewport.deviceScaleFactor,
      height: t.viewport.height * t.viewport.deviceScaleFactor,
    }),
    workspaceDir,
    recordEffect: async (type, detail) => void (await site.client.recordEffect(id, type, detail)),
  });
  return { env, executor, id };
}

/** A click at the centre of a mark, in the model's [0,1000] coordinates. */
async function clickOn(id: string, t: Task, mark: string): Promise<ProposedAction> {
  const layout = await site.client.layout(id);
  const box = layout?.marks.find((m) => m.name === mark);
  if (!box) throw new Error(`no mark ${mark} in the layout`);
  const x = Math.round(((box.x + box.width / 2) / t.viewport.width) * 1000);
  const y = Math.round(((box.y + box.height / 2) / t.viewport.height) * 1000);
  return { id: `call-${++n}`, tool: "click", args: { element: `the ${mark} control`, x, y } };
}

const signal = new AbortController().signal;

describe("one page evaluation per turn for what lies under the clicks", () => {
  it("reads what lies under three clicks in one evaluation, each answer on its own click; the click itself reads nothing", async () => {
    const t = notesTask("scorecard-note-bb042");
    const { env, executor, id } = await open(t);
    try {
      const observation = await env.observe();
      const name = await clickOn(id, t, "note-name");
      const save = await clickOn(id, t, "note-save");
      const againSave = { ...save, id: `call-${++n}`, args: { ...save.args, x: (save.args.x as number) + 3 } };
      const counted = countEvaluations(env.page);

      // Name then Save: no consequential control is hit twice, so no warning.
      const calm = await createRepetitionGuard(t, env, { window: 3, recoveryLimit: 1 }).beforeExecute(
        observation,
        "shot.png",
        [name, save],
      );
      expect(calm).toEqual({ kind: "continue" });
      expect(counted.calls).toHaveLength(1);

      // Name, Save, Save again: the second Save lands on the same data-effect control (note_saved).
      counted.calls.length = 0;
      const risky = await createRepetitionGuard(t, env, { window: 3, recoveryLimit: 1 }).beforeExecute(
        observation,
        "shot.png",
        [name, save, againSave],
      );
      expect(counted.calls).toHaveLength(1);
      expect(risky.kind).toBe("continue");
      if (risky.kind !== "continue") return;
      expect(risky.warnings?.get(againSave.id)).toMatch(/duplicate-effect risk: .*effect "note_saved"/);

      counted.calls.length = 0;
      const result = await executor.execute(name, signal);
      expect(result.message).toMatch(/^click sent at/);
      expect(result.status, result.message).toBe("success");
      // The settle's frame waits (requestAnimationFrame) read nothing of the page; nothing else runs.
      expect(counted.calls.filter((c) => !c.includes("requestAnimationFrame"))).toEqual([]);
      expect(counted.calls.length).toBeLessThanOrEqual(2);
    } finally {
      await env.close();
    }
  });

  it("still names a covered control and its cover in the pause condition", async () => {
    const t = notesTask("cookie-reject-note-bb042");
    const { env, executor, id } = await open(t);
    try {
      await env.observe(); // the flush stores the first layout report
      const save = await clickOn(id, t, "note-save");
      const guard = createRepetitionGuard(t, env, { window: 3, recoveryLimit: 1 });
      let condition: string | undefined;
      for (let attempt = 0; attempt < 6 && condition === undefined; attempt++) {
        const observation = await env.observe();
        const action = { ...save, id: `call-${++n}` };
        const decision = await guard.beforeExecute(observation, `shot-${attempt}.png`, [action]);
        if (decision.kind !== "continue") condition = decision.condition;
        expect((await executor.execute(action, signal)).message).toMatch(/^click sent at/);
      }
      expect(condition).toMatch(/Save stayed covered by cookie-dialog/);
    } finally {
      await env.close();
    }
  });
});

describe("the layout flush", () => {
  for (const layoutFlush of [true, false]) {
    it(`${layoutFlush ? "waits" : "does not wait"} for the page's layout report when layoutFlush is ${layoutFlush}`, async () => {
      const t = notesTask("scorecard-note-bb042");
      const { env } = await open(t, layoutFlush);
      try {
        const counted = countEvaluations(env.page);
        const observation = await env.observe();
        expect(observation.width).toBe(t.viewport.width * t.viewport.deviceScaleFactor);
        // One page evaluation before the capture (the moving regions, whether the page is being left),
        // which waits for the layout report only when asked to.
        const reads = counted.calls.flatMap((source, i) =>
          source.includes("__umpireLayoutFlush") ? [counted.args[i] as { flush: boolean }] : [],
        );
        expect(reads).toHaveLength(1);
        expect(reads[0]!.flush).toBe(layoutFlush);
      } finally {
        await env.close();
      }
    });
  }
});

describe("selector masks", () => {
  it("are resolved in the observation's one page read, and the guard reads only what lies under the clicks", async () => {
    const t = notesTask("scorecard-note-bb042");
    t.repetition.masks = [{ selector: "[data-mark=clock]" }, { selector: "[data-mark=note-save]" }];
    const { env, id } = await open(t, false);
    try {
      const counted = countEvaluations(env.page);
      const observation = await env.observe();
      // The first observation also waits a frame after the start page's requests (issue 37): a
      // requestAnimationFrame that reads nothing of the page; and after the capture it asks whether the
      // page moved meanwhile (movedSinceWait), which reads no mask. The masks come with the one page read.
      const reads = counted.calls.filter((c) => !c.includes("requestAnimationFrame") && !c.includes("movedSinceWait"));
      expect(reads).toHaveLength(1);
      expect(counted.calls.filter((c) => c.includes("movedSinceWait"))).toHaveLength(1);
      const expected = await Promise.all(
        ["[data-mark=clock]", "[data-mark=note-save]"].map(async (selector) => {
          const r = (await env.page.locator(selector).boundingBox())!;
          return { x: r.x, y: r.y, width: r.width, height: r.height };
        }),
      );
      expect(observation.selectorMasks).toHaveLength(2);
      observation.selectorMasks.forEach((box, i) => {
        for (const k of ["x", "y", "width", "height"] as const) expect(box[k]).toBeCloseTo(expected[i]![k], 1);
      });

      counted.calls.length = 0;
      const save = await clickOn(id, t, "note-save");
      await createRepetitionGuard(t, env, { window: 3, recoveryLimit: 1 }).beforeExecute(observation, "shot.png", [
        save,
      ]);
      expect(counted.calls).toHaveLength(1);
      expect(counted.calls[0]).toContain("pointInfo");
    } finally {
      await env.close();
    }
  });
});
