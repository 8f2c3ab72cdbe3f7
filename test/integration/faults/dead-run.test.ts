/**
 * Item 8 of issue 13, with a real kill -9 of the real CLI child: the killed run must show as
 * interrupted (not `running` forever) in `umpire runs`, and the Chromium profile folder it left in
 * the temp directory must be removed by the next umpire that starts a browser.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../support/cli-child.js";

let dir: string;
let temp: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "umpire-dead-"));
  // The children's own temp directory, so this test sees only their leftovers.
  temp = mkdtempSync(join(tmpdir(), "umpire-dead-tmp-"));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(temp, { recursive: true, force: true });
});

describe("a run killed with -9", () => {
  it("shows as interrupted, and its browser profile is cleaned by the next run", async () => {
    const db = join(dir, "umpire.db");
    const env = { TMPDIR: temp, NO_COLOR: "1" };
    let pid = 0;
    let killed = false;
    const first = await runCli(
      [
        "run",
        "answer-only-bb042",
        "api-note-bb042",
        "--mode",
        "both",
        "--concurrency",
        "1",
        "--db",
        db,
        "--out",
        join(dir, "runs"),
        "--run-id",
        "killed-run",
      ],
      {
        env,
        onSpawn: (child) => (pid = child.pid!),
        // Mid-run: the browser is up and one trial has finished.
        onStderr: (text, child) => {
          if (!killed && /\[1\/4\]/.test(text)) {
            killed = true;
            child.kill("SIGKILL");
          }
        },
      },
    );
    expect(first.signal).toBe("SIGKILL");
    const leftover = join(temp, `umpire-browser-${hostname()}-${pid}`);
    expect(existsSync(leftover)).toBe(true);
    expect(readdirSync(leftover).some((name) => name.startsWith("playwright_chromiumdev_profile-"))).toBe(true);

    const runs = await runCli(["runs", "--db", db, "--json"], { env });
    expect(runs.code).toBe(0);
    const listed = JSON.parse(runs.stdout).runs as { id: string; status: string }[];
    expect(listed.find((r) => r.id === "killed-run")?.status).toBe("interrupted");

    // The next run that starts a browser removes the dead process's folder (and then finishes the killed run).
    const resumed = await runCli(["run", "--resume", "killed-run", "--db", db, "--out", join(dir, "runs")], { env });
    expect(resumed.code).toBe(0);
    expect(existsSync(leftover)).toBe(false);
  });
});
