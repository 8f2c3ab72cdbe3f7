/**
 * The watchdog ends a trial stuck where no call deadline reaches (issue 37 §4). Every browser call of
 * the loop runs under the trial's deadline, so no page could be found that hangs a trial outside
 * one (hanging-pages.test.ts plays those: each is ended by the call's own deadline). The backstop is
 * for the call someone forgets to wrap; the test-only fault `UMPIRE_TEST_FAULT=unwrapped-hang:click`
 * (src/runner/trial/test-fault.ts) makes the executor wait forever in an await nothing tracks, before the
 * gold's first click, on the real settling example app, through the real CLI, Chromium and the
 * embedded reference model. The trial must end `error` (umpire was stuck, not the agent), naming the
 * action it was stuck in, after its time limit plus grace and not long after.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TRIAL_GRACE_MS } from "../../../src/runner/trial/deadline.js";
import { openStore } from "../../../src/store/open.js";
import { ROOT, startCli, type CliResult } from "../../support/cli-child.js";

const LIMIT_S = 8;
/** The watchdog fires 2 s after the calls' own deadline (deadline.ts WATCHDOG_LAG_MS). */
const WATCHDOG_MS = LIMIT_S * 1000 + TRIAL_GRACE_MS + 2_000;

let dir: string;
let result: CliResult;
let trial: { verdict: string; stopReason: string; stopDetail: string; wallMs: number } | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "umpire-watchdog-"));
  mkdirSync(join(dir, "tasks"));
  writeFileSync(
    join(dir, "umpire.config.yaml"),
    `targets:
  settling:
    baseUrl: http://127.0.0.1:\${PORT}
    start: { command: node ${JSON.stringify(join(ROOT, "examples/settling/serve.mjs"))}, readyUrl: / }
    context: { headers: { x-umpire-trial: "\${TRIAL_ID}" } }
    isolated: true
`,
  );
  writeFileSync(
    join(dir, "tasks", "clear.yaml"),
    `id: clear
title: Clear the inbox
target: settling
instruction: In the inbox, press Clear all, then answer "Done".
start: { path: /inbox }
tools: [click, wait, answer]
limits: { seconds: ${LIMIT_S} }
checks:
  - { kind: http, name: the inbox is empty, url: "/api/state?trial=\${TRIAL_ID}", json: [{ path: /messages, length: 0 }] }
reference:
  - { tool: click, target: clear-all }
  - { tool: answer, args: { content: Done } }
`,
  );
  const db = join(dir, "umpire.db");
  result = await startCli(
    ["run", dir, "--mode", "structured", "--concurrency", "1", "--retries", "0", "--db", db, "--out", join(dir, "out")],
    { env: { UMPIRE_TEST_FAULT: "unwrapped-hang:click" }, killAfterMs: 240_000 },
  ).done;
  const store = openStore(db);
  const run = store.listRuns()[0];
  trial = run ? (store.trials(run.id)[0] as unknown as typeof trial) : undefined;
  store.close();
}, 300_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("a trial stuck in a call no deadline covers", () => {
  it("is ended by the watchdog as error, naming the action it was stuck in", () => {
    expect(trial, `no trial stored (exit ${result.code}):\n${result.stderr.slice(-3000)}`).toBeDefined();
    expect(result.signal, result.stderr.slice(-3000)).toBeNull();
    expect(trial!.verdict, trial!.stopDetail).toBe("error");
    expect(trial!.stopReason).toBe("environment_error");
    expect(trial!.stopDetail).toMatch(
      /umpire was stuck: executing click \(action 1 of the trial\) did not answer in [\d.]+ s \(in no call a deadline covers; the trial's watchdog ended it\)/,
    );
  });

  it("ends after its time limit plus grace, and not long after (opening, checks and teardown included)", () => {
    console.log(`trial wall ${trial?.wallMs} ms; the watchdog fires ${WATCHDOG_MS} ms after the limit starts`);
    expect(trial!.wallMs).toBeGreaterThanOrEqual(WATCHDOG_MS);
    expect(trial!.wallMs).toBeLessThan(WATCHDOG_MS + 25_000);
  });
});
