/**
 * `--trace on | retain-on-failure | off` through the real CLI: each trial of a traced run leaves a
 * `trace.zip` in its folder that is a real Playwright trace (read here as a zip: its central
 * directory lists `trace.trace` and `trace.network`), retain-on-failure (set in the config file's
 * defaults) keeps only the failed trial's, off keeps none, a command agent's trial is traced the
 * same way, and the HTML report links the trace.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { inflateRawSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runInProcess } from "../../support/cli-in-process.js";
import { openStore } from "../../../src/store/open.js";
import type { TrialRecord } from "../../../src/store/records.js";

const ROOT = join(__dirname, "../../..");
const TASK = "answer-only-bb042";
/** The gold trajectory passes; the task's misread-scores negative fails its answer check. */
const MODELS = ["--model", "reference", "--model", "reference:negative-misread-scores", "--mode", "structured"];
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "umpire-trace-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function umpire(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const { code, stdout, stderr } = await runInProcess(args, { env: {}, bareEnv: true });
  return { code, out: stdout, err: stderr };
}

/** A zip's entries from its central directory (found from the end-of-central-directory record). */
function zipDirectory(file: string): {
  zip: Buffer;
  entries: Map<string, { method: number; size: number; local: number }>;
} {
  const zip = readFileSync(file);
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  expect(eocd, `${file} has no end-of-central-directory record: not a zip`).toBeGreaterThan(0);
  const count = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  const entries = new Map<string, { method: number; size: number; local: number }>();
  for (let i = 0; i < count; i++) {
    expect(zip.readUInt32LE(at)).toBe(0x02014b50);
    const nameLength = zip.readUInt16LE(at + 28);
    const name = zip.toString("utf8", at + 46, at + 46 + nameLength);
    entries.set(name, {
      method: zip.readUInt16LE(at + 10),
      size: zip.readUInt32LE(at + 20),
      local: zip.readUInt32LE(at + 42),
    });
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return { zip, entries };
}

function zipEntries(file: string): string[] {
  return [...zipDirectory(file).entries.keys()];
}

/** One entry's text (stored or deflated, the two methods Playwright's zips use). */
function zipText(file: string, name: string): string {
  const { zip, entries } = zipDirectory(file);
  const entry = entries.get(name)!;
  expect(zip.readUInt32LE(entry.local)).toBe(0x04034b50);
  const start = entry.local + 30 + zip.readUInt16LE(entry.local + 26) + zip.readUInt16LE(entry.local + 28);
  const data = zip.subarray(start, start + entry.size);
  return (entry.method === 8 ? inflateRawSync(data) : data).toString("utf8");
}

/** The run's trials with their folders made absolute. */
function trialsOf(runId: string): (TrialRecord & { path: string })[] {
  const store = openStore(join(dir, "umpire.db"), { readonly: true });
  try {
    const run = store.getRun(runId);
    return store.trials(runId).map((t) => ({ ...t, path: resolve(ROOT, run.folder ?? "", t.folder ?? "") }));
  } finally {
    store.close();
  }
}

const common = () => ["--db", join(dir, "umpire.db"), "--out", join(dir, "runs"), "--json"];

describe("--trace keeps a Playwright trace per trial", () => {
  it("on: every trial has a valid trace.zip, and the HTML report links it", async () => {
    const run = await umpire(["run", TASK, ...MODELS, "--trace", "on", "--report", ...common()]);
    expect(run.err).not.toMatch(/internal error/);
    const runId = JSON.parse(run.out).runId as string;
    const trials = trialsOf(runId);
    expect(trials.map((t) => t.verdict).sort()).toEqual(["failed", "passed"]);
    for (const trial of trials) {
      const entries = zipEntries(join(trial.path, "trace.zip"));
      expect(entries).toEqual(expect.arrayContaining(["trace.trace", "trace.network"]));
      // Screenshots (screencast frames) and DOM snapshots' resources are in it too.
      expect(entries.some((e) => e.startsWith("screencast/") || e.startsWith("resources/"))).toBe(true);
      const page = readFileSync(join(dir, "runs", runId, "report", "trials", `${trial.seq}.html`), "utf8");
      expect(page).toContain(`href="../files/${trial.seq}/trace.zip"`);
      expect(zipEntries(join(dir, "runs", runId, "report", "files", String(trial.seq), "trace.zip"))).toContain(
        "trace.trace",
      );
    }
  });

  it("retain-on-failure (from the config file's defaults) keeps only the failed trial's trace", async () => {
    const config = join(dir, "umpire.config.yaml");
    writeFileSync(config, "defaults:\n  trace: retain-on-failure\n");
    const run = await umpire(["run", TASK, ...MODELS, "--config", config, ...common()]);
    const trials = trialsOf(JSON.parse(run.out).runId);
    const failed = trials.find((t) => t.verdict === "failed")!;
    const passed = trials.find((t) => t.verdict === "passed")!;
    expect(zipEntries(join(failed.path, "trace.zip"))).toContain("trace.trace");
    expect(existsSync(join(passed.path, "trace.zip"))).toBe(false);
  });

  it("a command agent's trial is traced too: umpire's context, driven by the agent over CDP", async () => {
    const config = join(ROOT, "examples", "external-agents", "umpire.config.yaml");
    const run = await umpire([
      "run",
      TASK,
      "--config",
      config,
      "--agent",
      "python-agent",
      "--no-sandbox",
      "--trace",
      "on",
      ...common(),
    ]);
    expect(run.err).not.toMatch(/internal error/);
    const [trial] = trialsOf(JSON.parse(run.out).runId);
    expect(trial!.mode).toBe("external");
    const file = join(trial!.path, "trace.zip");
    expect(zipEntries(file)).toEqual(expect.arrayContaining(["trace.trace", "trace.network"]));
    // The agent's own navigation (search, then the match page) is in the trace's network log.
    expect(zipText(file, "trace.network")).toContain("/search?q=BB-042");
  });

  it("off (the default): no trial keeps a trace, and the report offers no link", async () => {
    const run = await umpire(["run", TASK, ...MODELS, "--report", ...common()]);
    const runId = JSON.parse(run.out).runId as string;
    const trials = trialsOf(runId);
    expect(trials).toHaveLength(2);
    for (const trial of trials) {
      expect(existsSync(join(trial.path, "events.jsonl"))).toBe(true);
      expect(existsSync(join(trial.path, "trace.zip"))).toBe(false);
      expect(readFileSync(join(dir, "runs", runId, "report", "trials", `${trial.seq}.html`), "utf8")).not.toContain(
        "trace.zip",
      );
    }
  });
});
