/**
 * `umpire run --pack miniwob`: a public benchmark run from the user's own checkout instead of task
 * files (src/packs/). The pack's tasks replace the task paths; the run's other options (agents,
 * --repeat, --grep, --task-tag, outputs) apply as to any suite. What of the selection cannot run,
 * and BrowserGym's settings the numbers follow, are said before the first trial.
 */
import { dirname, resolve } from "node:path";
import type { LoadedConfig } from "../../config/loader.js";
import type { OptionSpec } from "../../config/option.js";
import { UmpireError } from "../../errors.js";
import {
  loadMiniwobPack,
  MINIWOB_PACK,
  MINIWOB_SETTINGS,
  type MiniwobPack,
  type PackDirSource,
  type MiniwobSelection,
  miniwobHtmlDir,
  startMiniwobTarget,
} from "../../packs/miniwob.js";
import type { StoredPack } from "../../store/run-options.js";
import type { Target } from "../../targets/contract.js";

export const PACK_OPTIONS = {
  pack: {
    kind: "enum",
    arg: "NAME",
    values: [MINIWOB_PACK],
    help: "run a public benchmark from your own checkout instead of task files (docs/benchmarks.md)",
  },
  "pack-dir": {
    kind: "string",
    arg: "DIR",
    defaultText: "the config file's packs.miniwob.dir, else $MINIWOB_DIR",
    help: "the benchmark's folder: a MiniWoB++ checkout's miniwob/html (with --resume of a pack\nrun: where its checkout is now)",
  },
  "pack-tasks": {
    kind: "string",
    arg: "LIST",
    multiple: true,
    help: "only these environments (comma-separated or repeated), e.g. click-button,enter-text",
  },
  "pack-split": {
    kind: "enum",
    arg: "S",
    values: ["all", "train", "test"],
    default: "all",
    help: "BrowserGym's split of the environments",
  },
  "pack-seed": {
    kind: "int",
    arg: "N",
    min: 0,
    max: 1_000_000,
    default: 0,
    help: "added to every episode's seed: another set of episodes, each still replayable",
  },
} as const satisfies Record<string, OptionSpec>;

export interface PackValues {
  pack?: string;
  "pack-dir"?: string;
  "pack-tasks"?: string[];
  "pack-split"?: string;
  "pack-seed"?: number;
}

/** A pack chosen for a run: its tasks, what does not run, and how its target starts. */
export interface SelectedPack {
  name: string;
  pack: MiniwobPack;
  targets: Record<string, () => Promise<Target>>;
  /** What was asked (the folder as found, the environments, split and seed): stored, so the run's tasks can be made again. */
  selection: PackSelection;
}

/** `packs.miniwob.dir` of the config file the command read, with the folder it is relative to. */
export interface ConfigPackDir {
  /** The config file as shown. */
  file: string;
  /** The config file's folder: a relative `dir` resolves against it. */
  folder: string;
  dir: string;
}

/** The `packs.miniwob.dir` of a loaded config, or undefined when it has none. */
export function configPackDir(config: LoadedConfig, cwd: string): ConfigPackDir | undefined {
  const dir = config.data.packs?.miniwob?.dir;
  if (!config.file || dir === undefined) return undefined;
  return { file: config.file, folder: dirname(resolve(cwd, config.file)), dir };
}

/**
 * The benchmark's folder and where it was named: --pack-dir, else the config file's `packs.miniwob.dir`
 * (relative to the file's folder), else MINIWOB_DIR: flag > config file > built-in default, as for options.
 */
function packDirOf(
  values: PackValues,
  env: NodeJS.ProcessEnv,
  config: ConfigPackDir | undefined,
): { dir: string; source: PackDirSource } | undefined {
  const flag = values["pack-dir"];
  if (flag !== undefined)
    return {
      dir: flag,
      source: {
        label: `--pack-dir ${flag}`,
        fix: "pass --pack-dir <clone>/miniwob/html (a MiniWoB++ checkout's folder)",
      },
    };
  if (config)
    return {
      dir: resolve(config.folder, config.dir),
      source: {
        label: `${config.file}: packs.miniwob.dir ${config.dir}`,
        fix: `set packs.miniwob.dir in ${config.file} to a MiniWoB++ checkout's miniwob/html folder (relative to the file's folder), or pass --pack-dir`,
      },
    };
  if (env.MINIWOB_DIR)
    return {
      dir: env.MINIWOB_DIR,
      source: {
        label: `MINIWOB_DIR=${env.MINIWOB_DIR}`,
        fix: "set MINIWOB_DIR to <clone>/miniwob/html, or pass --pack-dir",
      },
    };
  return undefined;
}

/** What a pack run asked for (the folder, environments, split and seed), as stored. */
type PackSelection = Required<Omit<MiniwobSelection, "source">>;

