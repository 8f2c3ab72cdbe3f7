import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { main } from "../../../src/cli/main.js";
import { costPerSuccess, reportedCost, sumCosts, sumUsage } from "../../../src/report/cost.js";
import { parseCommand, pricesOf } from "../../../src/cli/args.js";
import { PRICE_OPTIONS } from "../../../src/config/options.js";
import { UmpireError } from "../../../src/errors.js";
import { costOfUsage, createPriceBook, DEFAULT_PRICES } from "../../../src/pricing.js";
import { openStore } from "../../../src/store/open.js";
import { tempDir } from "../store/fixtures.js";
import { fakeIO, seedRun } from "./seed.js";

const usage = (inputTokens: number, outputTokens: number, reasoningTokens = 0, cachedTokens = 0) => ({
  inputTokens,
  outputTokens,
  reasoningTokens,
  cachedTokens,
});

describe("cost arithmetic", () => {
  it("reproduces the reference figures exactly", () => {
    expect(costOfUsage(usage(12_000, 800), { input: 2, output: 8 })).toBe(0.0304);
    expect(costOfUsage(usage(21_166, 307), DEFAULT_PRICES["holo3-122b-a10b"])).toBe(0.0093874);
    // The naive float formula is off in the last place; the exact one is not.
    expect((21_166 * 0.4) / 1e6 + (307 * 3.0) / 1e6).not.toBe(0.0093874);
  });
  it("bills reasoning once, inside output, unless the price says otherwise", () => {
    const u = usage(1000, 500, 300);
    expect(costOfUsage(u, { input: 1, output: 10 })).toBe(0.006);
    expect(costOfUsage(u, { input: 1, output: 10, reasoning: 20 })).toBe(0.009); // 200 x 10 + 300 x 20
    expect(costOfUsage(u, { input: 1, output: 10, reasoningInOutput: false })).toBe(0.009); // 500 x 10 + 300 x 10
  });
  it("bills cached input at its own price, defaulting to the input price", () => {
    expect(costOfUsage(usage(1000, 0, 0, 400), { input: 1, output: 10, cachedInput: 0.1 })).toBe(0.00064);
    expect(costOfUsage(usage(1000, 0, 0, 400), { input: 1, output: 10 })).toBe(0.001);
  });
  it("an unknown price or usage is an unknown cost, never 0", () => {
    expect(costOfUsage(usage(1000, 10), null)).toBeNull();
    expect(costOfUsage(null, { input: 1, output: 1 })).toBeNull();
    const book = createPriceBook();
    expect(book.lookup("gpt-unknown")).toBeNull();
    expect(costOfUsage(usage(1000, 10), book.lookup("reference:wrong-record"))).toBe(0);
  });
  it("sums exactly and refuses a partial sum", () => {
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(sumCosts([0.1, 0.2])).toBe(0.3);
    expect(sumCosts([0.1, null, 0.2])).toBeNull();
    expect(sumCosts([])).toBe(0);
    expect(sumUsage([usage(1, 2, 1, 0), usage(3, 4, 2, 1)])).toEqual(usage(4, 6, 3, 1));
    expect(sumUsage([usage(1, 2), null])).toBeNull();
  });
  it("cost per success is total over passes, unknown with an unknown cost, none without a success", () => {
    expect(costPerSuccess(0.09, 3)).toBeCloseTo(0.03, 15);
    expect(costPerSuccess(null, 3)).toBe("unknown");
    expect(costPerSuccess(0.09, 0)).toBe("no_success");
  });
});

/**
 * Prices the way every command that shows a cost gets them: its options parsed through the one
 * argument layer (which reads the config file) and the price book built from the result.
 */
function pricesFor(cwd: string, argv: string[] = []) {
  const parsed = parseCommand("show", argv, PRICE_OPTIONS, { cwd });
  return pricesOf(parsed.values, parsed.config);
}

