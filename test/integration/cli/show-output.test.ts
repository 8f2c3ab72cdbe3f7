/**
 * `umpire show` and `umpire compare` through the real CLI (child process) on a real SQLite store:
 * show has a model column (two models' rows differ), and counts agree with their nouns.
 */
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../../src/store/open.js";
import { tempDir } from "../../unit/store/fixtures.js";
import { seedRun } from "../../unit/report/seed.js";
import { execChild } from "../../support/cli-child.js";

const ROOT = resolve(__dirname, "../../..");
const run = execChild;
let dir: string;
let cleanup: () => void;
let runA: string;
let runB: string;

async function umpire(args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [join(ROOT, "bin/umpire.js"), ...args, "--db", join(dir, "u.db")], {
    cwd: dir,
    env: { ...process.env, NO_COLOR: "1", COLUMNS: "250" },
  });
  return stdout;
}

beforeAll(() => {
  ({ dir, cleanup } = tempDir());
  const store = openStore(join(dir, "u.db"));
  runA = seedRun(store, {
    model: "holo3-1-35b-a3b",
    startedAt: "2026-01-01T00:00:00Z",
    trials: [
      { task: "save-bb042", verdict: "passed" },
      { task: "lazy", verdict: "error" },
    ],
  });
  runB = seedRun(store, {
    model: "holo3-122b-a10b",
    startedAt: "2026-01-02T00:00:00Z",
    trials: [{ task: "save-bb042", verdict: "passed" }],
  });
  store.close();
});
afterAll(() => cleanup());

describe("show and compare wording", () => {
  it("show has a model column", async () => {
    const a = await umpire(["show", runA]);
    const b = await umpire(["show", runB]);
    // The table's header row: the first with a cell border (the run and its environment lines come before it).
    expect(a.split("\n").find((l) => l.startsWith("│"))).toMatch(/│ model\s+│/);
    const row = (text: string) => text.split("\n").find((l) => l.includes("save-bb042") && l.includes("│"))!;
    expect(row(a)).toContain("holo3-1-35b-a3b");
    expect(row(b)).toContain("holo3-122b-a10b");
  });

  it("one is singular: 1 paired task, 1 paired repeat", async () => {
    const out = await umpire(["compare", runA, runB]);
    expect(out).toContain("1 paired task, 1 paired repeat");
    expect(out).not.toMatch(/\b1 paired tasks\b|\b1 paired repeats\b/);
  });
});
