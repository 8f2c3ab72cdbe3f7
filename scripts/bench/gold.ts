/**
 * Gold trials never fail (issue 37, item 7): every bundled task's and example's gold trajectory (the
 * fixture suite in tasks/, examples/todomvc, examples/tiddlywiki, examples/settling: the pages of items
 * 1-4, a list fetched after load, a sliding tray, a fading modal, a native confirm) played N times at concurrency 1, 2
 * and 4, on a quiet machine and beside as many CPU-bound processes as cores. A gold trial that fails is
 * umpire's defect until shown otherwise: the section reports each failed gold trial (the aim: 0), each
 * `error` trial and its cause. It plays them through the self-test's own code (`runSelfTest` with the
 * gold/structured probe, as `umpire try` does), so what it measures is what `validate --self-test` does.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { CUSTOM_CHECK_RULES } from "../../src/checks/custom-rules.js";
import { probesFor, type ProbeResult } from "../../src/authoring/probes.js";
import { runSelfTest } from "../../src/authoring/self-test.js";
import { loadConfig } from "../../src/config/loader.js";
import { projectTargets } from "../../src/config/project.js";
import { openStore } from "../../src/store/open.js";
import { loadTasksAsync } from "../../src/task/loader.js";
import { machineUsageSince, snapshotMachine } from "./machine-load.js";

/** The bundled projects whose gold trajectories are played: a folder and its tasks folder. */
export const GOLD_PROJECTS = [
  { name: "fixture", dir: ".", tasks: "tasks" },
  { name: "todomvc", dir: "examples/todomvc", tasks: "tasks" },
  { name: "tiddlywiki", dir: "examples/tiddlywiki", tasks: "tasks" },
  { name: "settling", dir: "examples/settling", tasks: "tasks" },
] as const;

export type GoldLoad = "quiet" | "loaded";

export interface GoldOptions {
  repeats: number;
  concurrencies: readonly number[];
  loads: readonly GoldLoad[];
  /** Only these projects (default all of GOLD_PROJECTS). */
  projects?: readonly string[];
}

/** One project at one concurrency under one load. */
export interface GoldCell {
  project: string;
  concurrency: number;
  load: GoldLoad;
  trials: number;
  passed: number;
  /** Gold trials the checks failed: each is umpire's defect until shown otherwise. */
  failed: { task: string; trialId: string; reasons: string[] }[];
  /** `error` (and `cancelled`) trials, counted by cause. */
  errors: Record<string, number>;
  wallMs: number;
  /** Cores the whole machine kept busy meanwhile (the spinners included when loaded). */
  coresBusy: number | null;
}

export interface GoldBench {
  repeats: number;
  cells: GoldCell[];
}

/** A cause as one short line, so like causes count together (ids and numbers kept: they are the cause). */
function causeOf(r: ProbeResult): string {
  const text = r.reasons[0] ?? `${r.verdict}: ${r.stopReason}`;
  return text.replace(/\s+/g, " ").slice(0, 160);
}

/** What one self-test run of the gold probes says, as a cell. */
export function goldCell(
  where: Pick<GoldCell, "project" | "concurrency" | "load" | "wallMs" | "coresBusy">,
  results: readonly ProbeResult[],
): GoldCell {
  const errors: Record<string, number> = {};
  const failed: GoldCell["failed"] = [];
  for (const r of results) {
    if (r.verdict === "failed") failed.push({ task: r.task, trialId: r.trialId, reasons: r.reasons });
    else if (r.verdict !== "passed") errors[causeOf(r)] = (errors[causeOf(r)] ?? 0) + 1;
  }
  const passed = results.filter((r) => r.verdict === "passed").length;
  return { ...where, trials: results.length, passed, failed, errors };
}

/** As many CPU-bound processes as cores (the "loaded" condition); stopped by the returned function. */
function spinners(): () => void {
  const children: ChildProcess[] = Array.from({ length: availableParallelism() }, () =>
    spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }),
  );
  return () => {
    for (const child of children) child.kill("SIGKILL");
  };
}

