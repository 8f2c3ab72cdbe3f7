/**
 * Gemini computer use end to end (#41): `umpire run` through the real `@google/genai` SDK over real
 * HTTP to the embedded reference model (strict: a request breaking Gemini's lint is answered 400, so
 * the trial would error), real Chromium, the real store. answer-only-bb042 passes with the gold policy
 * at DPR 1 and 2 (every click said on Gemini's 1000 grid landed on its element) and fails with its
 * declared wrong answer; tokens come from usageMetadata and cost from the prices given. long-scroll-bb017's
 * scroll_at calls scroll the same CSS distance at DPR 1 and 2.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { parse, stringify } from "yaml";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../../src/cli/main.js";
import { openStore } from "../../../src/store/open.js";
import { readFixtureTask } from "../../support/fixture-tasks.js";

const ROOT = join(__dirname, "../../..");
const dir = mkdtempSync(join(tmpdir(), "umpire-gemini-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The task as written, and a copy at device pixel ratio 2. */
function writeTasks(task = "answer-only-bb042"): string[] {
  const doc = parse(readFixtureTask(join(ROOT, `tasks/${task}.yaml`)));
  delete doc.$schema;
  writeFileSync(join(dir, `${task}-dpr1.yaml`), stringify(doc));
  const dpr2 = { ...doc, id: `${doc.id}-dpr2`, viewport: { width: 1280, height: 800, deviceScaleFactor: 2 } };
  writeFileSync(join(dir, `${task}-dpr2.yaml`), stringify(dpr2));
  return [`${task}-dpr1.yaml`, `${task}-dpr2.yaml`];
}

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (c) => (out += c));
  stderr.on("data", (c) => (err += c));
  const code = await main(args, { stdout, stderr, env: {}, cwd: dir, signal: new AbortController().signal });
  return { code, out, err };
}

type TrialJson = { id: string; verdict: string; mode: string; stopReason: string };
const PRICES = ["--price-in", "2", "--price-out", "10"];

describe("umpire run --mode gemini-computer", () => {
  it("passes answer-only-bb042 at DPR 1 and 2 with gold; tokens from usageMetadata, cost from the prices", async () => {
    const files = writeTasks();
    const r = await run([
      "run",
      ...files,
      "--mode",
      "gemini-computer",
      "--db",
      "gold.db",
      "--out",
      "runs",
      "--json",
      ...PRICES,
    ]);
    expect(r.err).not.toMatch(/umpire_lint/);
    const trials = JSON.parse(r.out).trials as TrialJson[];
    expect(trials).toHaveLength(2);
    for (const t of trials)
      expect(t).toMatchObject({ verdict: "passed", mode: "gemini-computer", stopReason: "answered" });
    expect(r.code).toBe(0);
    const store = openStore(join(dir, "gold.db"), { readonly: true });
    try {
      const stored = store.trials(store.listRuns()[0]!.id);
      for (const t of stored) {
        // The reference model reports promptTokenCount / candidatesTokenCount and no cache or thoughts.
        expect(t.inputTokens).toBeGreaterThan(0);
        expect(t.outputTokens).toBeGreaterThan(0);
        expect(t.cachedTokens).toBe(0);
        expect(t.costUsd).toBeCloseTo((t.inputTokens! * 2 + t.outputTokens! * 10) / 1e6, 9);
        const clicks = store.actions(t.id).filter((a) => a.tool === "click");
        // type_text_at clicks where it types: the search box twice, then the result link.
        expect(clicks.length).toBeGreaterThanOrEqual(3);
        for (const c of clicks) expect(JSON.stringify(c.args)).toMatch(/1000 x 1000 grid/);
      }
    } finally {
      store.close();
    }
  }, 240_000);

  it("scrolls as far at DPR 2 as at DPR 1: scroll_at's magnitude is a fraction of the CSS viewport", async () => {
    // The gold scrolls 10 notches (1000 CSS px) at a time: magnitude 1250 of the 800 px tall viewport.
    const r = await run([
      "run",
      ...writeTasks("long-scroll-bb017"),
      "--mode",
      "gemini-computer",
      "--db",
      "scroll.db",
      "--out",
      "runs",
      "--json",
    ]);
    expect(r.err).not.toMatch(/umpire_lint/);
    const trials = JSON.parse(r.out).trials as TrialJson[];
    expect(trials).toHaveLength(2);
    for (const t of trials) expect(t).toMatchObject({ verdict: "passed", mode: "gemini-computer" });
    const store = openStore(join(dir, "scroll.db"), { readonly: true });
    try {
      for (const t of store.trials(store.listRuns()[0]!.id)) {
        const scrolls = store.actions(t.id).filter((a) => a.tool === "scroll");
        expect(scrolls).toHaveLength(5);
        for (const s of scrolls) {
          expect(s.args).toMatchObject({ direction: "down", amount: 10 });
          expect(s.message).toMatch(/^scrolled down by 10/);
        }
      }
    } finally {
      store.close();
    }
  }, 240_000);

  it("fails answer-only-bb042 when the model plays its declared wrong answer", async () => {
    const r = await run([
      "run",
      join(ROOT, "tasks/answer-only-bb042.yaml"),
      "--mode",
      "gemini-computer",
      "--model",
      "reference:negative-misread-scores",
      "--db",
      "negative.db",
      "--out",
      "runs",
      "--json",
    ]);
    expect(r.err).not.toMatch(/umpire_lint/);
    const trials = JSON.parse(r.out).trials as TrialJson[];
    expect(trials).toEqual([
      expect.objectContaining({ verdict: "failed", mode: "gemini-computer", stopReason: "answered" }),
    ]);
    expect(r.code).not.toBe(0);
  }, 240_000);
});
