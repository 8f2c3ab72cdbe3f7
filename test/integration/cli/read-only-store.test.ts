/**
 * Reading never writes (the real CLI as a child process, a real SQLite file): `run --list` and the
 * read-only commands create no database where there is none, and `--list` leaves an existing
 * database byte for byte as it was, even one with an older schema that a run would migrate.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, runCli } from "../../support/cli.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "umpire-readonly-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const umpire = (args: string[]) => runCli(args, { env: { CI: "" }, killAfterMs: 120_000 });

describe("where no database exists", () => {
  const commands: [string, string[]][] = [
    ["runs", ["runs"]],
    ["history", ["history"]],
    ["show", ["show", "latest"]],
    ["compare", ["compare", "latest", "latest"]],
    ["report", ["report", "latest"]],
    ["show-report", ["show-report"]],
    ["run --list --last-failed", ["run", "--list", "--last-failed"]],
    ["run --list --resume", ["run", "--list", "--resume", "latest"]],
  ];
  it.each(commands)("%s says there is no database, exits 2 and creates nothing", async (name, args) => {
    const folder = join(dir, name.replace(/\W+/g, "-"));
    const db = join(folder, "umpire.db");
    const r = await umpire([...args, "--db", db]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`no umpire database at ${db}`);
    expect(r.stderr).toContain("run `umpire run` first, or pass --db");
    expect(existsSync(folder)).toBe(false);
  });

  it("run --list prints the plan (also sharded) and creates neither the file nor its folder", async () => {
    const folder = join(dir, "list");
    const db = join(folder, "umpire.db");
    const all = await umpire(["run", "--list", "--db", db]);
    expect(all.code).toBe(0);
    expect(all.stdout).toMatch(/\d+ trials \(\d+ tasks, 2 agents\); nothing was run/);
    const shard = await umpire(["run", "--list", "--json", "--shard", "1/2", "--db", db]);
    expect(shard.code).toBe(0);
    const planned = JSON.parse(shard.stdout) as { shard: string }[];
    expect(planned.length).toBeGreaterThan(0);
    expect(new Set(planned.map((t) => t.shard))).toEqual(new Set(["1/2"]));
    expect(existsSync(folder)).toBe(false);
  });
});

describe("run --list on a database an older umpire wrote", () => {
  it("reads it (--last-failed, --resume) without migrating it or adding a file next to it", async () => {
    const folder = join(dir, "old");
    const db = join(folder, "umpire.db");
    mkdirSync(folder);
    copyFileSync(join(REPO_ROOT, "test/fixtures/store-v1.db"), db);
    const before = readFileSync(db);

    // In the schema-1 run, infeasible-bb999 failed with reference/tools and save-bb042 passed.
    const failed = await umpire(["run", "--list", "--last-failed", "--db", db]);
    expect(failed.code).toBe(0);
    expect(failed.stdout).toMatch(/infeasible-bb999\s+reference\/tools/);
    expect(failed.stdout).not.toContain("save-bb042");
    expect(failed.stdout).toContain("1 trial (1 task, 1 agent); nothing was run");
    // --list with --resume lists the unfinished trials (none: the run finished) and runs nothing.
    const resumed = await umpire(["run", "--list", "--resume", "20260101-000000-v1", "--db", db]);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain("0 trials (0 tasks, 0 agents); nothing was run");

    expect(readdirSync(folder)).toEqual(["umpire.db"]);
    expect(readFileSync(db).equals(before)).toBe(true);
  });
});