/** Plays one project's gold trajectories `repeats` times at one concurrency through runSelfTest. */
async function playProject(
  root: string,
  project: (typeof GOLD_PROJECTS)[number],
  repeats: number,
  concurrency: number,
) {
  const cwd = resolve(root, project.dir);
  const targets = projectTargets(loadConfig({ cwd }), [project.tasks], cwd);
  const loaded = await loadTasksAsync([project.tasks], { cwd, targets: targets.targets }, CUSTOM_CHECK_RULES);
  const scratch = mkdtempSync(join(tmpdir(), `umpire-bench-gold-${project.name}-`));
  const store = openStore(join(scratch, "umpire.db"));
  let keep = false;
  try {
    const outcome = await runSelfTest({
      tasks: loaded.tasks,
      config: targets,
      store,
      outDir: join(scratch, "out"),
      concurrency,
      signal: new AbortController().signal,
      env: process.env,
      probes: (task) => Array.from({ length: repeats }, () => probesFor(task)[0]!),
    });
    // A failed or errored gold trial is umpire's defect until shown otherwise: its folder and the store are the evidence.
    keep = outcome.results.some((r) => r.verdict !== "passed");
    return { results: outcome.results, kept: keep ? scratch : undefined };
  } finally {
    store.close();
    if (!keep) rmSync(scratch, { recursive: true, force: true });
  }
}

export async function benchGold(root: string, options: GoldOptions, log: (line: string) => void): Promise<GoldBench> {
  const cells: GoldCell[] = [];
  const projects = GOLD_PROJECTS.filter((p) => !options.projects || options.projects.includes(p.name));
  for (const load of options.loads) {
    const stop = load === "loaded" ? spinners() : () => {};
    try {
      for (const concurrency of options.concurrencies) {
        for (const project of projects) {
          const started = performance.now();
          const machine = snapshotMachine();
          const { results, kept } = await playProject(root, project, options.repeats, concurrency);
          const where = {
            project: project.name,
            concurrency,
            load,
            wallMs: Math.round(performance.now() - started),
            coresBusy: machineUsageSince(machine).coresBusy,
          };
          const cell = goldCell(where, results);
          cells.push(cell);
          log(`bench: gold ${goldCellLine(cell)}`);
          for (const f of cell.failed) log(`bench: gold   failed ${f.task} (${f.trialId}): ${f.reasons.join("; ")}`);
          if (kept) log(`bench: gold   kept ${kept} (the trials' folders under out/, the store umpire.db)`);
        }
      }
    } finally {
      stop();
    }
  }
  return { repeats: options.repeats, cells };
}

/** `todomvc c2 loaded: 8/8 passed, 0 failed, 0 error (41.0 s, 2.0 cores busy)`. */
export function goldCellLine(c: GoldCell): string {
  const errors = Object.values(c.errors).reduce((a, b) => a + b, 0);
  const busy = c.coresBusy === null ? "" : `, ${c.coresBusy.toFixed(1)} cores busy`;
  return `${c.project} c${c.concurrency} ${c.load}: ${c.passed}/${c.trials} passed, ${c.failed.length} failed, ${errors} error (${(c.wallMs / 1000).toFixed(1)} s${busy})`;
}

/** The section's lines under the table: totals, each failed gold trial with its reasons, each error cause. */
export function goldLines(bench: GoldBench): string[] {
  const trials = bench.cells.reduce((n, c) => n + c.trials, 0);
  const failed = bench.cells.flatMap((c) => c.failed.map((f) => ({ cell: c, ...f })));
  const causes: Record<string, number> = {};
  for (const c of bench.cells)
    for (const [cause, n] of Object.entries(c.errors)) causes[cause] = (causes[cause] ?? 0) + n;
  const errors = Object.values(causes).reduce((a, b) => a + b, 0);
  const lines = [
    `gold (${bench.repeats} repeat${bench.repeats === 1 ? "" : "s"} of every gold trajectory per cell): ${trials} trials, ${failed.length} failed (aim 0: ${failed.length === 0 ? "met" : "NOT met"}), ${errors} error`,
    ...bench.cells.map((c) => `  ${goldCellLine(c)}`),
  ];
  for (const f of failed)
    lines.push(
      `  FAILED ${f.task} (${f.cell.project} c${f.cell.concurrency} ${f.cell.load}, ${f.trialId}): ${f.reasons.join("; ")}`,
    );
  for (const [cause, n] of Object.entries(causes).sort((a, b) => b[1] - a[1])) lines.push(`  error x${n}: ${cause}`);
  return lines;
}
