/**
 * Writes a run's report folder: `umpire report` and `umpire run --report` call
 * `writeRunReport`. Synchronous, like the store: it reads one trial at a time, places its files,
 * writes its page and its side-by-side data, and lets it go, so memory stays flat at thousands
 * of trials. See layout.ts for the folder's structure.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { UmpireError } from "../../errors.js";
import type { Store } from "../../store/store.js";
import type { ActionRecord, RunRecord, TrialRecord } from "../../store/records.js";
import { reportedCost } from "../cost.js";
import { costOfUsage, createPriceBook, type PriceBook } from "../../pricing.js";
import { ReportFiles, type FileStats } from "./files.js";
import { COMPARE_PAGE, DIVERGENCE_PAGE, GENERATED_ENTRIES, HISTORY_PAGE, INDEX_PAGE, REPORT_MARKER } from "./layout.js";
import type { Divergence } from "../divergence.js";
import { divergencePageHtml } from "./divergence-page.js";
import { buildHistory } from "../history.js";
import { historyPageHtml } from "./history-page.js";
import { overviewHtml } from "./overview.js";
import { comparePageHtml, trialDataScript } from "./side-by-side.js";
import { trialPageHtml } from "./trial-page.js";
import {
  sideBySidePartners,
  turnHighlights,
  type ImageRef,
  type TaskInfo,
  type TrialView,
  type TurnView,
} from "./view-model.js";

/** The stylesheet and scripts every report carries (CSP forbids inline ones). */
const ASSETS = ["report.css", "overview.js", "compare.js"] as const;
const ASSET_DIR = fileURLToPath(new URL("./assets/", import.meta.url));

export interface ReportOptions {
  /** The report folder; default `<run folder>/report`, or `results/reports/<runId>` when the run folder is gone. */
  out?: string;
  /** Prices; when the user supplied some, stored tokens are re-priced (as `umpire show` does). */
  prices?: PriceBook;
  /** Resolves relative paths (out, the run folder, task files); default the process's. */
  cwd?: string;
  /** Task titles and tags; default: as stored with each trial (the task as it was run). */
  tasks?: ReadonlyMap<string, TaskInfo>;
  /** Runs per task and agent on the history page; default 20. */
  historyRuns?: number;
  /** `--baseline`: where this run's flipped tasks diverged from the baseline's (divergence.html). */
  divergence?: { baseRun: string; items: readonly Divergence[]; changes?: readonly string[] };
}

const HISTORY_PAGE_RUNS = 20;

/**
 * history.html: the series of this run's tasks and agents up to this run. A point links to an
 * earlier run's report where `umpire report` writes it by default, when that report exists.
 */
function writeHistoryPage(
  store: Store,
  run: RunRecord,
  taskIds: readonly string[],
  agents: readonly string[],
  dir: string,
  cwd: string,
  lastRuns: number,
): void {
  const rows = store.history({ tasks: taskIds, agents, upToRun: run.id, lastRuns });
  const history = buildHistory(rows);
  const reportHrefs = new Map<string, string>();
  for (const id of new Set(rows.map((r) => r.runId))) {
    if (id === run.id) continue;
    const other = defaultReportDir(store.getRun(id), cwd);
    if (existsSync(join(other, INDEX_PAGE)))
      reportHrefs.set(id, relative(dir, join(other, INDEX_PAGE)).split(sep).join("/"));
  }
  writeFileSync(join(dir, HISTORY_PAGE), historyPageHtml({ runId: run.id, history, reportHrefs, lastRuns }));
}

export interface ReportResult {
  /** Absolute path of the overview page. */
  indexPath: string;
  dir: string;
  trials: number;
  files: FileStats;
}

/**
 * Task id -> title and tags as stored with the trials (the task as it was run; the file may have
 * changed or moved since). The last trial of a task wins: in one run a task id has one content.
 */
export function storedTaskInfo(trials: readonly TrialRecord[]): Map<string, TaskInfo> {
  const info = new Map<string, TaskInfo>();
  for (const t of trials) info.set(t.taskId, { title: t.taskTitle, tags: [...(t.taskTags ?? [])] });
  return info;
}

/** The folder a report goes to when no `--out` is given. */
export function defaultReportDir(run: RunRecord, cwd: string): string {
  const runFolder = run.folder ? resolve(cwd, run.folder) : null;
  return runFolder && existsSync(runFolder) ? join(runFolder, "report") : resolve(cwd, "results", "reports", run.id);
}

/** Empties a previous report in `dir` (only what a report writes); refuses any other non-empty folder. */
function prepareOutDir(dir: string): void {
  if (existsSync(dir)) {
    const entries = readdirSync(dir);
    if (entries.length > 0 && !entries.includes(REPORT_MARKER)) {
      throw new UmpireError(
        "usage",
        `${dir} is not empty and is not an umpire report folder`,
        "choose a new or empty folder with --out (an earlier report folder is replaced)",
      );
    }
    for (const entry of GENERATED_ENTRIES) rmSync(join(dir, entry), { recursive: true, force: true });
  }
  for (const sub of ["trials", "data", "assets"]) mkdirSync(join(dir, sub), { recursive: true });
  writeFileSync(
    join(dir, REPORT_MARKER),
    "This folder is an umpire HTML report; `umpire report` may replace its contents.\n",
  );
}

