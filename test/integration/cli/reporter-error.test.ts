/**
 * Issue 12 §5: a reporter that throws is isolated from the run but not swallowed. Here the real
 * progress reporter of `umpire run` throws because its output stream fails on a progress line;
 * the run completes and stores its trial, the failure is printed, and the exit code is 4.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../../src/cli/main.js";
import { openStore } from "../../../src/store/open.js";
import { ROOT } from "../../support/cli-child.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "umpire-reporter-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a broken reporter", () => {
  it("is reported, does not stop the run, and makes the exit code 4", { timeout: 300_000 }, async () => {
    let out = "";
    let err = "";
    const stdout = new Writable({ write: (c, _e, done) => ((out += String(c)), done()) });
    // Throws synchronously on a progress line, as a stream in a bad state does.
    const stderr = new Writable({ write: (c, _e, done) => ((err += String(c)), done()) });
    const write = stderr.write.bind(stderr) as (chunk: unknown) => boolean;
    (stderr as { write: (chunk: unknown) => boolean }).write = (chunk: unknown) => {
      if (/^\[\d+\/\d+\]/.test(String(chunk))) throw new Error("progress stream is broken");
      return write(chunk);
    };
    const db = join(dir, "umpire.db");
    const code = await main(
      ["run", "answer-only-bb042", "--mode", "structured", "--db", db, "--out", join(dir, "runs")],
      {
        stdout,
        stderr,
        env: {},
        cwd: ROOT,
        signal: new AbortController().signal,
      },
    );
    expect(err).toMatch(
      /umpire: a reporter failed in onTrialEnd \(the run goes on; exit code 4\): progress stream is broken/,
    );
    expect(code).toBe(4);
    const store = openStore(db, { readonly: true });
    const [run] = store.listRuns();
    expect(run.status).toBe("finished");
    expect(store.trials(run.id).map((t) => t.verdict)).toEqual(["passed"]);
    store.close();
    expect(out).toMatch(/1\/1 passed/);
  });
});
