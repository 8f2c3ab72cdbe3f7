/**
 * Money limits through the real CLI on the reference model, priced by --price-in/--price-out so that
 * its (reported) tokens cost something: a task's limits.usd stops its trial before the next request
 * (stop reason cost_limit, judged by its checks: the agent's doing, like token_budget), and the run's
 * --max-cost stops every trial once the run has spent it (cancelled: not the agent's doing).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../../src/cli/main.js";
import { capture as captureIO } from "../../support/cli-in-process.js";
import { openStore } from "../../../src/store/open.js";

const ROOT = join(__dirname, "../../..");
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "umpire-cost-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function capture() {
  const { io, text } = captureIO({}, ROOT);
  return { io, out: () => text.out, err: () => text.err };
}

const db = () => join(dir, "umpire.db");
const common = () => [
  "--db",
  db(),
  "--out",
  join(dir, "runs"),
  "--mode",
  "structured",
  "--reporter",
  "dot",
  "--price-in",
  "1000",
  "--price-out",
  "1000",
];

function latestTrials() {
  const store = openStore(db(), { readonly: true });
  try {
    return store.trials(store.listRuns()[0]!.id);
  } finally {
    store.close();
  }
}

describe("money limits", () => {
  it("limits.usd stops a trial before its next request; the checks judge it (failed)", async () => {
    // The fixture's core task with a limit a single priced request already spends.
    const text = readFileSync(join(ROOT, "tasks/scorecard-note-bb042.yaml"), "utf8")
      .replace(/^\$schema:.*\n/m, "")
      .replace("id: scorecard-note-bb042", "id: costly-scorecard")
      .replaceAll("./checks/cricket.ts", join(ROOT, "tasks/checks/cricket.ts"))
      .replace(
        "limits: { turns: 30, actions: 60, tokens: 400000, seconds: 180 }",
        "limits: { turns: 30, actions: 60, tokens: 400000, seconds: 180, usd: 0.000001 }",
      );
    const file = join(dir, "costly.yaml");
    writeFileSync(file, text);
    const c = capture();
    expect(await main(["run", file, ...common()], c.io)).toBe(1);
    const [trial] = latestTrials();
    expect(trial).toMatchObject({ stopReason: "cost_limit", verdict: "failed", turns: 1 });
    expect(trial!.stopDetail).toMatch(
      /^money limit reached \(\$[\d.]+ of limits\.usd \$0\.000001 spent; the next request/,
    );
    expect(trial!.costUsd).toBeGreaterThan(0);
  }, 600_000);

  it("--max-cost stops the run's requests once spent; the stopped trials are cancelled, not failed", async () => {
    const c = capture();
    const code = await main(
      ["run", "scorecard-note-bb042", "answer-only-bb042", "--concurrency", "1", "--max-cost", "0.000001", ...common()],
      c.io,
    );
    expect(code).toBe(130); // like an interrupted run: --resume runs the stopped trials
    expect(c.err()).toMatch(
      /the run reached --max-cost \$0\.000001 \(\$[\d.]+ spent\); 2 trials were stopped unjudged: umpire run --resume \S+ runs them/,
    );
    const trials = latestTrials();
    expect(trials.map((t) => [t.stopReason, t.verdict])).toEqual([
      ["cost_limit", "cancelled"],
      ["cost_limit", "cancelled"],
    ]);
    // One request went out in all (the first trial's first); the second trial sent none.
    expect(trials.map((t) => t.turns).sort()).toEqual([0, 1]);
  }, 600_000);

  it("without a limit the same priced run is not stopped by money", async () => {
    const c = capture();
    expect(await main(["run", "answer-only-bb042", ...common()], c.io)).toBe(0);
    expect(latestTrials()[0]).toMatchObject({ stopReason: "answered", verdict: "passed" });
  }, 600_000);
});
