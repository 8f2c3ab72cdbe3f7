/**
 * The `file` check: reads an artifact in the trial's workspace directly, so its confidence is
 * `verified`. Checks existence or absence and text the file must (not) contain. Reading the file
 * (`readWorkspaceFile`) is part of the public custom-check API, so an app's own check (the
 * fixture suite's note check, tasks/checks/) reads a workspace file with the same refusals and
 * the same "what the folder holds" reason.
 */
import { open, readdir } from "node:fs/promises";
import { constants } from "node:fs";
import { relative } from "node:path";
import type { FileCheck } from "../task/schema.js";
import type { z } from "zod";
import { clip, clipList } from "./evidence.js";
import { checkMatchers } from "./text-match.js";
import type { CheckContext, Evidence, Handler, Judgement } from "./types.js";
import { resolveInWorkspace } from "./workspace-path.js";

export type FileCheckSpec = z.output<typeof FileCheck>;

/** Files larger than this are judged on their first MAX_READ_BYTES (and the evidence says so). */
export const MAX_READ_BYTES = 1024 * 1024;

async function readCapped(
  realPath: string,
): Promise<{ text: string; bytes: number; truncated: boolean } | "not-a-file"> {
  // O_NOFOLLOW: the real path was resolved a moment ago; refuse a link swapped in since. O_NONBLOCK:
  // a named pipe an agent outside the sandbox put there opens at once (then is refused as not a file)
  // instead of holding the check, and the trial, until something writes to it.
  const handle = await open(realPath, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return "not-a-file";
    const length = Math.min(stat.size, MAX_READ_BYTES);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, 0);
    const text = buffer.toString("utf8").replace(/^\uFEFF/, "");
    return { text, bytes: stat.size, truncated: stat.size > MAX_READ_BYTES };
  } finally {
    await handle.close();
  }
}

/** What the folder that should hold the file does hold: the hint that names the wrong record. */
async function siblings(dir: string, workspaceRoot: string): Promise<{ folder: string; entries: string[] }> {
  try {
    const names = (await readdir(dir)).sort();
    return { folder: relative(workspaceRoot, dir) || ".", entries: clipList(names, 20).items };
  } catch {
    return { folder: relative(workspaceRoot, dir) || ".", entries: [] };
  }
}

/** A workspace file read for a check: its text and the evidence every reader starts from. */
export type WorkspaceRead =
  | { status: "read"; text: string; evidence: Evidence }
  /** Not read: refused (outside the workspace), missing, or not a regular file; `judgement` says so for a file that must exist. */
  | { status: "refused" | "missing" | "not-a-file"; judgement: Judgement };

/**
 * Reads `path` inside the trial's workspace (never outside it: `..`, absolute paths and links that
 * leave are refused), at most MAX_READ_BYTES. A missing file's judgement lists what its folder
 * holds, so "saved the wrong record" reads as `notes/BB-042.md does not exist (notes/ holds: BB-024.md)`.
 */
export async function readWorkspaceFile(ctx: Pick<CheckContext, "workspaceDir">, path: string): Promise<WorkspaceRead> {
  const resolved = await resolveInWorkspace(ctx.workspaceDir, path);
  if (!resolved.ok) {
    return {
      status: "refused",
      judgement: {
        pass: false,
        reason: `refused to read ${path}: ${resolved.reason}; file checks only read inside the trial workspace`,
        evidence: { path, refused: resolved.reason },
      },
    };
  }
  if (!resolved.real) {
    const { folder, entries } = await siblings(resolved.nearestExistingDir, resolved.root);
    const where = folder === "." ? "the workspace" : `${folder}/`;
    const holds = entries.length > 0 ? `${where} holds: ${entries.join(", ")}` : `${where} is empty`;
    return {
      status: "missing",
      judgement: {
        pass: false,
        reason: `${path} does not exist (${holds})`,
        evidence: { path, exists: false, folder, entries },
      },
    };
  }
  const read = await readCapped(resolved.real);
  if (read === "not-a-file") {
    return {
      status: "not-a-file",
      judgement: {
        pass: false,
        reason: `${path} is not a regular file (a folder?)`,
        evidence: { path, exists: true, regularFile: false },
      },
    };
  }
  const evidence: Evidence = { path, exists: true, bytes: read.bytes, excerpt: clip(read.text) };
  if (read.truncated) evidence.truncatedAtBytes = MAX_READ_BYTES;
  return { status: "read", text: read.text, evidence };
}

async function judgeFile(spec: FileCheckSpec, ctx: CheckContext): Promise<Judgement> {
  const read = await readWorkspaceFile(ctx, spec.path);
  if (read.status === "refused") return read.judgement;
  if (!spec.exists) {
    return read.status === "missing"
      ? { pass: true, reason: `${spec.path} is absent, as required`, evidence: { path: spec.path, exists: false } }
      : {
          pass: false,
          reason: `${spec.path} exists, but the task says it must not`,
          evidence: { path: spec.path, exists: true },
        };
  }
  if (read.status !== "read") return read.judgement;

  const evidence = read.evidence;
  const matchers = checkMatchers(read.text, spec.contains, spec.notContains, spec.normalize);
  if (matchers.details.length > 0) evidence.matchers = matchers.details;
  if (matchers.failures.length > 0)
    return { pass: false, reason: `${spec.path} ${matchers.failures.join("; ")}`, evidence };
  const checked = matchers.details.length > 0 ? ` and matches ${matchers.details.length} text condition(s)` : "";
  return { pass: true, reason: `${spec.path} exists${checked}`, evidence };
}

export const fileCheck: Handler<FileCheckSpec> = {
  confidence: "verified",
  defaultName: (spec) => `file ${spec.path}${spec.exists ? "" : " absent"}`,
  judge: judgeFile,
};
