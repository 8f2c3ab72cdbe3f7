/**
 * The targets of a project: the `targets:` section of the config file. The file is the one the
 * command read (`--config FILE`, or umpire.config.* in the working folder); when there is none
 * there, the nearest umpire.config.* beside the task paths (the folder given, or one of its
 * parents up to the working folder), so `umpire validate --self-test examples/todomvc` finds the
 * example's own config. Relative paths in a target (start/reset cwd) resolve against the file's folder.
 *
 * Config files are code: a target's start, reset and check commands run on this machine.
 */
import fs from "node:fs";
import path from "node:path";
import { UmpireError } from "../errors.js";
import { FIXTURE_TARGET, type TargetDecl } from "../task/target-decl.js";
import { loadConfig, type LoadedConfig } from "./loader.js";
import { CONFIG_FILE_NAMES } from "./schema.js";

export interface ProjectTargets {
  /** The config file the targets came from (as shown), or null. */
  file: string | null;
  /** The folder relative paths in the file resolve against. */
  dir: string;
  targets: Record<string, TargetDecl>;
}

/** The nearest config file at or above the first task path, not above `cwd` (a path outside `cwd`: its own folder only). */
export function findConfigBesideTasks(paths: readonly string[], cwd: string): string | undefined {
  const first = path.resolve(cwd, paths[0] ?? ".");
  let dir = fs.statSync(first, { throwIfNoEntry: false })?.isDirectory() ? first : path.dirname(first);
  // Inside the working folder: walk up to it. Outside it: only the folder the tasks are in.
  const stop = dir === path.resolve(cwd) || dir.startsWith(path.resolve(cwd) + path.sep) ? path.resolve(cwd) : dir;
  for (;;) {
    const found = CONFIG_FILE_NAMES.map((name) => path.join(dir, name)).find((file) => fs.existsSync(file));
    if (found) return found;
    if (dir === stop || path.dirname(dir) === dir) return undefined;
    dir = path.dirname(dir);
  }
}

/**
 * The targets for these task paths. `config` is what the command already read (cwd or --config);
 * without a file there, the config beside the tasks is read (with the same validation).
 */
export function projectTargets(config: LoadedConfig, paths: readonly string[], cwd: string): ProjectTargets {
  let loaded = config;
  if (loaded.file === null) {
    const beside = findConfigBesideTasks(paths, cwd);
    if (beside) loaded = loadConfig({ cwd, file: beside });
  }
  if (loaded.file === null) return { file: null, dir: cwd, targets: {} };
  const targets = (loaded.data.targets ?? {}) as Record<string, TargetDecl>;
  if (Object.hasOwn(targets, FIXTURE_TARGET)) {
    throw new UmpireError(
      "input",
      `${loaded.file}: targets.${FIXTURE_TARGET}: the name "${FIXTURE_TARGET}" is the built-in fixture site`,
      "give your target another name",
    );
  }
  return { file: loaded.file, dir: path.dirname(path.resolve(cwd, loaded.file)), targets };
}