describe("prices (config file and flags, as the CLI reads them)", () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = tempDir()));
  afterEach(() => cleanup());

  it("a config file's prices add models and override the built-in ones; flags override every model", () => {
    writeFileSync(
      join(dir, "umpire.config.yaml"),
      ["prices:", "  my-model: { input: 1, output: 4 }", "  holo3-1-35b-a3b: { input: 0.2, output: 1.5 }", ""].join(
        "\n",
      ),
    );
    const book = pricesFor(dir);
    expect(book.userPrices).toBe(true);
    expect(book.sources).toEqual(["built-in", "config"]);
    expect(book.lookup("my-model")).toEqual({ input: 1, output: 4 });
    expect(book.lookup("holo3-1-35b-a3b")).toEqual({ input: 0.2, output: 1.5 });
    expect(book.lookup("holo3-122b-a10b")).toEqual({ input: 0.4, output: 3 });
    // A model in neither table has no price: its cost is unknown, not 0.
    expect(book.lookup("gpt-unknown")).toBeNull();
    const flagged = pricesFor(dir, ["--price-in", "2", "--price-out", "8"]);
    expect(flagged.sources).toEqual(["built-in", "config", "flags"]);
    expect(flagged.lookup("anything")).toEqual({ input: 2, output: 8 });
    // Half a price for an unknown model is no price; for a known one, the flag replaces its half.
    expect(pricesFor(dir, ["--price-in", "2"]).lookup("anything")).toBeNull();
    expect(pricesFor(dir, ["--price-in", "2"]).lookup("my-model")).toEqual({ input: 2, output: 4 });
  });

  it("a JSON config file named by --config is read the same way", () => {
    mkdirSync(join(dir, "conf"));
    writeFileSync(
      join(dir, "conf", "prices.json"),
      JSON.stringify({ prices: { "my-model": { input: 1, output: 4, cachedInput: 0.1 } } }),
    );
    const book = pricesFor(dir, ["--config", "conf/prices.json"]);
    expect(book.lookup("my-model")).toEqual({ input: 1, output: 4, cachedInput: 0.1 });
    expect(costOfUsage(usage(1000, 0, 0, 400), book.lookup("my-model"))).toBe(0.00064);
  });

  it("without a config file the built-in table is used and nothing is re-priced", () => {
    const book = pricesFor(dir);
    expect(book.userPrices).toBe(false);
    expect(book.sources).toEqual(["built-in"]);
    expect(book.lookup("my-model")).toBeNull();
    expect(
      reportedCost(
        { model: "reference", costUsd: 0.5, inputTokens: 1, outputTokens: 1, reasoningTokens: 0, cachedTokens: 0 },
        book,
      ),
    ).toBe(0.5);
  });

  it("bad prices and flags give errors naming the file, the field and the fix", () => {
    const file = join(dir, "umpire.config.json");
    const failure = (argv: string[] = []): UmpireError => {
      try {
        pricesFor(dir, argv);
      } catch (error) {
        if (error instanceof UmpireError) return error;
        throw error;
      }
      throw new Error("expected an error");
    };
    writeFileSync(file, JSON.stringify({ prices: { m: { input: -1, output: 2 } } }));
    expect(failure()).toMatchObject({
      code: "input",
      message: expect.stringMatching(/umpire\.config\.json.*prices\.m\.input/s),
    });
    writeFileSync(file, "{ not json");
    expect(failure()).toMatchObject({ code: "input", message: expect.stringContaining("umpire.config.json") });
    writeFileSync(file, JSON.stringify({ prices: { m: { input: 1, output: 2, discount: 3 } } }));
    expect(failure()).toMatchObject({ code: "input", message: expect.stringMatching(/prices\.m.*discount/s) });
    expect(failure(["--config", "missing.json"])).toMatchObject({
      code: "input",
      message: "--config missing.json: no such file",
    });
    writeFileSync(file, JSON.stringify({ prices: {} }));
    const flag = failure(["--price-in", "cheap"]);
    expect(flag).toMatchObject({
      code: "usage",
      message: expect.stringContaining("--price-in cheap: expected a number"),
      hint: expect.stringContaining("--price-in"),
    });
    expect(failure(["--price-out=-1"])).toMatchObject({
      code: "usage",
      message: expect.stringContaining("--price-out -1: expected a number >= 0"),
    });
  });

  it("the CLI refuses bad prices with exit code 2 and the file in the message", async () => {
    const db = join(dir, "umpire.db");
    const store = openStore(db);
    const run = seedRun(store, {
      model: "my-model",
      startedAt: "2025-06-01T10:00:00.000Z",
      trials: [{ task: "save-bb042", verdict: "passed", usage: usage(1000, 10) }],
    });
    store.close();
    writeFileSync(
      join(dir, "umpire.config.json"),
      JSON.stringify({ prices: { "my-model": { input: "cheap", output: 2 } } }),
    );
    const bad = fakeIO(dir);
    expect(await main(["show", run, "--db", db], bad.io)).toBe(2);
    expect(bad.err()).toMatch(/umpire\.config\.json.*prices\.my-model\.input/s);

    writeFileSync(join(dir, "umpire.config.json"), JSON.stringify({ prices: { "my-model": { input: 1, output: 4 } } }));
    const good = fakeIO(dir);
    expect(await main(["show", run, "--db", db, "--json"], good.io)).toBe(0);
    expect(JSON.parse(good.out()).trials[0].costUsd).toBe(0.00104);
  });
});