function copyAssets(dir: string): void {
  for (const name of ASSETS) {
    const source = join(ASSET_DIR, name);
    if (!existsSync(source))
      throw new UmpireError(
        "not_found",
        `report asset ${source} is missing`,
        "reinstall umpire: src/report/html/assets/ must ship with it",
      );
    copyFileSync(source, join(dir, "assets", name));
  }
}

function groupActions(actions: readonly ActionRecord[]): Map<number, ActionRecord[]> {
  const byTurn = new Map<number, ActionRecord[]>();
  for (const a of actions) {
    const list = byTurn.get(a.turnIdx);
    if (list) list.push(a);
    else byTurn.set(a.turnIdx, [a]);
  }
  return byTurn;
}

interface ViewContext {
  store: Store;
  files: ReportFiles;
  prices: PriceBook;
  tasks: ReadonlyMap<string, TaskInfo>;
  byTask: ReadonlyMap<string, TrialRecord[]>;
}

/** Reads one trial's evidence from the store and places its files: everything its pages need. */
function trialView(
  ctx: ViewContext,
  trial: TrialRecord,
  previous: TrialRecord | undefined,
  next: TrialRecord | undefined,
): TrialView {
  const { store, files, prices } = ctx;
  const turns = store.turns(trial.id);
  const actions = groupActions(store.actions(trial.id));
  const highlights = turnHighlights(turns);
  const turnViews: TurnView[] = turns.map((turn, i) => ({
    turn,
    actions: actions.get(turn.idx) ?? [],
    costUsd: prices.userPrices ? costOfUsage(turn.usage, prices.lookup(trial.model)) : turn.costUsd,
    image: turn.screenshot
      ? {
          href: files.screenshot(turn.screenshot.path),
          width: turn.screenshot.width,
          height: turn.screenshot.height,
          source: turn.screenshot.path,
        }
      : null,
    highlight: highlights[i] ?? null,
  }));
  const size = turns.find((t) => t.screenshot)?.screenshot ?? { width: 1280, height: 800 };
  const evidencePaths = Array.isArray(trial.metrics.evidence)
    ? trial.metrics.evidence.filter((p): p is string => typeof p === "string")
    : [];
  const evidence: ImageRef[] = evidencePaths.map((p) => ({
    href: files.trialScreenshot(trial, p),
    width: size.width,
    height: size.height,
    source: p,
  }));
  const { eventsHref, notes, traceHref } = files.trialFiles(trial);
  const partners = sideBySidePartners(trial, ctx.byTask.get(trial.taskId) ?? []);
  return {
    trial,
    task: ctx.tasks.get(trial.taskId) ?? { title: null, tags: [] },
    turns: turnViews,
    checks: store.checks(trial.id),
    answer: trial.answer,
    notes,
    eventsHref,
    traceHref,
    evidence,
    siblings: partners.partners,
    moreSiblings: partners.more,
    previousSeq: previous?.seq ?? null,
    nextSeq: next?.seq ?? null,
  };
}

/**
 * Writes the HTML report of run `runRef` (an id, a unique prefix, or `latest`) and returns
 * where its index.html is. Replaces an earlier report in the same folder; refuses to write
 * into any other non-empty folder.
 */
export function writeRunReport(store: Store, runRef: string, options: ReportOptions = {}): ReportResult {
  const cwd = options.cwd ?? process.cwd();
  const prices = options.prices ?? createPriceBook();
  const run = store.getRun(runRef);
  const dir = resolve(cwd, options.out ?? defaultReportDir(run, cwd));
  prepareOutDir(dir);
  copyAssets(dir);

  const trials = store.trials(run.id).map((t) => ({ ...t, costUsd: reportedCost(t, prices) }));
  const tasks = options.tasks ?? storedTaskInfo(trials);
  const byTask = new Map<string, TrialRecord[]>();
  for (const t of trials) {
    const group = byTask.get(t.taskId);
    if (group) group.push(t);
    else byTask.set(t.taskId, [t]);
  }
  const files = new ReportFiles(run.folder ? resolve(cwd, run.folder) : null, dir);
  const ctx: ViewContext = { store, files, prices, tasks, byTask };

  trials.forEach((trial, i) => {
    const view = trialView(ctx, trial, trials[i - 1], trials[i + 1]);
    writeFileSync(join(dir, "trials", `${trial.seq}.html`), trialPageHtml(view));
    writeFileSync(join(dir, "data", `${trial.seq}.js`), trialDataScript(view));
  });
  writeFileSync(join(dir, COMPARE_PAGE), comparePageHtml(run.id, trials));
  const indexPath = join(dir, INDEX_PAGE);
  if (options.divergence) {
    const { baseRun, items, changes } = options.divergence;
    writeFileSync(
      join(dir, DIVERGENCE_PAGE),
      divergencePageHtml({
        baseRun,
        candidateRun: run.id,
        changes: changes ?? [],
        divergences: items,
        place: (path) => files.screenshot(path),
      }),
    );
  }
  writeFileSync(
    indexPath,
    overviewHtml({
      run,
      trials,
      tasks,
      ...(options.divergence ? { divergenceAgainst: options.divergence.baseRun } : {}),
    }),
  );
  writeHistoryPage(
    store,
    run,
    [...byTask.keys()],
    [...new Set(trials.map((t) => t.agentLabel))],
    dir,
    cwd,
    options.historyRuns ?? HISTORY_PAGE_RUNS,
  );
  return { indexPath, dir, trials: trials.length, files: files.stats };
}