/** The pack `values` ask for, or undefined without --pack. `config`: the config file's `packs.miniwob.dir`, if any. */
export function selectPack(
  values: PackValues,
  positionals: readonly string[],
  env: NodeJS.ProcessEnv,
  config?: ConfigPackDir,
): SelectedPack | undefined {
  const asked = ["pack-dir", "pack-tasks"].filter((k) => values[k as keyof PackValues] !== undefined);
  if (!values.pack) {
    if (asked.length) throw new UmpireError("usage", `--${asked[0]} needs --pack`, "umpire run --pack miniwob ...");
    return undefined;
  }
  if (positionals.length > 0) {
    throw new UmpireError("usage", "--pack does not go with task paths", "run the pack and your own tasks as two runs");
  }
  const where = packDirOf(values, env, config);
  if (!where) {
    throw new UmpireError(
      "usage",
      "--pack miniwob needs the benchmark's folder",
      "git clone https://github.com/Farama-Foundation/miniwob-plusplus, then --pack-dir <clone>/miniwob/html, packs: { miniwob: { dir: ... } } in umpire.config.yaml, or MINIWOB_DIR=...",
    );
  }
  const tasks = (values["pack-tasks"] ?? [])
    .flatMap((t) => t.split(","))
    .map((t) => t.trim())
    .filter(Boolean);
  const split = (values["pack-split"] ?? "all") as "all" | "train" | "test";
  return packOf({ dir: where.dir, tasks, split, seed: values["pack-seed"] ?? 0 }, where.source);
}

function packOf(selection: PackSelection, source?: PackDirSource): SelectedPack {
  const pack = loadMiniwobPack({ ...selection, ...(source ? { source } : {}) });
  return {
    name: MINIWOB_PACK,
    pack,
    targets: { [MINIWOB_PACK]: () => startMiniwobTarget(pack) },
    selection: { ...selection, dir: pack.htmlDir },
  };
}

/** What a run stores of its pack (`options.pack`): enough to make the same tasks and seeds again. */
export function storedPack(selected: SelectedPack): StoredPack {
  const { dir, tasks, split, seed } = selected.selection;
  return { name: selected.name, dir, tasks: [...tasks], split, seed };
}

/** A MiniWoB++ html folder, or null when `dir` is not one (moved, deleted, unmounted). */
function reachable(dir: string | undefined): string | null {
  if (!dir) return null;
  try {
    return miniwobHtmlDir(dir);
  } catch {
    return null;
  }
}

/**
 * The pack of stored run `runId`, made again for `--resume`, `--last-failed` or `rejudge`: the same
 * environments, split and seeds, from the folder the run used. When that folder is gone, `--pack-dir`
 * (or MINIWOB_DIR) names where the checkout is now; without either the error says so.
 */
export function restorePack(
  stored: StoredPack,
  run: { id: string; again: string },
  /** The pack options the command line gave (not their defaults). */
  values: PackValues,
  env: NodeJS.ProcessEnv,
): SelectedPack {
  const changed = (["pack", "pack-tasks", "pack-split", "pack-seed"] as const).filter((k) => values[k] !== undefined);
  if (changed.length > 0) {
    throw new UmpireError(
      "usage",
      `--${changed[0]}: run ${run.id} is a run of pack ${stored.name}, made again as it was stored (its environments, split and seeds)`,
      `drop --${changed[0]}; only --pack-dir goes with it, to name where the checkout is now (or start a new run with --pack)`,
    );
  }
  if (stored.name !== MINIWOB_PACK) {
    throw new UmpireError(
      "input",
      `run ${run.id} ran pack ${stored.name}, which this umpire does not know`,
      `use the umpire version that ran it, or start a new run with --pack ${MINIWOB_PACK}`,
    );
  }
  const asked = values["pack-dir"];
  const dir = asked ?? reachable(stored.dir) ?? reachable(env.MINIWOB_DIR);
  if (!dir) {
    throw new UmpireError(
      "input",
      `run ${run.id} ran pack ${stored.name} from ${stored.dir}, which is not a MiniWoB++ html folder now (no core/core.js and miniwob/ under it)${env.MINIWOB_DIR ? `, nor is MINIWOB_DIR (${env.MINIWOB_DIR})` : ""}`,
      `pass --pack-dir <the checkout>/miniwob/html (or set MINIWOB_DIR): ${run.again} --pack-dir DIR`,
    );
  }
  return packOf({ dir, tasks: stored.tasks, split: stored.split, seed: stored.seed });
}

/** The lines said before the run: the settings the numbers follow, and every environment that does not run or cannot pass. */
export function packNotice(selected: SelectedPack): string[] {
  const { pack } = selected;
  const s = MINIWOB_SETTINGS;
  const lines = [
    `pack miniwob: ${pack.tasks.length} environments from ${pack.htmlDir}; BrowserGym's settings: viewport ${s.viewport.width}x${s.viewport.height} at ${s.viewport.deviceScaleFactor}x, ${s.turns} turns, episode ${s.episodeMaxMs} ms, human display removed, pass = ${s.pass}; seeds derived from (environment, repeat, --pack-seed ${pack.seedBase})`,
  ];
  // One line for the environments missing from the folder (a partial or older checkout can lack dozens).
  const missing = pack.notRunnable.map((n) => n.name);
  if (missing.length > 0)
    lines.push(`pack miniwob: ${missing.length} environment(s) do not run, not in the folder: ${missing.join(", ")}`);
  for (const { name, why } of pack.caveats) lines.push(`pack miniwob: ${name} runs but ${why}`);
  return lines;
}
