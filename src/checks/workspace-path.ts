/**
 * Resolving a declared path inside a trial's workspace, so a file check can never read outside it:
 * not through `..`, not through an absolute path, and not through a symbolic link (which an agent
 * with a shell could plant) that leads elsewhere. Symbolic links that stay inside are followed.
 */
import { lstat, readlink, realpath } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { CheckUnjudgeableError } from "./types.js";
import { messageOf } from "../errors.js";

/**
 * Why a declared path is not a plain relative path inside the workspace, or null if it is.
 * Pure; the task validator can use it to reject declarations before any trial runs.
 */
export function workspacePathProblem(path: string): string | null {
  if (path.trim() === "") return "the path is empty";
  if (path.includes("\0")) return "the path contains a NUL character";
  if (isAbsolute(path) || /^[\\/]/.test(path) || /^[A-Za-z]:/.test(path)) {
    return `"${path}" is absolute; write it relative to the workspace, e.g. notes/BB-042.md`;
  }
  if (path.split(/[\\/]/).includes("..")) return `"${path}" uses "..", which could leave the workspace`;
  return null;
}

export type ResolvedPath =
  /**
   * Inside the workspace. `root` is the workspace's real path; `real` the file's real path, or
   * null when nothing is there; `nearestExistingDir` the deepest existing folder on the way.
   */
  | { ok: true; root: string; real: string | null; nearestExistingDir: string }
  /** Refused; `reason` says why, in words a person can act on. */
  | { ok: false; reason: string };

function inside(root: string, candidate: string): boolean {
  return candidate === root || candidate.startsWith(root + sep);
}

function code(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException).code;
}

/** The real path of the deepest ancestor of `path` (inside or at `root`) that exists. */
async function nearestExisting(root: string, path: string): Promise<string> {
  let dir = dirname(path);
  while (inside(root, dir) && dir !== root) {
    try {
      return await realpath(dir);
    } catch (e) {
      if (code(e) !== "ENOENT" && code(e) !== "ENOTDIR") throw e;
      dir = dirname(dir);
    }
  }
  return root;
}

/**
 * Resolves `path` inside `workspaceDir`. Throws CheckUnjudgeableError when the workspace itself
 * is missing (the harness's fault); returns `{ok: false}` for every way the path could escape.
 */
export async function resolveInWorkspace(workspaceDir: string, path: string): Promise<ResolvedPath> {
  const problem = workspacePathProblem(path);
  if (problem) return { ok: false, reason: problem };
  let root: string;
  try {
    root = await realpath(workspaceDir);
  } catch (e) {
    throw new CheckUnjudgeableError(`the workspace ${workspaceDir} cannot be read: ${messageOf(e)}`);
  }
  const target = join(root, path);
  const leaves = (real: string) =>
    `"${path}" leads outside the workspace through a symbolic link (to ${relative(root, real).startsWith("..") ? real : relative(root, real)})`;

  try {
    const real = await realpath(target);
    if (!inside(root, real)) return { ok: false, reason: leaves(real) };
    return { ok: true, root, real, nearestExistingDir: dirname(real) };
  } catch (e) {
    if (code(e) === "ELOOP") return { ok: false, reason: `"${path}" is a symbolic link loop` };
    if (code(e) !== "ENOENT" && code(e) !== "ENOTDIR") throw e;
  }

  // Nothing readable there. A parent folder that is a link outside still counts as an escape,
  // and so does a dangling link that points outside: "absent" must not be judged elsewhere.
  const parent = await nearestExisting(root, target);
  if (!inside(root, parent)) return { ok: false, reason: leaves(parent) };
  try {
    const stat = await lstat(target);
    if (stat.isSymbolicLink()) {
      const pointsAt = resolve(dirname(target), await readlink(target));
      if (!inside(root, pointsAt)) return { ok: false, reason: leaves(pointsAt) };
    }
  } catch (e) {
    if (code(e) !== "ENOENT" && code(e) !== "ENOTDIR") throw e;
  }
  return { ok: true, root, real: null, nearestExistingDir: parent };
}
