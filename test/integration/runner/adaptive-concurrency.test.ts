/**
 * Adaptive concurrency through the real CLI (`node bin/umpire.js run` as a child process, real
 * Chromium, real HTTP): the embedded reference model plays the latency profile behind a tight
 * rate limit, so the endpoint answers 429 with retry-after while trials run. Asserts decisions
 * (what the controller did and why), never times.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHILD_KILL_AFTER_MS } from "../../support/cli-child.js";

const ROOT = join(__dirname, "../../..");
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "umpire-adaptive-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

function umpire(args: string[], env: Record<string, string>): Promise<Result> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, "bin/umpire.js"), ...args],
      {
        cwd: ROOT,
        env: { ...process.env, ...env },
        maxBuffer: 64 << 20,
        timeout: CHILD_KILL_AFTER_MS,
        killSignal: "SIGKILL",
      },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr });
      },
    );
  });
}

interface ConcurrencyJson {
  endpoint: string;
  mode: string;
  start: number;
  peak: number;
  final: number;
  cuts: number;
  throttled: number;
  stoppedRising: string;
  decisions: { action: string; pressure: string | null; from: number; to: number }[];
}

// The latency profile, short (the decisions are the same at 2 s), behind one request per 3 s with
// no burst: two trials that start together meet the limit on their first turns, however fast or
// slow the machine is.
const LIMITED = {
  UMPIRE_REFERENCE_LATENCY_MS: "200",
  UMPIRE_REFERENCE_JITTER_MS: "50",
  UMPIRE_REFERENCE_RPM: "1",
  UMPIRE_REFERENCE_RATE_WINDOW_MS: "3000",
};

describe("adaptive concurrency through umpire run", () => {
  it("not pinned: starts adaptive, halves on the endpoint's 429s, and says so; every trial still passes", async () => {
    const db = join(dir, "adaptive.db");
    const r = await umpire(
      [
        "run",
        "answer-only-bb042",
        "--model",
        "reference:latency",
        "--mode",
        "structured",
        "--repeat",
        "3",
        "--max-concurrency",
        "3",
        "--json",
        "--db",
        db,
        "--out",
        join(dir, "runs"),
      ],
      LIMITED,
    );
    expect(r.code, r.stderr).toBe(0);
    const body = JSON.parse(r.stdout) as { trials: { verdict: string }[]; concurrency: ConcurrencyJson[] };
    expect(body.trials.map((t) => t.verdict)).toEqual(["passed", "passed", "passed"]);
    expect(body.concurrency).toHaveLength(1);
    const c = body.concurrency[0];
    expect(c).toMatchObject({ endpoint: "the embedded reference model", mode: "adaptive" });
    expect(c.throttled).toBeGreaterThan(0);
    const cut = c.decisions.find((d) => d.action === "cut" && d.pressure === "rate_limited");
    expect(cut, JSON.stringify(c.decisions)).toBeDefined();
    expect(cut!.to).toBe(Math.max(1, Math.floor(cut!.from / 2)));
    expect(c.stoppedRising).toMatch(/answered 429 \(rate limited, retry-after/);
  });

  it("--concurrency pins it: no decision is taken, the 429s are still counted, the summary says pinned", async () => {
    const db = join(dir, "pinned.db");
    const r = await umpire(
      [
        "run",
        "answer-only-bb042",
        "--model",
        "reference:latency",
        "--mode",
        "structured",
        "--repeat",
        "2",
        "--concurrency",
        "2",
        "--db",
        db,
        "--out",
        join(dir, "runs"),
      ],
      LIMITED,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /concurrency 2 on the embedded reference model \(pinned by --concurrency\); [1-9]\d* request\(s\) throttled \(429\/503\)/,
    );
  });

  it("--concurrency and --max-concurrency together is a usage error that says which to drop", async () => {
    const r = await umpire(
      ["run", "answer-only-bb042", "--concurrency", "2", "--max-concurrency", "8", "--db", join(dir, "x.db")],
      {},
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--max-concurrency bounds the adaptive mode, and --concurrency pins it/);
  });
});
