/**
 * Issue 31's awaited network calls and drafts, through the real CLI (`node bin/umpire.js` as a child
 * process) on a temporary copy of test/fixtures/saving-app: a shopping list whose page shows an item
 * before the server has it, so its Playwright tests (run with their own config and webServer, real
 * Chromium) await the save. `umpire import playwright` turns each awaited call that the config's
 * `import.requests` maps into an effects or http check, and writes the line to add for the others; the
 * drafts self-test sound, and those checks fail in the probe that makes no request. Then `umpire run`
 * refuses a draft unless --allow-drafts (or defaults.allowDrafts) and runs it with it.
 */
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { requireChromium } from "../../../src/browser/chromium.js";
import { type CliResult, runCli } from "../../support/cli-child.js";

const ROOT = resolve(import.meta.dirname, "../../..");
let dir: string;

/** `umpire <args>` in the copied suite's folder, as a user runs it there. */
function umpire(args: string[]): Promise<CliResult> {
  // The fixture's Playwright webServer gets a port of its own (umpire's target picks a free one itself).
  const env = {
    UMPIRE_CHROMIUM: requireChromium().path,
    SAVING_APP_PORT: String(41_000 + (process.pid % 9_000)),
    CI: "1",
  };
  return runCli(args, { cwd: dir, env });
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "umpire-import-awaited-"));
  cpSync(join(ROOT, "test/fixtures/saving-app"), dir, { recursive: true });
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

type Check = { kind: string; name: string; require?: unknown; method?: string; url?: string; contains?: string[] };
const task = (id: string) => parse(readFileSync(join(dir, `tasks/imported/${id}.yaml`), "utf8")) as { checks: Check[] };

/** The mapping line the draft suggests for a call, as a person pastes it: the placeholder filled in, the comment dropped. */
function suggested(draft: string, call: RegExp, kind: "effects" | "http", fill: [string, string]): string {
  const todo = draft.split("\n").findIndex((l) => l.startsWith("# TODO: the test awaited") && call.test(l));
  expect(todo, `no TODO for ${call} in\n${draft}`).toBeGreaterThanOrEqual(0);
  const line = draft
    .split("\n")
    .slice(todo + 2, todo + 4)
    .find((l) => l.includes(`{ ${kind}:`))!;
  return line
    .replace(/^#\s+/, "")
    .replace(/\s+# .*$/, "")
    .replace(fill[0], fill[1]);
}

describe("umpire import playwright: awaited network calls", () => {
  it("become the effects or http check import.requests maps them to; the drafts self-test sound and those checks fail without the request", async () => {
    const first = await umpire(["import", "--no-probes", "playwright"]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain("wrote tasks/imported/saves-an-item.yaml: 4 gold steps, 2 checks\n");
    expect(first.stdout).toContain("wrote tasks/imported/saves-two-items.yaml: 4 gold steps, 2 checks, 2 TODO");
    expect(first.stdout).toContain("umpire.config.yaml: reused target shopping");
    // The fixture's config maps "**/api/items" (Promise.all with waitForResponse) to its effects source.
    expect(task("saves-an-item").checks).toContainEqual({
      kind: "effects",
      name: 'the app received the response "**/api/items" (awaited at line 8)',
      require: [{ type: "item_saved" }],
    });

    // The other test awaited a predicate and a RegExp, which no mapping names: the draft says what to add.
    const draft = readFileSync(join(dir, "tasks/imported/saves-two-items.yaml"), "utf8");
    expect(first.stdout).toMatch(
      /awaited, not mapped to a check: a response matching the predicate at playwright\/items.spec.ts:\d+; the response \/\\\/api\\\/items\$\//,
    );
    const effectsLine = suggested(draft, /predicate/, "effects", ["EFFECT_TYPE", "item_saved"]);
    const httpLine = suggested(draft, /\/api\\\/items\$\//, "http", ["/api/PATH", '"/api/items?trial=${TRIAL_ID}"']);
    appendFileSync(join(dir, "umpire.config.yaml"), `    ${effectsLine}\n    ${httpLine}\n`);

    const again = await umpire(["import", "--no-probes", "playwright", "--grep", "two items"]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain("wrote tasks/imported/saves-two-items.yaml: 4 gold steps, 4 checks\n");
    const mapped = task("saves-two-items").checks.filter((c) => c.kind !== "page");
    expect(mapped).toEqual([
      {
        kind: "effects",
        name: expect.stringMatching(
          /^the app received a response matching the predicate at playwright\/items.spec.ts:\d+$/,
        ),
        require: [{ type: "item_saved" }],
      },
      // A read-back with no contains of its own must show what the test typed.
      {
        kind: "http",
        name: expect.stringContaining("the app received the response /\\/api\\/items$/"),
        method: "GET",
        url: "/api/items?trial=${TRIAL_ID}",
        contains: ["Rye bread", "Apples"],
      },
    ]);

    const selfTest = await umpire([
      "validate",
      "--self-test",
      "--allow-drafts",
      "--json",
      "--concurrency",
      "2",
      "tasks/imported",
    ]);
    expect(selfTest.code, selfTest.stdout + selfTest.stderr).toBe(0);
    const results = (
      JSON.parse(selfTest.stdout) as {
        selfTest: {
          sound: boolean;
          results: { task: string; probe: { name: string }; verdict: string; failedChecks: string[] }[];
        };
      }
    ).selfTest;
    expect(results.sound).toBe(true);
    const probe = (id: string, name: string) => results.results.find((r) => r.task === id && r.probe.name === name)!;
    for (const id of ["saves-an-item", "saves-two-items"]) {
      expect(probe(id, "gold/tools").verdict).toBe("passed");
      // Answering at once makes no request: every awaited-call check fails there.
      const awaited = task(id)
        .checks.filter((c) => c.kind !== "page")
        .map((c) => c.name);
      expect(probe(id, "answer-now").failedChecks).toEqual(expect.arrayContaining(awaited));
    }
  }, 600_000);

  it("umpire run refuses a draft, naming the file, the field and the fix; with --allow-drafts (or defaults.allowDrafts) it runs it", async () => {
    const file = "tasks/imported/saves-an-item.yaml";
    const refused = await umpire(["run", "--mode", "tools", "--db", "run.db", file]);
    expect(refused.code).toBe(2);
    expect(refused.stdout + refused.stderr).toMatch(
      /tasks\/imported\/saves-an-item\.yaml:\d+: draft: this task is a draft/,
    );
    expect(refused.stdout + refused.stderr).toContain("`umpire run --allow-drafts` runs it");

    const ran = await umpire(["run", "--allow-drafts", "--mode", "tools", "--json", "--db", "run.db", file]);
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    const trials = (JSON.parse(ran.stdout) as { trials: { task: string; verdict: string }[] }).trials;
    expect(trials.map((t) => [t.task, t.verdict])).toEqual([["saves-an-item", "passed"]]);

    // The config file's defaults.allowDrafts is the same switch (the plan is listed, nothing is run).
    const config = readFileSync(join(dir, "umpire.config.yaml"), "utf8");
    writeFileSync(join(dir, "umpire.config.yaml"), `defaults: { allowDrafts: true }\n${config}`);
    const listed = await umpire(["run", "--list", "--mode", "tools", "--db", "run.db", file]);
    expect(listed.code, listed.stdout + listed.stderr).toBe(0);
    expect(listed.stdout).toContain("saves-an-item");
    const overruled = await umpire(["run", "--list", "--no-allow-drafts", "--mode", "tools", "--db", "run.db", file]);
    expect(overruled.code).toBe(2);
  }, 600_000);
});
