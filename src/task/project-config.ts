/**
 * The smallest reader of the project's config file (`umpire.config.yaml|yml|json`) for its
 * `targets:` section: found beside the tasks (the folder given, or one of its parents up to the
 * working folder). Other sections (prices, and what later work adds) are read by their owners.
 *
 * Config files are code: a target's start, reset and check commands run on this machine.
 */
import fs from "node:fs";
import path from "node:path";
import { UmpireError } from "../errors.js";
import { dottedPath } from "./problem.js";
import { FIXTURE_TARGET, TargetsSection, type TargetDecl } from "./target-decl.js";
import { parseYamlSource } from "./yaml-source.js";
import { plainIssues } from "./zod-issues.js";

export const CONFIG_NAMES = ["umpire.config.yaml", "umpire.config.yml", "umpire.config.json"] as const;

export interface ProjectConfig {
  /** Absolute path of the file read; undefined when there is none. */
  file?: string;
  /** The folder relative paths in the file resolve against. */
  dir: string;
  targets: Record<string, TargetDecl>;
}

/** The config file for these task paths: the nearest one at or above the first path, not above `cwd`. */
export function findConfigFile(paths: readonly string[], cwd: string): string | undefined {
  const first = path.resolve(cwd, paths[0] ?? ".");
  let dir = fs.statSync(first, { throwIfNoEntry: false })?.isDirectory() ? first : path.dirname(first);
  const stop = path.resolve(cwd);
  const inside = dir === stop || dir.startsWith(stop + path.sep);
  for (;;) {
    for (const name of CONFIG_NAMES) {
      const candidate = path.join(dir, name);
      if (fs.existsSync(candidate)) return candidate;
    }
    if (!inside || dir === stop || path.dirname(dir) === dir) break;
    dir = path.dirname(dir);
  }
  if (!inside) for (const name of CONFIG_NAMES) if (fs.existsSync(path.join(stop, name))) return path.join(stop, name);
  return undefined;
}

/** Reads the `targets:` of a config file; throws an UmpireError naming the file, line, field and fix. */
export function readProjectConfig(file: string | undefined, cwd: string): ProjectConfig {
  if (!file) return { dir: cwd, targets: {} };
  const shown = path.relative(cwd, file) || file;
  const text = fs.readFileSync(file, "utf8");
  const source = parseYamlSource(text); // JSON is YAML
  if (source.problems.length > 0) {
    const p = source.problems[0]!;
    throw new UmpireError("input", `${shown}${p.line ? `:${p.line}` : ""}: ${p.message}`, p.fix);
  }
  const data = (source.data ?? {}) as Record<string, unknown>;
  if (typeof data !== "object" || Array.isArray(data)) throw new UmpireError("input", `${shown}: expected a mapping of sections (targets:, prices:, ...)`, "start the file with targets:");
  const raw = data.targets ?? {};
  if (raw && typeof raw === "object" && Object.hasOwn(raw, FIXTURE_TARGET)) {
    throw new UmpireError("input", `${shown}:${source.lineOf(["targets", FIXTURE_TARGET], { key: true }) ?? "?"}: targets.${FIXTURE_TARGET}: the name "${FIXTURE_TARGET}" is the built-in fixture site`, "give your target another name");
  }
  const parsed = TargetsSection.safeParse(raw, { reportInput: true });
  if (!parsed.success) {
    const lines = plainIssues(parsed.error.issues, TargetsSection, raw, ["targets"]).map((issue) => {
      const line = source.lineOf(issue.path, { key: issue.atKey });
      return `  ${shown}${line ? `:${line}` : ""}: ${dottedPath(issue.path)}: ${issue.message}${issue.fix ? ` (${issue.fix})` : ""}`;
    });
    throw new UmpireError("input", `the config file ${shown} is invalid:\n${lines.join("\n")}`, "fix the fields named above; see docs/your-app.md");
  }
  return { file, dir: path.dirname(file), targets: parsed.data };
}

/** Finds and reads the config file for these task paths. */
export function loadProjectConfig(paths: readonly string[], cwd: string, explicit?: string): ProjectConfig {
  const file = explicit ? path.resolve(cwd, explicit) : findConfigFile(paths, cwd);
  if (explicit && !fs.existsSync(file!)) throw new UmpireError("input", `the config file ${explicit} does not exist`, "check the path given to --config");
  return readProjectConfig(file, cwd);
}
