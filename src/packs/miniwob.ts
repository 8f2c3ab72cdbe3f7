/**
 * The MiniWoB++ pack: a user's checkout of Farama-Foundation/miniwob-plusplus (its `miniwob/html`
 * folder) run as umpire tasks, one per environment, with BrowserGym's settings so the numbers sit
 * beside published ones (docs/benchmarks.md):
 * - the task list and its train/test split are BrowserGym's metadata (miniwob.csv, 125 environments);
 * - viewport 332x214 CSS px at device scale 1.5 (BrowserGym's viewport and its 1.5 zoom of the page);
 * - 10 turns (max_steps), the episode's own time 1,000,000 ms (episode_max_time), the trial's 1,000 s;
 * - the human display removed; pass = the episode's raw reward > 0 (`episode` check);
 * - each repeat its own seed, derived from the environment and the repeat number (and `--pack-seed`),
 *   recorded with the trial, so the same repeat of the same environment replays the same episode.
 * umpire ships none of MiniWoB's files: it serves the user's folder (folder-server.ts).
 */
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { UmpireError } from "../errors.js";
import { type Task, TaskFileSchema } from "../task/schema.js";
import { normalizeTask } from "../task/normalize.js";
import type { Target } from "../targets/contract.js";
import { episodeCaptureScript, UTTERANCE_EXPRESSION } from "./episode-capture.js";
import { serveFolder } from "./folder-server.js";

export const MINIWOB_PACK = "miniwob";

/** BrowserGym's MiniWoB++ task list and split (browsergym/experiments/.../metadata/miniwob.csv): r = train, t = test. */
const BROWSERGYM_SPLITS =
  "ascending-numbers:t bisect-angle:t book-flight:r book-flight-nodelay:r buy-ticket:r choose-date:r choose-date-easy:r choose-date-medium:r choose-date-nodelay:r choose-list:t circle-center:r click-button:t click-button-sequence:t click-checkboxes:r click-checkboxes-large:r click-checkboxes-soft:r click-checkboxes-transfer:r click-collapsible:r click-collapsible-2:r click-collapsible-2-nodelay:r click-collapsible-nodelay:r click-color:t click-dialog:r click-dialog-2:r click-link:t click-menu:t click-menu-2:t click-option:r click-pie:t click-pie-nodelay:t click-scroll-list:t click-shades:r click-shape:t click-tab:t click-tab-2:t click-tab-2-easy:t click-tab-2-hard:t click-tab-2-medium:t click-test:t click-test-2:r click-test-transfer:r click-widget:t copy-paste:t copy-paste-2:t count-shape:r count-sides:t daily-calendar:r drag-box:r drag-circle:t drag-cube:t drag-items:r drag-items-grid:t drag-shapes:r drag-shapes-2:r drag-single-shape:r drag-sort-numbers:r draw-circle:r draw-line:r email-inbox:t email-inbox-delete:t email-inbox-forward:t email-inbox-forward-nl:t email-inbox-forward-nl-turk:t email-inbox-important:t email-inbox-nl-turk:t email-inbox-noscroll:t email-inbox-reply:t email-inbox-star-reply:t enter-date:r enter-password:r enter-text:r enter-text-2:r enter-text-dynamic:r enter-time:r find-greatest:t find-midpoint:r find-word:t focus-text:r focus-text-2:r form-sequence:r form-sequence-2:t form-sequence-3:t generate-number:t grid-coordinate:t guess-number:t highlight-text:t highlight-text-2:t hot-cold:t identify-shape:r login-user:r login-user-popup:r multi-layouts:r multi-orderings:r navigate-tree:r number-checkboxes:t odd-or-even:r order-food:t phone-book:t read-table:r read-table-2:r resize-textarea:t right-angle:t scroll-text:t scroll-text-2:t search-engine:r sign-agreement:t simple-algebra:t simple-arithmetic:t social-media:t social-media-all:t social-media-some:t stock-market:t terminal:t text-editor:r text-transform:r tic-tac-toe:t unicode-test:r use-autocomplete:r use-autocomplete-nodelay:r use-colorwheel:r use-colorwheel-2:r use-slider:r use-slider-2:r use-spinner:t visual-addition:r";

export type MiniwobSplit = "train" | "test";
export const MINIWOB_SPLITS: ReadonlyMap<string, MiniwobSplit> = new Map(
  BROWSERGYM_SPLITS.split(" ").map((entry) => {
    const [name, split] = entry.split(":") as [string, string];
    return [name, split === "r" ? "train" : "test"];
  }),
);

