/** Builders for store tests: a temp folder, planned trials and finished-trial results. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";
import { openStore } from "../../../src/store/open.js";
import type { CheckInput, TrialInput, TrialResult } from "../../../src/store/records.js";
import type { Store } from "../../../src/store/store.js";

export function tempDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "umpire-store-"));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function planned(seq: number, over: Partial<TrialInput> = {}): TrialInput {
  return {
    seq,
    taskId: "save-bb042",
    taskFile: "tasks/save-bb042.yaml",
    agentLabel: "reference/structured",
    model: "reference",
    mode: "structured",
    repeat: 0,
    ...over,
  };
}

export function result(over: Partial<TrialResult> = {}): TrialResult {
  return {
    stopReason: "answered",
    stopDetail: "model finished, note verified",
    verdict: "passed",
    claimed: true,
    verified: true,
    turns: 4,
    actions: 5,
    usage: { inputTokens: 12_000, outputTokens: 800, reasoningTokens: 300, cachedTokens: 0 },
    costUsd: 0.0304,
    timing: { wallMs: 12_500, modelMs: 8_000, executorMs: 3_000, captureMs: 800, checkMs: 200 },
    metrics: { stuckSteps: 0, reflections: 0, recoveries: 0 },
    ...over,
  };
}

export const passingCheck: CheckInput = {
  kind: "file",
  name: "note saved",
  required: true,
  pass: true,
  confidence: "verified",
  reason: "notes/BB-042.md contains 168/6 and 169/4",
  evidence: { path: "notes/BB-042.md", bytes: 120 },
  ms: 12,
};

export const failingCheck: CheckInput = {
  kind: "answer",
  name: "answer names the winner",
  required: true,
  pass: false,
  confidence: "claimed",
  reason: 'answer does not contain "Jaipur Kites won by 6 wickets"',
  evidence: { answer: 'done <ok> & "quoted"' },
  ms: 1,
};

/** What `withTempStore` opens for each test: the store, its file and the folder around it. */
export interface TempStore {
  store: Store;
  db: string;
  dir: string;
}

/**
 * A fresh store in a temporary folder for every test of the calling scope (a file or a describe):
 * opened before each test and handed to `use`, closed and removed after it. The report tests each
 * wrote these hooks by hand.
 */
export function withTempStore(use: (opened: TempStore) => void): void {
  let opened: TempStore | undefined;
  let cleanup: (() => void) | undefined;
  beforeEach(() => {
    const temp = tempDir();
    cleanup = temp.cleanup;
    const db = join(temp.dir, "umpire.db");
    opened = { store: openStore(db), db, dir: temp.dir };
    use(opened);
  });
  afterEach(() => {
    opened?.store.close();
    cleanup?.();
  });
}
