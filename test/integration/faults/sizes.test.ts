/**
 * Item 5 of issue 13, through the real CLI against a real hostile server on 127.0.0.1: a 10 MB note
 * is neither stored whole in the turn row, nor written whole to events.jsonl, nor sent back to the
 * model on the next turn, and the record says it was truncated; a 20 MB instruction is refused by
 * an estimate before any request is sent (the server has reported no usage yet).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../../src/store/open.js";
import { ROOT, runCli } from "../../support/cli-child.js";
import { startRecordingModel, stepReply, type RecordingModel } from "../../support/recording-model.js";
import { readFixtureTask } from "../../support/fixture-tasks.js";

const MB = 1024 * 1024;
let dir: string;
let model: RecordingModel;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "umpire-sizes-"));
  model = await startRecordingModel();
});
afterAll(async () => {
  await model.close();
  rmSync(dir, { recursive: true, force: true });
});

function find(root: string, name: string): string[] {
  return readdirSync(root).flatMap((entry) => {
    const path = join(root, entry);
    return statSync(path).isDirectory() ? find(path, name) : entry === name ? [path] : [];
  });
}

describe("sizes", () => {
  it("a 10 MB note is capped in the store, the log and the next request, and marked truncated", async () => {
    const huge = "N".repeat(10 * MB);
    model.enqueue(
      stepReply({ note: huge, thought: "scroll", tool_call: { tool_name: "scroll", direction: "down", amount: 3 } }),
      stepReply({ note: null, thought: "t", tool_call: { tool_name: "answer", content: "done" } }),
    );
    const db = join(dir, "note.db");
    const result = await runCli([
      "run",
      "answer-only-bb042",
      "--model",
      "hostile",
      "--mode",
      "structured",
      "--base-url",
      model.baseUrl,
      "--db",
      db,
      "--out",
      join(dir, "runs"),
      "--run-id",
      "big-note",
      "--no-preflight",
    ]);
    expect(result.stderr).not.toContain("internal error");
    expect(model.requests).toHaveLength(2);
    // The second request carries the first turn's step back, without the 10 MB note.
    expect(model.requests[1]!.raw.length).toBeLessThan(2 * MB);
    expect(model.requests[1]!.raw).toContain("truncated by umpire");

    const store = openStore(db, { readonly: true });
    try {
      const [trial] = store.trials("big-note");
      const [first] = store.turns(trial!.id);
      expect(first!.note!.length).toBeLessThan(MB);
      expect(first!.note).toContain("truncated by umpire");
      expect(first!.flags).toMatchObject({ truncated: { note: expect.any(Number) } });
    } finally {
      store.close();
    }
    const [events] = find(join(dir, "runs"), "events.jsonl");
    expect(statSync(events!).size).toBeLessThan(2 * MB);
    expect(readFileSync(events!, "utf8")).toContain('"truncated":');
  });

  it("a 20 MB instruction stops the trial on the token budget before anything is sent", async () => {
    const source = readFixtureTask(join(ROOT, "tasks/answer-only-bb042.yaml"));
    const file = join(dir, "huge-instruction.yaml");
    const instruction = `Look up match BB-042. ${"Context. ".repeat((20 * MB) / 9)}`;
    writeFileSync(
      file,
      source
        .replace(/^\$schema:.*\n/m, "")
        .replace(/^instruction: >-\n(?: {2}.*\n)+/m, `instruction: ${JSON.stringify(instruction)}\n`),
    );
    const before = model.requests.length;
    const db = join(dir, "instruction.db");
    const result = await runCli([
      "run",
      file,
      "--model",
      "hostile",
      "--mode",
      "structured",
      "--base-url",
      model.baseUrl,
      "--db",
      db,
      "--out",
      join(dir, "runs2"),
      "--run-id",
      "big-instruction",
      "--no-preflight",
    ]);
    expect(result.stderr).not.toContain("internal error");
    expect(model.requests.length).toBe(before);
    const store = openStore(db, { readonly: true });
    try {
      const [trial] = store.trials("big-instruction");
      expect(trial!.stopReason).toBe("token_budget");
      expect(trial!.stopDetail).toContain("not sent");
    } finally {
      store.close();
    }
  });
});