/** Environments that need an input umpire's toolbox has no tool for (a drag, a drawn stroke, a text selection): they run, and can only fail. */
const NEEDS_DRAG = /^(drag-|draw-|highlight-text|resize-textarea)/;

/** BrowserGym's MiniWoB settings, stated in every report of a pack run. */
export const MINIWOB_SETTINGS = {
  viewport: { width: 332, height: 214, deviceScaleFactor: 1.5 },
  turns: 10,
  episodeMaxMs: 1_000_000,
  trialSeconds: 1_000,
  pass: "raw reward > 0",
  removeDisplay: true,
} as const;

/** The tools a MiniWoB agent gets: pointer and keyboard, and `answer` to stop. */
const TOOLS = ["click", "double_click", "write", "press", "scroll", "wait", "answer"] as const;

export interface MiniwobSelection {
  /** The checkout's `miniwob/html` folder (or the checkout itself, or its `miniwob` folder). */
  dir: string;
  /** Only these environments (names as in BrowserGym, e.g. click-button); default all of the split. */
  tasks?: readonly string[];
  /** BrowserGym's split; default all. */
  split?: MiniwobSplit | "all";
  /** Added to every derived seed: another set of episodes, still replayable. */
  seed?: number;
  /** Where `dir` was named, for the error when it is not a MiniWoB++ folder. */
  source?: PackDirSource;
}

export interface MiniwobPack {
  /** The `miniwob/html` folder served. */
  htmlDir: string;
  tasks: Task[];
  /** Environments of the selection that do not run, each with why. */
  notRunnable: { name: string; why: string }[];
  /** Environments that run but need a tool umpire does not have. */
  caveats: { name: string; why: string }[];
  seedBase: number;
}

/** Where the folder was named (`--pack-dir x`, `umpire.config.yaml: packs.miniwob.dir x`), and how to fix it there. */
export interface PackDirSource {
  label: string;
  fix: string;
}

const CLONE_FIX =
  "git clone https://github.com/Farama-Foundation/miniwob-plusplus and pass --pack-dir <clone>/miniwob/html (or set MINIWOB_DIR)";

/** The `miniwob/html` folder of a checkout, whichever of its levels the user named. */
export function miniwobHtmlDir(dir: string, source: PackDirSource = { label: dir, fix: CLONE_FIX }): string {
  const base = resolve(dir);
  if (!existsSync(base)) {
    throw new UmpireError("input", `${source.label}: no such folder (${base})`, source.fix);
  }
  for (const candidate of [base, join(base, "html"), join(base, "miniwob", "html")]) {
    if (existsSync(join(candidate, "core", "core.js")) && existsSync(join(candidate, "miniwob"))) return candidate;
  }
  throw new UmpireError(
    "input",
    `${source.label}: ${base} is not a MiniWoB++ html folder (no core/core.js and miniwob/ in it, in html/ or in miniwob/html/)`,
    source.fix,
  );
}

/** Builds the pack's tasks: BrowserGym's list, narrowed by the selection, each checked against the folder. */
export function loadMiniwobPack(selection: MiniwobSelection): MiniwobPack {
  const htmlDir = miniwobHtmlDir(selection.dir, selection.source);
  const present = new Set(
    readdirSync(join(htmlDir, "miniwob"))
      .filter((f) => f.endsWith(".html"))
      .map((f) => f.slice(0, -5)),
  );
  const split = selection.split ?? "all";
  const unknown = (selection.tasks ?? []).filter((name) => !MINIWOB_SPLITS.has(name));
  if (unknown.length > 0) {
    throw new UmpireError(
      "usage",
      `not a MiniWoB++ environment of BrowserGym's list: ${unknown.join(", ")}`,
      "names as in BrowserGym without the miniwob. prefix, e.g. click-button,enter-text",
    );
  }
  const wanted = [...MINIWOB_SPLITS].filter(
    ([name, s]) => (split === "all" || s === split) && (!selection.tasks?.length || selection.tasks.includes(name)),
  );
  const notRunnable: MiniwobPack["notRunnable"] = [];
  const caveats: MiniwobPack["caveats"] = [];
  const tasks: Task[] = [];
  for (const [name, s] of wanted) {
    if (!present.has(name)) {
      notRunnable.push({ name, why: `miniwob/${name}.html is not in ${htmlDir} (an older checkout?)` });
      continue;
    }
    if (NEEDS_DRAG.test(name)) caveats.push({ name, why: "needs a drag or a text selection: umpire has no drag tool" });
    tasks.push(miniwobTask(name, s, htmlDir));
  }
  return { htmlDir, tasks, notRunnable, caveats, seedBase: selection.seed ?? 0 };
}

