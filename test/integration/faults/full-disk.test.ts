/**
 * Item 7 of issue 13: umpire on a full filesystem, through the real CLI. `--out` fills up in the
 * middle of a run; `--db` sits on a filesystem with no space left. Wanted: exit 4 (umpire could not
 * continue, never 1), a message naming the path and the fix and no stack trace, the run marked
 * interrupted, no trial stored with a verdict it did not earn, and `--resume` finishing the run once
 * there is space again.
 *
 * A real 2 MB tmpfs is the full filesystem when this process may mount one (root in a container
 * usually may); otherwise the test falls back to a write fault injected at the file layer
 * (test/support/full-disk-preload.mjs), and says which it used.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statfsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../../src/store/open.js";
import { ROOT, runCli } from "../../support/cli-child.js";

let dir: string;
let full: string;
let mounted = false;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "umpire-full-"));
  full = join(dir, "small");
  mkdirSync(full);
  if (!process.env.UMPIRE_TEST_NO_MOUNT) {
    try {
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", full], { stdio: "ignore" });
      mounted = true;
    } catch {
      mounted = false;
    }
  }
  console.info(`full-disk tests use ${mounted ? "a real 2 MB tmpfs" : "a write fault injected at the file layer"}`);
});

afterAll(() => {
  if (mounted) execFileSync("umount", [full]);
  rmSync(dir, { recursive: true, force: true });
});

/** Leaves about `keep` bytes free under `full` (a filler file on the tmpfs; a byte budget otherwise). */
function fill(keep: number): NodeJS.ProcessEnv {
  if (!mounted)
    return {
      NODE_OPTIONS: `--import ${join(ROOT, "test/support/full-disk-preload.mjs")}`,
      UMPIRE_TEST_FULL_DIR: full,
      UMPIRE_TEST_FULL_BYTES: String(keep),
    };
  const stats = statfsSync(full);
  const free = stats.bavail * stats.bsize;
  writeFileSync(join(full, "filler"), Buffer.alloc(Math.max(0, free - keep)));
  return {};
}

function unfill(): void {
  rmSync(join(full, "filler"), { force: true });
}

const STACK = /\n\s+at [^\n]+:\d+:\d+/;

describe("a full filesystem", () => {
  it("--out fills up mid-run: exit 4, path and fix named, run interrupted, --resume finishes it", async () => {
    const db = join(dir, "out-case.db");
    const out = join(full, "runs");
    const args = [
      "answer-only-bb042",
      "api-note-bb042",
      "--mode",
      "both",
      "--concurrency",
      "2",
      "--db",
      db,
      "--out",
      out,
    ];
    const env = fill(120_000);
    const first = await runCli(["run", ...args, "--run-id", "full-out"], { env });
    unfill();

    expect(first.stderr).toContain(`cannot write ${full}`);
    expect(first.stderr).toContain("no space left on the device");
    expect(first.stderr).toContain("--out");
    // The fix names this run, and says that --out cannot move a resumed run.
    expect(first.stderr).toContain("run full-out was stopped and marked interrupted");
    expect(first.stderr).toContain(
      `umpire run --resume full-out (a resumed run writes into its own folder, ${join(out, "full-out")}, whatever --out says)`,
    );
    expect(first.stderr).not.toMatch(STACK);
    expect(first.stderr).not.toContain("internal error");
    expect(first.code).toBe(4);

    const store = openStore(db, { readonly: true });
    try {
      expect(store.getRun("full-out").status).toBe("interrupted");
      const trials = store.trials("full-out");
      expect(trials).toHaveLength(4);
      // Nothing the harness failed to record is stored as a verdict: no `error`, and the unfinished
      // trials are left for --resume.
      for (const t of trials) expect(t.verdict).not.toBe("error");
      expect(store.unfinishedTrials("full-out").length).toBeGreaterThan(0);
    } finally {
      store.close();
    }

    // --out elsewhere is not used by --resume, and it says so, naming the run's folder.
    const elsewhere = join(dir, "elsewhere");
    const resumed = await runCli(["run", "--resume", "full-out", "--db", db, "--out", elsewhere]);
    expect(resumed.stderr).toContain(
      `--out ${elsewhere} is ignored by --resume: run full-out keeps its folder, ${join(out, "full-out")}`,
    );
    expect(existsSync(elsewhere)).toBe(false);
    expect(resumed.stderr).not.toContain("internal error");
    expect(resumed.code).toBe(0);
    const after = openStore(db, { readonly: true });
    try {
      expect(after.getRun("full-out").status).toBe("finished");
      expect(after.trials("full-out").map((t) => t.verdict)).toEqual(["passed", "passed", "passed", "passed"]);
    } finally {
      after.close();
    }
  });

  it("--db on a full filesystem: exit 4, the database path and the fix named, no stack trace", async () => {
    const db = join(full, "umpire.db");
    // A database that exists (a previous run) on a filesystem that has since filled up.
    const created = openStore(db);
    created.close();
    const env = fill(0);
    const result = await runCli(
      ["run", "answer-only-bb042", "--mode", "structured", "--db", db, "--out", join(dir, "db-case-runs")],
      { env },
    );
    unfill();
    expect(result.stderr).toContain(db);
    expect(result.stderr).toContain("--db");
    // The run was never stored: nothing to resume, and it does not say there is.
    expect(result.stderr).toContain("the run did not start and nothing of it was stored");
    expect(result.stderr).toContain("then run the same command again");
    expect(result.stderr).not.toContain("marked interrupted");
    expect(result.stderr).not.toContain("--resume");
    expect(result.stderr).not.toMatch(STACK);
    expect(result.stderr).not.toContain("internal error");
    expect(result.code).toBe(4);
    const after = openStore(db, { readonly: true });
    try {
      expect(after.listRuns()).toEqual([]);
    } finally {
      after.close();
    }
  });

  it("--db in a folder that cannot be written: the run did not start, says so and the fix, never --resume", async () => {
    // A read-only filesystem when this process may mount one; else a folder without write permission (not root).
    const locked = join(dir, "locked");
    mkdirSync(locked);
    let readOnlyMount = false;
    try {
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=1m,ro", "tmpfs", locked], { stdio: "ignore" });
      readOnlyMount = true;
    } catch {
      chmodSync(locked, 0o555);
    }
    const db = join(locked, "umpire.db");
    try {
      const result = await runCli([
        "run",
        "answer-only-bb042",
        "--mode",
        "structured",
        "--db",
        db,
        "--out",
        join(dir, "locked-runs"),
      ]);
      expect(result.stderr).toContain(`cannot write ${db}`);
      expect(result.stderr).toContain("the run did not start and nothing of it was stored");
      expect(result.stderr).toContain(
        "make it writable, or pass --db on another filesystem; then run the same command again",
      );
      expect(result.stderr).not.toContain("marked interrupted");
      expect(result.stderr).not.toContain("--resume");
      expect(result.stderr).not.toMatch(STACK);
      expect(result.code).toBe(4);
      expect(existsSync(db)).toBe(false);
    } finally {
      if (readOnlyMount) execFileSync("umount", [locked]);
      else chmodSync(locked, 0o755);
    }
  });
});
