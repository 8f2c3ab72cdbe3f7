/**
 * Qwen and UI-TARS computer use end to end (#41): `umpire run` through the real openai SDK over real HTTP to
 * the embedded reference model (strict: a request breaking the Qwen lint is answered 400, so the
 * trial would error), real Chromium, one fixture task in Qwen2.5-VL's, Qwen3-VL's and UI-TARS-1.5's
 * protocols at DPR 1 and 2. The task passes only if every click, said in the family's coordinates
 * (pixels of the smart-resized image, or thousandths), landed on its element.
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
const dir = mkdtempSync(join(tmpdir(), "umpire-qwen-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The scorecard task as written, and a copy at device pixel ratio 2. */
function writeTasks(): string[] {
  const doc = parse(readFixtureTask(join(ROOT, "tasks/scorecard-note-bb042.yaml")));
  delete doc.$schema;
  writeFileSync(join(dir, "dpr1.yaml"), stringify(doc));
  const dpr2 = { ...doc, id: `${doc.id}-dpr2`, viewport: { width: 1280, height: 800, deviceScaleFactor: 2 } };
  writeFileSync(join(dir, "dpr2.yaml"), stringify(dpr2));
  return ["dpr1.yaml", "dpr2.yaml"];
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

describe("Qwen and UI-TARS computer use through umpire run", () => {
  for (const mode of ["qwen2.5-vl", "qwen3-vl", "ui-tars"] as const) {
    it(`${mode}: the task passes at DPR 1 and 2, every click said in the family's own words`, async () => {
      const files = writeTasks();
      const db = `${mode}.db`;
      const r = await run(["run", ...files, "--mode", mode, "--db", db, "--out", "runs", "--json"]);
      expect(r.err).not.toMatch(/umpire_lint/);
      const trials = JSON.parse(r.out).trials as { id: string; verdict: string; mode: string; stopReason: string }[];
      expect(trials).toHaveLength(2);
      for (const t of trials) expect(t).toMatchObject({ verdict: "passed", mode, stopReason: "answered" });
      expect(r.code).toBe(0);
      const store = openStore(join(dir, db), { readonly: true });
      try {
        for (const t of trials) {
          const clicks = store.actions(t.id).filter((a) => a.tool === "click");
          expect(clicks.length).toBeGreaterThan(0);
          // The model's own words: its click at its own coordinate, not umpire's thousandths.
          const said = mode === "ui-tars" ? /click at \(\d+,\d+\)/ : /computer_use left_click at \(\d+, \d+\)/;
          for (const c of clicks) expect(JSON.stringify(c.args)).toMatch(said);
        }
      } finally {
        store.close();
      }
    }, 240_000);
  }
});
