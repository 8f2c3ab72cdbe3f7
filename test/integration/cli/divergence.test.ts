/**
 * Where a flipped task diverged, on two real runs of the fixture suite: the baseline plays the
 * gold trajectory, the candidate the reference model's `wrong-record` profile, which follows gold
 * for two turns (click the search box, type BB-042) and at turn 3 opens the look-alike BB-024
 * instead of BB-042. `compare` names turn 3 and both actions (text and JSON, both directions);
 * `report --baseline` shows turns 3 and 4 of both runs side by side.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runInProcess } from "../../support/cli-in-process.js";

const _ROOT = join(__dirname, "../../..");
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "umpire-divergence-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function umpire(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const { code, stdout, stderr } = await runInProcess(args, { env: {}, bareEnv: true });
  return { code, out: stdout, err: stderr };
}

const db = () => ["--db", join(dir, "umpire.db")];
/** answer-only-bb042 declares no wrong-record negative: the profile plays gold there, so it does not flip. */
const TASKS = ["scorecard-note-bb042", "answer-only-bb042", "--mode", "structured"];
const BASE_ACTION = /baseline click 'BB-042 link in the search results' at \((\d+), (\d+)\)/;
const CANDIDATE_ACTION = /candidate click '[^']*\[result-BB-024\][^']*' at \((\d+), (\d+)\)/;

describe("where flipped tasks diverged, between two real runs", () => {
  let baseline: string;
  let candidate: string;

  beforeAll(async () => {
    const base = await umpire(["run", ...TASKS, ...db(), "--out", join(dir, "runs"), "--json"]);
    baseline = JSON.parse(base.out).runId;
    const cand = await umpire([
      "run",
      ...TASKS,
      "--model",
      "reference:wrong-record",
      ...db(),
      "--out",
      join(dir, "runs"),
      "--json",
    ]);
    candidate = JSON.parse(cand.out).runId;
    // Two whole runs: the guard is for a hang (this set-up failed at load 22 under a 120 s limit).
  }, 900_000);

  it("compare prints the divergence turn, both actions and how alike the screens were", async () => {
    const c = await umpire(["compare", baseline, candidate, ...db()]);
    expect(c.code).toBe(0);
    const line = c.out.split("\n").find((l) => l.includes("task scorecard-note-bb042 flipped pass->fail"));
    expect(line, c.out).toBeDefined();
    expect(line).toMatch(/diverged at turn 3: /);
    expect(line).toMatch(BASE_ACTION);
    expect(line).toMatch(CANDIDATE_ACTION);
    // The two search-result pages differ only in the clock: well above the 90% line.
    const alike = Number(/screens (\d+)% alike before/.exec(line!)![1]);
    expect(alike).toBeGreaterThanOrEqual(90);
    // Different points: the signatures differ because the targets do, not the wording.
    expect(BASE_ACTION.exec(line!)!.slice(1)).not.toEqual(CANDIDATE_ACTION.exec(line!)!.slice(1));
    expect(c.out).not.toMatch(/task answer-only-bb042 flipped/);
    expect(c.out).toContain(`umpire report ${candidate} --baseline ${baseline}`);
  });

  it("JSON names the pair, the turn and the cause; the other way round it is a fail->pass flip at the same turn", async () => {
    const forward = JSON.parse((await umpire(["compare", baseline, candidate, ...db(), "--json"])).out);
    expect(forward.divergences).toHaveLength(1);
    const d = forward.divergences[0];
    expect(d).toMatchObject({ key: "scorecard-note-bb042", direction: "pass->fail", turn: 3, cause: "actions" });
    expect(d.base).toMatchObject({ runId: baseline, verdict: "passed", repeat: 0 });
    expect(d.candidate).toMatchObject({ runId: candidate, verdict: "failed", repeat: 0 });
    expect(d.baseTurns[0].actions[0]).toMatchObject({ tool: "click" });
    const back = JSON.parse((await umpire(["compare", candidate, baseline, ...db(), "--json"])).out);
    expect(back.divergences[0]).toMatchObject({ direction: "fail->pass", turn: 3, cause: "actions" });
  });

  it("report --baseline shows turns 3 and 4 of both runs side by side, with their screenshots, linked from the overview", async () => {
    const out = join(dir, "report");
    const r = await umpire(["report", candidate, "--baseline", baseline, "--out", out, ...db()]);
    expect(r.code, r.err).toBe(0);
    const page = readFileSync(join(out, "divergence.html"), "utf8");
    expect(page).toContain("turn 3 (diverged)");
    expect(page).toMatch(/data-turn="4"/);
    expect(page).toMatch(
      /<strong>baseline<\/strong>: click &#39;BB-042 link in the search results&#39; at \(\d+, \d+\)/,
    );
    expect(page).toMatch(/<strong>candidate<\/strong>: click &#39;[^&]*\[result-BB-024\][^&]*&#39; at/);
    // Turn 4: the baseline on the BB-042 scorecard, the candidate on BB-024's, both adding a note.
    expect(page).toMatch(/<strong>baseline<\/strong>: click &#39;Add note link on the scorecard&#39;/);
    expect(page).toMatch(/<strong>candidate<\/strong>: click &#39;[^&]*\[add-note\][^&]* on \/match\/BB-024&#39;/);
    const images = [...page.matchAll(/<img class="shot-img" src="([^"]+)"/g)].map((m) => m[1]!);
    expect(images).toHaveLength(4);
    for (const src of images) expect(existsSync(join(out, src))).toBe(true);
    expect(new Set(images).size).toBe(4);
    expect(readFileSync(join(out, "index.html"), "utf8")).toContain(
      `href="divergence.html">where flipped tasks diverged from ${baseline}`,
    );
  });
});
