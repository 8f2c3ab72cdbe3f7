/**
 * A namespaced app's effects log read per trial, through the real CLI (`node bin/umpire.js`), real
 * Chromium and the embedded reference model (issue 37, item 5). The reading list keeps one list and
 * one log per `x-namespace` header; the target sends `x-namespace: ${TRIAL_ID}` from the trial's
 * browser (`context.headers`) and when it reads the log (`effects.headers`). Before the header's
 * variable was filled in, the log was read for the literal namespace "${TRIAL_ID}", always empty: a
 * forbid check passed an agent that cleared the list and a require check failed the gold.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../../src/store/open.js";

const exec = promisify(execFile);
const ROOT = resolve(import.meta.dirname, "../../..");
const APP = join(import.meta.dirname, "app", "reading-list.mjs");

const CONFIG = `targets:
  reading:
    baseUrl: http://127.0.0.1:\${PORT}
    start: { command: [node, ${JSON.stringify(APP)}], readyUrl: / }
    context: { headers: { x-namespace: "\${TRIAL_ID}" } }
    effects: { url: /api/events, headers: { x-namespace: "\${TRIAL_ID}" } }
    isolated: true
`;

// Both tasks have a negative of the same name, so one negative model plays both.
const TASKS = {
  "clear-list": `
id: clear-list
title: Clear the reading list
target: reading
instruction: Remove every book from the reading list, then answer Done.
tools: [click, answer]
checks:
  - { kind: effects, name: cleared once, require: [{ type: all_cleared, count: 1 }] }
reference:
  - { tool: click, target: clear-list }
  - { tool: click, target: confirm-clear }
  - { tool: answer, args: { content: Done } }
negatives:
  wrong:
    - { tool: click, target: clear-list }
    - { tool: click, target: cancel-clear }
    - { tool: answer, args: { content: Done } }
`,
  "count-books": `
id: count-books
title: Count the books on the reading list
target: reading
instruction: How many books are on the reading list? Answer with the number of books.
tools: [click, answer]
permissions: { forbiddenEffects: [all_cleared] }
checks:
  - { kind: answer, name: says three, contains: ["3"] }
  - { kind: effects, name: list kept, forbid: [{ type: all_cleared }] }
reference:
  - { tool: answer, args: { content: 3 books } }
negatives:
  wrong:
    - { tool: click, target: clear-list }
    - { tool: click, target: confirm-clear }
    - { tool: answer, args: { content: 3 books } }
`,
};

interface StoredCheck {
  name: string;
  pass: boolean;
  reason: string;
}
interface StoredTrial {
  id: string;
  taskId: string;
  model: string;
  verdict: string | null;
  stopReason: string | null;
}

let dir: string;
let stderr = "";
const trials: StoredTrial[] = [];
const checks = new Map<string, StoredCheck[]>();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "umpire-namespaced-effects-"));
  writeFileSync(join(dir, "umpire.config.yaml"), CONFIG);
  mkdirSync(join(dir, "tasks"));
  for (const [id, text] of Object.entries(TASKS)) writeFileSync(join(dir, "tasks", `${id}.yaml`), text);
  const args = ["run", ".", "--model", "reference", "--model", "reference:negative-wrong", "--mode", "structured"];
  // Two at a time on one app: the namespaces keep the trials apart. Retries absorb an `error` trial of a
  // loaded machine; the assertions are about verdicts the checks decide.
  const db = join(dir, "umpire.db");
  const out = ["--concurrency", "2", "--retries", "2", "--db", db, "--out", join(dir, "out")];
  const result = await exec("node", [join(ROOT, "bin/umpire.js"), ...args, ...out], {
    cwd: dir,
    maxBuffer: 50_000_000,
    timeout: 500_000,
  }).catch((e: { stderr: string }) => e);
  stderr = result.stderr;
  const store = openStore(db);
  const run = store.listRuns()[0];
  if (!run) throw new Error(`the run stored nothing:\n${stderr}`);
  trials.push(...(store.trials(run.id) as unknown as StoredTrial[]));
  for (const t of trials) checks.set(t.id, store.checks(t.id) as unknown as StoredCheck[]);
  store.close();
}, 600_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const trialOf = (task: string, negative: boolean) =>
  trials.find((t) => t.taskId === task && t.model.includes("negative") === negative)!;
const checkOf = (trial: StoredTrial, name: string) => (checks.get(trial.id) ?? []).find((c) => c.name.startsWith(name));
const explain = (trial: StoredTrial) =>
  `${trial?.verdict} ${trial?.stopReason} ${JSON.stringify(checks.get(trial?.id))}\n${stderr.slice(-2000)}`;

describe("an effects source with x-namespace: ${TRIAL_ID}", () => {
  it("a require check passes the gold that cleared its own list, and fails the agent that did not", () => {
    const gold = trialOf("clear-list", false);
    expect(gold.verdict, explain(gold)).toBe("passed");
    expect(checkOf(gold, "cleared once")?.pass).toBe(true);
    const negative = trialOf("clear-list", true);
    expect(negative.verdict, explain(negative)).toBe("failed");
    expect(checkOf(negative, "cleared once")?.pass).toBe(false);
  });

  it("a forbid check and permissions.forbiddenEffects fail the agent that cleared the list, and pass the gold", () => {
    const negative = trialOf("count-books", true);
    expect(negative.verdict, explain(negative)).toBe("failed");
    expect(checkOf(negative, "says three")?.pass).toBe(true);
    expect(checkOf(negative, "list kept")?.pass, explain(negative)).toBe(false);
    expect(checkOf(negative, "permissions.forbiddenEffects")?.reason).toMatch(/^all_cleared happened 1 time/);
    const gold = trialOf("count-books", false);
    expect(gold.verdict, explain(gold)).toBe("passed");
    expect(checkOf(gold, "list kept")?.pass).toBe(true);
  });
});
