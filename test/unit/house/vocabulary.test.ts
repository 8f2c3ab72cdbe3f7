/**
 * One word, one home: the shared words of src/vocabulary.ts are declared there and nowhere else
 * under src/, and the two shapes that once shared a name keep names of their own. A second
 * declaration (even an identical copy) drifts; importing the word is the only way to use it.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ACTION_STATUSES, knownUsage, newRunId, trialId } from "../../../src/vocabulary.js";

const root = resolve(__dirname, "../../..");
const src = join(root, "src");

/** Names that must have exactly one declaration under src/ (and where it is). */
const HOMES: Record<string, string> = {
  Verdict: "src/vocabulary.ts",
  Confidence: "src/vocabulary.ts",
  ActionStatus: "src/vocabulary.ts",
  ACTION_STATUSES: "src/vocabulary.ts",
  TurnOutcome: "src/vocabulary.ts",
  TURN_OUTCOMES: "src/vocabulary.ts",
  OutputMode: "src/vocabulary.ts",
  OUTPUT_MODES: "src/vocabulary.ts",
  TrialMode: "src/vocabulary.ts",
  TRIAL_MODES: "src/vocabulary.ts",
  StopReason: "src/vocabulary.ts",
  STOP_REASONS: "src/vocabulary.ts",
  Usage: "src/vocabulary.ts",
  ReportedUsage: "src/vocabulary.ts",
  UNKNOWN_USAGE: "src/vocabulary.ts",
  knownUsage: "src/vocabulary.ts",
  newRunId: "src/vocabulary.ts",
  trialId: "src/vocabulary.ts",
  // One concurrency policy, decided once per run (issue 40), not re-derived from a count and a ceiling.
  ConcurrencyPolicy: "src/vocabulary.ts",
  concurrencyCeiling: "src/vocabulary.ts",
  // Shapes that used to share a name: the runner's plan and the store's row; the loop's turn and the store's row.
  PlannedTrial: "src/runner/schedule/trial-plan.ts",
  TrialInput: "src/store/records.ts",
  PlayedTurn: "src/runner/trial/loop.ts",
  TurnRecord: "src/store/records.ts",
  // One price list, one cost function (the agent's model catalog holds no prices).
  ModelPrice: "src/pricing.ts",
  PriceBook: "src/pricing.ts",
  DEFAULT_PRICES: "src/pricing.ts",
  costOfUsage: "src/pricing.ts",
};

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return path.endsWith(".ts") ? [path] : [];
  });
}

/** Every top-level-ish declaration of `name`: type, interface, const/let/function/class, enum. */
function declarationsOf(name: string, files: { path: string; text: string }[]): string[] {
  const decl = new RegExp(`\\b(?:type|interface|const|let|var|function|class|enum)\\s+${name}\\b(?!\\s*[,}])`);
  return files.filter((f) => decl.test(f.text)).map((f) => relative(root, f.path).split("\\").join("/"));
}

describe("shared vocabulary", () => {
  const files = tsFiles(src).map((path) => ({ path, text: readFileSync(path, "utf8") }));

  it.each(Object.entries(HOMES))("%s is declared once, in %s", (name, home) => {
    expect(declarationsOf(name, files)).toEqual([home]);
  });

  it("the scan would see a second declaration", () => {
    const extra = { path: join(src, "elsewhere.ts"), text: 'export type Verdict = "passed" | "failed";' };
    expect(declarationsOf("Verdict", [...files, extra]).sort()).toEqual(["src/elsewhere.ts", "src/vocabulary.ts"]);
  });

  it("the action statuses and turn outcomes are not spelled out again as a list or a union", () => {
    // A union or list of these words written elsewhere is a second home that drifts (the loop's
    // turn type and an external agent's status check once were).
    const spelled = /"success"\s*[,|]\s*"rejected"|"actions"\s*[,|]\s*"invalid"/;
    const offenders = files
      .filter((f) => !f.path.endsWith("vocabulary.ts") && spelled.test(f.text))
      .map((f) => relative(root, f.path));
    expect(offenders).toEqual([]);
  });

  it("the store's CHECK on an action's status allows exactly ACTION_STATUSES", () => {
    // The migration's SQL is frozen history; a new status needs a migration, and this says so.
    const migrations = readFileSync(join(src, "store/migrations.ts"), "utf8");
    const actionsTable = /CREATE TABLE actions \([^;]*?/.source;
    const check = new RegExp(`${actionsTable}status\\s+TEXT NOT NULL CHECK \\(status IN \\(([^)]*)\\)\\)`).exec(
      migrations,
    );
    expect(check?.[1]?.split(",").map((word) => word.trim().replace(/'/g, ""))).toEqual([...ACTION_STATUSES]);
  });

  it("knownUsage: unknown stays unknown, missing parts count 0", () => {
    expect(knownUsage({ inputTokens: null, outputTokens: null, reasoningTokens: 5, cachedTokens: null })).toBeNull();
    expect(knownUsage(null)).toBeNull();
    expect(knownUsage({ inputTokens: 100, outputTokens: 7, reasoningTokens: null, cachedTokens: null })).toEqual({
      inputTokens: 100,
      outputTokens: 7,
      reasoningTokens: 0,
      cachedTokens: 0,
    });
  });

  it("ids: run ids sort by time, trial ids by position", () => {
    expect(newRunId(new Date("2025-06-12T14:30:05.123Z"))).toMatch(/^20250612-143005-[0-9a-f]{4}$/);
    expect(trialId("20250612-143005-7f3a", 7)).toBe("20250612-143005-7f3a-0007");
  });
});