/** One environment as a task: its instruction comes from the page, its check is the episode's reward. */
export function miniwobTask(name: string, split: MiniwobSplit, htmlDir: string): Task {
  const parsed = TaskFileSchema.parse({
    id: `miniwob-${name}`,
    title: `MiniWoB++ ${name}`,
    instruction: `The MiniWoB++ environment ${name}: its utterance, read from the page, is the instruction.`,
    instructionFrom: { expression: UTTERANCE_EXPRESSION, timeoutSeconds: 20 },
    target: MINIWOB_PACK,
    start: { path: `/miniwob/${name}.html` },
    tools: [...TOOLS],
    limits: { turns: MINIWOB_SETTINGS.turns, actions: 60, seconds: MINIWOB_SETTINGS.trialSeconds },
    checks: [
      { kind: "episode", name: "episode reward > 0", above: 0 },
      // A reload would replay the same seeded episode in a fresh document: one episode per trial.
      { kind: "effects", name: "the environment's page loaded once", require: [{ type: PAGE_LOADED, count: 1 }] },
    ],
    // The benchmark has no gold trajectory (its episodes are random per seed): answering at once is the one step known to be wrong.
    reference: [{ tool: "answer", args: { content: "done" } }],
    tags: ["miniwob", `split:${split}`, ...(NEEDS_DRAG.test(name) ? ["needs-drag"] : [])],
  });
  // BrowserGym's viewport is below the task file's 320x240 floor, which guards hand-written tasks; the pack states it.
  return normalizeTask(
    { ...parsed, viewport: { ...MINIWOB_SETTINGS.viewport } },
    join(htmlDir, "miniwob", `${name}.html`),
  );
}

/** The episode seed of one repeat of one environment: fixed by (environment, repeat, base), so a repeat replays. */
export function episodeSeed(taskId: string, repeat: number, base = 0): number {
  let hash = 0x811c9dc5;
  for (const ch of `${taskId}#${repeat}#${base}`) {
    hash ^= ch.charCodeAt(0);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % 1_000_000;
}

/** The effect the pack's server logs each time it serves a trial an environment's page. */
export const PAGE_LOADED = "environment_page_loaded";
const TRIAL_COOKIE = "umpire_pack_trial";

/**
 * The pack's target: the folder served on 127.0.0.1, each trial's document seeded and captured.
 * Each trial gets a random httpOnly cookie; an environment's page is served only with a live trial's
 * cookie and each serving is logged as that trial's effect, so a reload (the same seeded episode
 * again, in a fresh document) is seen by the effects check.
 */
export async function startMiniwobTarget(pack: Pick<MiniwobPack, "htmlDir" | "seedBase">): Promise<Target> {
  const loads = new Map<string, { trialId: string; at: string[] }>();
  const byTrial = new Map<string, string>();
  const server = await serveFolder(pack.htmlDir, (path, cookie) => {
    if (!path.startsWith("/miniwob/")) return true;
    const token = /(?:^|;\s*)umpire_pack_trial=([0-9a-f]+)/.exec(cookie ?? "")?.[1];
    const trial = token ? loads.get(token) : undefined;
    trial?.at.push(new Date().toISOString());
    return trial !== undefined;
  });
  const origin = server.url;
  return {
    name: MINIWOB_PACK,
    baseUrl: origin,
    origins: [origin],
    isolated: true,
    hasEffects: true,
    effectsSource: `the pack's folder server at ${origin} (pages served per trial)`,
    fixture: false,
    async prepareTrial(trial) {
      const token = randomBytes(24).toString("hex");
      loads.set(token, { trialId: trial.trialId, at: [] });
      byTrial.set(trial.trialId, token);
      const cookie = { name: TRIAL_COOKIE, value: token, domain: "127.0.0.1", path: "/", httpOnly: true };
      const seed = episodeSeed(trial.task.id, trial.repeat ?? 1, pack.seedBase);
      const capture = episodeCaptureScript({
        seed,
        episodeMaxMs: MINIWOB_SETTINGS.episodeMaxMs,
        origin,
        removeDisplay: MINIWOB_SETTINGS.removeDisplay,
      });
      return { cookies: [cookie], initScripts: [capture], facts: { seed } };
    },
    effects: async (trialId) => {
      const at = loads.get(byTrial.get(trialId) ?? "")?.at ?? [];
      return at.map((when) => ({ type: PAGE_LOADED, at: when, detail: {} }));
    },
    recordEffect: async () => undefined,
    endTrial: async (trialId) => {
      loads.delete(byTrial.get(trialId) ?? "");
      byTrial.delete(trialId);
    },
    markSpec: () => ({ declared: {}, testIdAttribute: "data-testid" }),
    close: () => server.close(),
  };
}
