/**
 * The `file` check: reads an artifact in the trial's workspace directly, so its confidence is
 * `verified`. Checks existence or absence, text the file must (not) contain, `key: value` fields,
 * and that it names one record and no other (the BB-024 trap: right scores, wrong match).
 */
import { open, readdir } from "node:fs/promises";
import { constants } from "node:fs";
import { relative } from "node:path";
import type { FileCheck } from "../task/schema.js";
import type { z } from "zod";
import { clip, clipList } from "./evidence.js";
import { fieldKey, fieldValueEquals, readFields } from "./note-fields.js";
import { checkMatchers, compileRegex, normalizeDashes, normalizeText, type NormalizeOptions } from "./text-match.js";
import type { CheckContext, Evidence, Handler, Judgement } from "./types.js";
import { resolveInWorkspace } from "./workspace-path.js";

export type FileCheckSpec = z.output<typeof FileCheck>;

/** Files larger than this are judged on their first MAX_READ_BYTES (and the evidence says so). */
export const MAX_READ_BYTES = 1024 * 1024;

async function readCapped(realPath: string): Promise<{ text: string; bytes: number; truncated: boolean } | "not-a-file"> {
  // O_NOFOLLOW: the real path was resolved a moment ago; refuse a link swapped in since.
  const handle = await open(realPath, constants.O_RDONLY | constants.O_NOFOLLOW);
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

const TOKEN_CHAR = /[A-Za-z0-9]/;

/**
 * Every record the file names, by the `onlyRecord` pattern (whole tokens only: BB-0421 is not
 * BB-042). RE2 has no lookaround, so the token boundary is checked around each leftmost match;
 * a match inside a longer token is skipped by searching again one character further on.
 */
function recordsNamed(text: string, pattern: string, opts: NormalizeOptions): { record: string; line: string }[] {
  const regex = compileRegex(`(?:${pattern})`, "", opts.case);
  const lines = normalizeDashes(text).split(/\r?\n/);
  const found: { record: string; line: string }[] = [];
  for (const line of lines) {
    let from = 0;
    while (from <= line.length) {
      const m = regex.exec(line, from);
      if (!m) break;
      const end = m.index + m.text.length;
      const whole = m.text.length > 0 && !TOKEN_CHAR.test(line[m.index - 1] ?? "") && !TOKEN_CHAR.test(line[end] ?? "");
      if (whole) found.push({ record: m.text, line: clip(line.trim(), 200) });
      from = whole ? end : m.index + 1;
    }
  }
  return found;
}

function judgeOnlyRecord(text: string, spec: FileCheckSpec, failures: string[], evidence: Evidence): void {
  if (!spec.onlyRecord) return;
  const { pattern, expect } = spec.onlyRecord;
  const found = recordsNamed(text, pattern, spec.normalize);
  const isExpected = (r: string) => normalizeText(r, spec.normalize) === normalizeText(expect, spec.normalize);
  const wrong = found.filter((f) => !isExpected(f.record));
  const wrongIds = [...new Set(wrong.map((w) => w.record))];
  const namesExpected = found.some((f) => isExpected(f.record));
  evidence.records = { expected: expect, named: [...new Set(found.map((f) => f.record))], wrongLines: clipList(wrong, 10).items };
  if (wrongIds.length > 0) {
    failures.push(`names ${wrongIds.join(", ")}${namesExpected ? ` as well as ${expect}` : ` instead of ${expect}`}`);
  } else if (!namesExpected) {
    failures.push(`never names ${expect}`);
  }
}

function judgeFields(text: string, spec: FileCheckSpec, failures: string[], evidence: Evidence): void {
  const wanted = Object.entries(spec.fields);
  if (wanted.length === 0) return;
  const fields = readFields(text);
  const seen: Record<string, string[]> = {};
  for (const [key, expected] of wanted) {
    const values = fields.get(fieldKey(key)) ?? [];
    seen[key] = values;
    if (values.length === 0) {
      failures.push(`has no "${key}:" line (expected ${key}: ${expected})`);
      continue;
    }
    const wrong = values.filter((v) => !fieldValueEquals(v, expected, spec.normalize));
    if (wrong.length > 0) failures.push(`has ${key}: ${wrong[0]}, expected ${expected}`);
  }
  evidence.fields = seen;
}

async function judgeFile(spec: FileCheckSpec, ctx: CheckContext): Promise<Judgement> {
  const resolved = await resolveInWorkspace(ctx.workspaceDir, spec.path);
  if (!resolved.ok) {
    return {
      pass: false,
      reason: `refused to read ${spec.path}: ${resolved.reason}; file checks only read inside the trial workspace`,
      evidence: { path: spec.path, refused: resolved.reason },
    };
  }
  if (!resolved.real) {
    if (!spec.exists) return { pass: true, reason: `${spec.path} is absent, as required`, evidence: { path: spec.path, exists: false } };
    const { folder, entries } = await siblings(resolved.nearestExistingDir, resolved.root);
    const where = folder === "." ? "the workspace" : `${folder}/`;
    const holds = entries.length > 0 ? `${where} holds: ${entries.join(", ")}` : `${where} is empty`;
    return {
      pass: false,
      reason: `${spec.path} does not exist (${holds})`,
      evidence: { path: spec.path, exists: false, folder, entries },
    };
  }
  if (!spec.exists) {
    return { pass: false, reason: `${spec.path} exists, but the task says it must not`, evidence: { path: spec.path, exists: true } };
  }
  const read = await readCapped(resolved.real);
  if (read === "not-a-file") {
    return { pass: false, reason: `${spec.path} is not a regular file (a folder?)`, evidence: { path: spec.path, exists: true, regularFile: false } };
  }

  const evidence: Evidence = { path: spec.path, exists: true, bytes: read.bytes, excerpt: clip(read.text) };
  if (read.truncated) evidence.truncatedAtBytes = MAX_READ_BYTES;
  const failures: string[] = [];
  judgeOnlyRecord(read.text, spec, failures, evidence);
  judgeFields(read.text, spec, failures, evidence);
  const matchers = checkMatchers(read.text, spec.contains, spec.notContains, spec.normalize);
  if (matchers.details.length > 0) evidence.matchers = matchers.details;
  failures.push(...matchers.failures);

  if (failures.length > 0) return { pass: false, reason: `${spec.path} ${failures.join("; ")}`, evidence };
  const checked = [
    spec.onlyRecord && `names only ${spec.onlyRecord.expect}`,
    Object.keys(spec.fields).length > 0 && `has ${Object.entries(spec.fields).map(([k, v]) => `${k}: ${v}`).join(", ")}`,
    matchers.details.length > 0 && `matches ${matchers.details.length} text condition(s)`,
  ].filter(Boolean);
  return { pass: true, reason: `${spec.path} exists${checked.length ? ` and ${checked.join("; ")}` : ""}`, evidence };
}

export const fileCheck: Handler<FileCheckSpec> = {
  confidence: "verified",
  defaultName: (spec) => `file ${spec.path}${spec.exists ? "" : " absent"}`,
  judge: judgeFile,
};
