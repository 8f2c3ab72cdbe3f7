/**
 * Issue 38: the next run ends the app groups a killed umpire left, by their records, and never a
 * process that merely has a recorded pid now (a pid reused since), nor the group of an umpire that runs.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { endLeftoverApps, recordApp } from "../../../src/targets/app-records.js";

const base = mkdtempSync(join(tmpdir(), "umpire-app-records-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));
const records = () => join(base, `umpire-apps-${process.getuid?.() ?? 0}`);

function startGroup(): number {
  const child = spawn("sleep", ["60"], { detached: true, stdio: "ignore" });
  child.unref();
  return child.pid!;
}
function alive(pid: number): boolean {
  const r = spawnSync("ps", ["-o", "stat=", "-p", String(pid)], { encoding: "utf8" });
  return r.status === 0 && !r.stdout.trim().startsWith("Z");
}
/** A pid that no process has now: a short process that has been waited for. */
const deadPid = () => spawnSync("true").pid;

function rewrite(pgid: number, change: Record<string, unknown>): void {
  const file = join(records(), `${process.pid}-${pgid}.json`);
  writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, "utf8")), ...change }));
}

describe("records of app groups", () => {
  it("keeps the group of an umpire that still runs", async () => {
    const group = startGroup();
    const forget = recordApp(group, "live", base);
    expect(await endLeftoverApps(base)).toEqual([]);
    expect(alive(group)).toBe(true);
    forget();
    expect(readdirSync(records())).toEqual([]);
    process.kill(-group, "SIGKILL");
  });

  it("ends the group of an umpire that is gone, says so, and forgets the record", async () => {
    const group = startGroup();
    recordApp(group, "left", base);
    const gone = deadPid();
    rewrite(group, { umpirePid: gone });
    const said = await endLeftoverApps(base);
    expect(said).toEqual([
      `ended target left's app (process group ${group}, 1 processes), left running by umpire ${gone}, which was killed`,
    ]);
    expect(alive(group)).toBe(false);
    expect(readdirSync(records())).toEqual([]);
  });

  it("never ends a process whose pid was reused since (another start time)", async () => {
    const group = startGroup();
    recordApp(group, "reused", base);
    const leaderStart = JSON.parse(readFileSync(join(records(), `${process.pid}-${group}.json`), "utf8")).leaderStart;
    rewrite(group, { umpirePid: deadPid(), leaderStart: leaderStart - 1 });
    expect(await endLeftoverApps(base)).toEqual([]);
    expect(alive(group)).toBe(true);
    expect(readdirSync(records())).toEqual([]);
    process.kill(-group, "SIGKILL");
  });
});