describe("cost on a real store", () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = tempDir()));
  afterEach(() => cleanup());

  it("stores, reads back and prints the reference costs; unknown prices print unknown", async () => {
    const db = join(dir, "umpire.db");
    const store = openStore(db);
    const holo = seedRun(store, {
      model: "holo3-122b-a10b",
      startedAt: "2025-06-01T10:00:00.000Z",
      trials: [{ task: "save-bb042", verdict: "passed", usage: usage(21_166, 307) }],
    });
    const custom = seedRun(store, {
      model: "my-local-model",
      startedAt: "2025-06-02T10:00:00.000Z",
      trials: [
        { task: "save-bb042", verdict: "passed", usage: usage(12_000, 800) },
        { task: "save-bb042", verdict: "failed", usage: usage(12_000, 800) },
      ],
    });
    store.close();

    const shown = fakeIO(dir);
    expect(await main(["show", holo, "--db", db, "--json"], shown.io)).toBe(0);
    expect(JSON.parse(shown.out()).trials[0].costUsd).toBe(0.0093874);

    // No price for my-local-model: unknown, in JSON and in the table, and in the run list.
    const unknownJson = fakeIO(dir);
    await main(["show", custom, "--db", db, "--json"], unknownJson.io);
    expect(JSON.parse(unknownJson.out()).trials.map((t: { costUsd: unknown }) => t.costUsd)).toEqual([null, null]);
    const unknownText = fakeIO(dir);
    await main(["show", custom, "--db", db], unknownText.io);
    expect(unknownText.out()).toMatch(/cost unknown/);
    expect(unknownText.out()).not.toMatch(/\$0\b/);

    // Priced by flags: each trial is $0.0304, cost per success is both trials' total over one pass.
    const priced = fakeIO(dir);
    await main(["show", custom, "--db", db, "--json", "--price-in", "2", "--price-out", "8"], priced.io);
    expect(JSON.parse(priced.out()).trials.map((t: { costUsd: unknown }) => t.costUsd)).toEqual([0.0304, 0.0304]);
    const compared = fakeIO(dir);
    await main(["compare", holo, custom, "--db", db, "--json", "--price-in", "2", "--price-out", "8"], compared.io);
    const groups = JSON.parse(compared.out()).comparison.groups;
    expect(groups[1].summary.totalCostUsd).toBe(0.0608);
    expect(groups[1].summary.costPerSuccess).toBe(0.0608);
    expect(groups[1].summary.meanCostUsd).toBe(0.0304);

    const list = fakeIO(dir);
    await main(["runs", "--db", db, "--json"], list.io);
    const runs = JSON.parse(list.out()).runs;
    expect(runs.map((r: { id: string; costUsd: unknown }) => [r.id, r.costUsd])).toEqual([
      [custom, null],
      [holo, 0.0093874],
    ]);
  });
});
