/**
 * Benchmark (not a test): the time to write the HTML report of a synthetic 1,000-trial run.
 * The run is realistic in shape: 8 turns per trial, each with its own screenshot file, a click
 * or a write per turn, five checks, a note and an events.jsonl per trial, all in a real SQLite
 * file in a temp folder. Only `writeRunReport` is timed; building the run is not.
 *
 *   npx tsx -e 'import("./scripts/bench/report.ts").then(async (b) => console.log(await b.runReportBench(1000)))'
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PNG } from "pngjs";
import { writeRunReport } from "../../src/report/html/writer.js";
import { openStore } from "../../src/store/open.js";

const TURNS = 8;
const WIDTH = 1280;
const HEIGHT = 800;

export interface ReportBenchResult {
  trials: number;
  turns: number;
  /** Wall time of writeRunReport alone. */
  ms: number;
  /** CPU time (user + system) of the process during writeRunReport: steadier than wall time on a busy machine. */
  cpuMs: number;
  screenshots: number;
  indexBytes: number;
  reportFiles: number;
}

/** A few distinct PNGs of screenshot size to copy under every trial's screens/ folder. */
function samplePngs(count: number): Buffer[] {
  return Array.from({ length: count }, (_, k) => {
    const png = new PNG({ width: WIDTH, height: HEIGHT });
    for (let y = 0; y < HEIGHT; y++) {
      for (let x = 0; x < WIDTH; x++) {
        const i = (y * WIDTH + x) * 4;
        const header = y < 60;
        png.data[i] = header ? 30 : 240 - ((x >> 6) % 4) * 10 - k * 5;
        png.data[i + 1] = header ? 50 : 240 - ((y >> 5) % 3) * 12;
        png.data[i + 2] = header ? 40 : 235;
        png.data[i + 3] = 255;
      }
    }
    return PNG.sync.write(png);
  });
}

function countFiles(dir: string): number {
  let n = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true }))
    n += entry.isDirectory() ? countFiles(join(dir, entry.name)) : 1;
  return n;
}

