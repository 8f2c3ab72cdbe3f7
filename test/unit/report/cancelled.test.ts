/**
 * A trial cancelled by the user (verdict `cancelled`) counts in no pass rate, pass@k, McNemar pair
 * or regression, and every view shows it in a column of its own; JUnit marks it skipped.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { main } from "../../../src/cli/main.js";
import { summarizeTrials } from "../../../src/report/aggregate.js";
import { openStore } from "../../../src/store/open.js";
import { tempDir } from "../store/fixtures.js";
import { fakeIO, seedRun } from "./seed.js";
import { parseXml } from "./xml-check.js";

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(() => cleanup());

describe("verdict cancelled in reports", () => {
  it("is left out of rates and pairs, never a regression, shown in its own column, skipped in JUnit", async () => {
    const db = join(dir, "umpire.db");
    const store = openStore(db);
    const gold = seedRun(store, {
      model: "reference",
      startedAt: "2025-06-01T00:00:00.000Z",
      tags: ["gold"],
      trials: [
        { task: "a", verdict: "passed" },
        { task: "b", verdict: "passed" },
        { task: "c", verdict: "passed" },
      ],
    });
    const stopped = seedRun(store, {
      model: "reference",
      startedAt: "2025-06-02T00:00:00.000Z",
      trials: [
        { task: "a", verdict: "passed" },
        { task: "b", verdict: "cancelled" },
        { task: "c", verdict: "cancelled" },
      ],
    });
    const stats = summarizeTrials(store.trials(stopped), 1);
    expect(stats).toMatchObject({
      trials: 3,
      n: 1,
      passes: 1,
      passRate: 1,
      cancelled: 2,
      errors: 0,
      falseSuccesses: 0,
    });
    store.close();

    const cmp = fakeIO(dir);
    const junit = join(dir, "junit.xml");
    expect(
      await main(["compare", gold, stopped, "--fail-on-regression", "--db", db, "--junit", junit, "--json"], cmp.io),
    ).toBe(0);
    const body = JSON.parse(cmp.out());
    const text = JSON.stringify(body);
    expect(text).not.toMatch(/"regressed":true/);
    const paired = body.comparison?.paired?.[0] ?? body.paired?.[0];
    expect(paired).toMatchObject({ trialPairs: 1, onlyBasePassed: 0, flippedToFail: [] });
    const xml = parseXml(readFileSync(junit, "utf8"));
    expect(xml.attributes).toMatchObject({ tests: "3", failures: "0", errors: "0", skipped: "2" });

    const table = fakeIO(dir, { columns: 250 });
    expect(await main(["compare", gold, stopped, "--db", db], table.io)).toBe(0);
    expect(table.out()).toMatch(/cancelled/);
    const md = fakeIO(dir);
    expect(await main(["compare", gold, stopped, "--db", db, "--markdown"], md.io)).toBe(0);
    expect(md.out()).toMatch(/\| cancelled \|/);

    const runs = fakeIO(dir, { columns: 250 });
    expect(await main(["runs", "--db", db], runs.io)).toBe(0);
    expect(runs.out()).toMatch(/cancelled/);
    const show = fakeIO(dir, { columns: 250 });
    await main(["show", stopped, "--db", db], show.io);
    expect(show.out()).toMatch(/b · structured · reference · repeat 0: \S*cancelled/);
  });
});