/** Writes a synthetic run of `trialCount` trials into `dir` (umpire.db and run/); returns its id. */
export function buildSyntheticRun(dir: string, trialCount: number): string {
  const runFolder = join(dir, "run");
  const store = openStore(join(dir, "umpire.db"));
  const run = store.createRun({ umpireVersion: "bench", folder: runFolder, tags: ["bench"] });
  const tasks = [
    "scorecard-note-bb042",
    "cookie-reject-note-bb042",
    "lazy-note-bb042",
    "compare-bb007-bb031",
    "long-scroll-bb017",
  ];
  const planned = Array.from({ length: trialCount }, (_, seq) => {
    const mode = seq % 2 === 0 ? ("structured" as const) : ("tools" as const);
    const taskId = tasks[Math.floor(seq / 2) % tasks.length]!;
    return {
      seq,
      taskId,
      taskFile: `tasks/${taskId}.yaml`,
      agentLabel: `holo3-1-35b-a3b/${mode}`,
      model: "holo3-1-35b-a3b",
      mode,
      repeat: Math.floor(seq / (2 * tasks.length)),
    };
  });
  const samples = samplePngs(4).map((png, k) => {
    const path = join(dir, `sample-${k}.png`);
    writeFileSync(path, png);
    return path;
  });
  const reasoning = "The search box is centred near the top of the page; its centre maps to (500, 406). ".repeat(6);
  for (const trial of store.addTrials(run.id, planned)) {
    const folderName = `${String(trial.seq).padStart(4, "0")}-${trial.taskId}`;
    const folder = join(runFolder, folderName);
    mkdirSync(join(folder, "screens"), { recursive: true });
    mkdirSync(join(folder, "workspace", "notes"), { recursive: true });
    store.startTrial(trial.id, { folder: folderName });
    const events: string[] = [];
    for (let idx = 1; idx <= TURNS; idx++) {
      const name = `${(trial.seq * 100 + idx).toString(16).padStart(20, "0")}.png`;
      copyFileSync(samples[(trial.seq + idx) % samples.length]!, join(folder, "screens", name));
      const paused = idx === 6 && trial.seq % 7 === 0;
      store.recordTurn({
        trialId: trial.id,
        idx,
        outcome: "actions",
        modelMs: 900 + idx,
        ttftMs: 300,
        usage: { inputTokens: 2500 * idx, outputTokens: 150, reasoningTokens: 60, cachedTokens: 0 },
        costUsd: 0.0009 * idx,
        note: `Turn ${idx}: the notes page is open; Save is at the bottom left.`,
        thought: `Click the target of step ${idx}.`,
        reasoning,
        content: JSON.stringify({ note: "…", thought: "…", tool_call: { tool_name: "click", x: 500, y: 406 } }),
        screenshot: { path: `${folderName}/screens/${name}`, width: WIDTH, height: HEIGHT },
        flags: paused ? { repetition: "pause", condition: "the screen stayed the same", reflection: true } : {},
      });
      const click = idx % 3 !== 0;
      store.recordActions([
        {
          trialId: trial.id,
          turnIdx: idx,
          idx: 0,
          callId: `${trial.id}-t${idx}-a1`,
          tool: click ? "click" : "write",
          args: click
            ? { element: "the Save button", x: (idx * 97) % 1000, y: (idx * 131) % 1000 }
            : { content: "match: BB-042\nresult: Jaipur Kites won by 6 wickets\n", press_enter: false },
          status: "success",
          message: "click sent at (640, 325) CSS px; input sent",
          executorMs: 80,
        },
      ]);
      events.push(
        JSON.stringify({
          type: "AgentEvent",
          data: { kind: "policy_event", turn: idx, reasoning_content: reasoning },
          timestamp: new Date().toISOString(),
        }),
      );
    }
    events.push(
      JSON.stringify({
        type: "AgentEvent",
        data: { kind: "answer_event", answer: "Saved notes/BB-042.md." },
        timestamp: new Date().toISOString(),
      }),
    );
    writeFileSync(join(folder, "events.jsonl"), `${events.join("\n")}\n`);
    writeFileSync(
      join(folder, "workspace", "notes", "BB-042.md"),
      "match: BB-042\nteams: Pune Pioneers vs Jaipur Kites\n",
    );
    const passed = trial.seq % 5 !== 0;
    store.finishTrial(
      trial.id,
      {
        stopReason: passed ? "answered" : "turn_limit",
        stopDetail: passed ? "model finished, note verified" : "8 turns used",
        verdict: passed ? "passed" : "failed",
        claimed: passed,
        verified: passed,
        turns: TURNS,
        actions: TURNS,
        usage: { inputTokens: 90_000, outputTokens: 1200, reasoningTokens: 480, cachedTokens: 0 },
        costUsd: 0.0246,
        timing: { wallMs: 12_000 + trial.seq, modelMs: 7300, executorMs: 640, captureMs: 800, checkMs: 40 },
        metrics: { repetition: { stuckSteps: 0, reflections: 0, recoveries: 0 }, evidence: [] },
      },
      Array.from({ length: 5 }, (_, k) => ({
        kind: "file",
        name: `check ${k}`,
        required: k < 3,
        pass: passed || k > 0,
        confidence: "verified" as const,
        reason: `notes/BB-042.md has field ${k}`,
        evidence: { path: "notes/BB-042.md", k },
        ms: 2,
      })),
    );
  }
  store.finishRun(run.id);
  store.close();
  return run.id;
}

/** Builds the synthetic run, writes its report, and measures. Removes everything afterwards. */
export async function runReportBench(trialCount = 1000): Promise<ReportBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), "umpire-report-bench-"));
  try {
    const runId = buildSyntheticRun(dir, trialCount);
    const store = openStore(join(dir, "umpire.db"), { readonly: true });
    const started = performance.now();
    const cpu = process.cpuUsage();
    const result = writeRunReport(store, runId, { out: join(dir, "report"), tasks: new Map() });
    const ms = performance.now() - started;
    const used = process.cpuUsage(cpu);
    store.close();
    return {
      trials: trialCount,
      turns: trialCount * TURNS,
      ms: Math.round(ms),
      cpuMs: Math.round((used.user + used.system) / 1000),
      screenshots: result.files.screenshots,
      indexBytes: statSync(result.indexPath).size,
      reportFiles: countFiles(result.dir),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Milliseconds to generate the report of a synthetic run of `n` trials (default 1,000). */
export async function generateReportBench(n = 1000): Promise<number> {
  return (await runReportBench(n)).ms;
}
