/**
 * The fixture suite's own checks (tasks/checks/cricket.ts) are custom checks: these tests run them
 * through umpire's real registry and custom-check loader (runCheck -> import of the module), with
 * the same reasons and evidence the core's file and answer checks gave before they moved out.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCheck } from "../../../src/checks/registry.js";
import { readFields } from "../../../tasks/checks/note-fields.js";
import {
  NOTE_CHECK,
  RIGHT_NOTE,
  WRONG_RECORD_NOTE,
  cricketAnswer,
  noteCheck,
  spec,
  tempWorkspace,
  type TempWorkspace,
} from "./workspace.js";

let ws: TempWorkspace;
beforeEach(async () => {
  ws = await tempWorkspace();
});
afterEach(() => ws.remove());

const judge = (input: ReturnType<typeof noteCheck>, answer: string | null = null) =>
  runCheck(spec(input), ws.ctx({ answer }));
const note = (options: Record<string, unknown>) => judge(noteCheck(options));

describe("the seed's note cases (custom note check)", () => {
  it("passes the right BB-042 note", async () => {
    await ws.write("notes/BB-042.md", RIGHT_NOTE);
    const j = await judge(NOTE_CHECK);
    expect(j).toMatchObject({ kind: "custom", name: NOTE_CHECK.name, pass: true, confidence: "verified" });
    expect(j.crashed).toBeUndefined();
    expect(j.reason).toBe(
      "notes/BB-042.md exists and names only BB-042; has match: BB-042, result: Jaipur Kites won by 6 wickets; matches 2 text condition(s)",
    );
    expect(j.evidence).toMatchObject({ path: "notes/BB-042.md", exists: true, fields: { match: ["BB-042"] } });
    expect(j.evidence.excerpt).toContain("169/4");
  });

  it("fails a note at the right path that names BB-024, saying so", async () => {
    await ws.write("notes/BB-042.md", WRONG_RECORD_NOTE);
    const j = await judge(NOTE_CHECK);
    expect(j.pass).toBe(false);
    expect(j.reason).toMatch(/^notes\/BB-042\.md names BB-024 instead of BB-042; has match: BB-024, expected BB-042/);
    expect(j.evidence.records).toMatchObject({ expected: "BB-042", named: ["BB-024"] });
  });

  it("fails a note that names BB-042 and also BB-024", async () => {
    await ws.write("notes/BB-042.md", `${RIGHT_NOTE}\nsource: BB-024 scorecard\n`);
    const j = await judge(NOTE_CHECK);
    expect(j.pass).toBe(false);
    expect(j.reason).toBe("notes/BB-042.md names BB-024 as well as BB-042");
  });

  it("fails when only a BB-024 note was saved, naming what the folder holds", async () => {
    await ws.write("notes/BB-024.md", WRONG_RECORD_NOTE);
    const j = await judge(NOTE_CHECK);
    expect(j.pass).toBe(false);
    expect(j.reason).toBe("notes/BB-042.md does not exist (notes/ holds: BB-024.md)");
  });

  it("fails when there is no file at all", async () => {
    const j = await judge(NOTE_CHECK);
    expect(j.pass).toBe(false);
    expect(j.reason).toBe("notes/BB-042.md does not exist (the workspace is empty)");
    expect(j.evidence).toMatchObject({ exists: false });
  });

  it("refuses a path that leaves the workspace", async () => {
    const j = await note({ path: "../secret.md", fields: { match: "BB-042" } });
    expect(j.pass).toBe(false);
    expect(j.reason).toMatch(/^refused to read \.\.\/secret\.md/);
  });
});

describe("note fields and records", () => {
  it("normalises dashes and case before comparing", async () => {
    await ws.write("notes/BB-042.md", "MATCH: bb\u2013042\nResult: JAIPUR KITES WON BY 6 WICKETS.\n");
    const j = await note({
      path: "notes/BB-042.md",
      fields: { match: "BB-042", result: "Jaipur Kites won by 6 wickets" },
      onlyRecord: { pattern: "BB-\\d{3}", expect: "BB-042" },
    });
    expect(j.pass).toBe(true);
  });

  it("honours normalize: case false", async () => {
    await ws.write("notes/BB-042.md", "match: bb-042\n");
    const j = await note({ path: "notes/BB-042.md", fields: { match: "BB-042" }, normalize: { case: false } });
    expect(j.pass).toBe(false);
    expect(j.reason).toBe("notes/BB-042.md has match: bb-042, expected BB-042");
  });

  it("reports a missing field line", async () => {
    await ws.write("notes/BB-042.md", "match: BB-042\n");
    const j = await note({ path: "notes/BB-042.md", fields: { result: "Jaipur Kites won by 6 wickets" } });
    expect(j.reason).toBe('notes/BB-042.md has no "result:" line (expected result: Jaipur Kites won by 6 wickets)');
  });

  it("does not count a longer id as the record (BB-0421 is not BB-042)", async () => {
    await ws.write("notes/BB-042.md", "match: BB-0421\n");
    const j = await note({ path: "notes/BB-042.md", onlyRecord: { pattern: "BB-\\d{3}", expect: "BB-042" } });
    expect(j.reason).toBe("notes/BB-042.md never names BB-042");
  });

  it("lists every missing and forbidden text with the fields", async () => {
    await ws.write("notes/BB-042.md", "match: BB-042\nPune 28\n");
    const j = await note({
      path: "notes/BB-042.md",
      fields: { match: "BB-042" },
      contains: ["168/6"],
      notContains: ["28"],
    });
    expect(j.reason).toBe('notes/BB-042.md does not contain "168/6"; contains "28" ("28"), which it must not');
  });
});

describe("readFields", () => {
  it("tolerates the markdown people write", () => {
    const fields = readFields(
      [
        "- **match:** BB-042",
        "**Result**: Jaipur Kites won by 6 wickets",
        "## Venue: Pune",
        "> score: 168/6",
        "| Match ID | `BB-042` |",
        "|---|---|",
        "at 12:30 the game started",
        "see https://example.test/x",
      ].join("\n"),
    );
    expect(Object.fromEntries(fields)).toEqual({
      match: ["BB-042"],
      result: ["Jaipur Kites won by 6 wickets"],
      venue: ["Pune"],
      score: ["168/6"],
      "match id": ["BB-042"],
    });
  });
});

describe("the cricket answer check (custom answer check)", () => {
  const BB042 = { scores: ["168/6", "169/4"], result: "Jaipur Kites won by 6 wickets" };

  it("reads cricket scores and the result, as the agent's claim", async () => {
    const right = await judge(
      cricketAnswer(BB042),
      "Pune 168 for 6, Jaipur 169/4: Jaipur Kites beat Pune Pioneers by six wickets.",
    );
    expect(right).toMatchObject({
      kind: "custom",
      name: "answer (cricket)",
      pass: true,
      confidence: "claimed",
      reason: "the answer states what was expected (the agent's claim only)",
    });
    const wrong = await judge(cricketAnswer(BB042), "Pune 28, Jaipur 169/4. Jaipur Kites won by 6 runs.");
    expect(wrong.pass).toBe(false);
    expect(wrong.reason).toBe(
      'the answer does not state the score 168/6 (scores stated: 169/4); states "Jaipur Kites won by 6 runs", but the result is "Jaipur Kites won by 6 wickets"',
    );
    expect(wrong.evidence.cricket).toEqual({ scoresFound: ["169/4"], resultsFound: ["Jaipur Kites won by 6 runs"] });
  });

  it("fails no answer, and honours notContains", async () => {
    expect(await judge(cricketAnswer(BB042), null)).toMatchObject({
      pass: false,
      reason: "the agent gave no final answer",
    });
    const j = await judge(
      cricketAnswer({ ...BB042, notContains: ["BB-024"] }),
      "BB-024: 168/6, 169/4, Jaipur Kites won by 6 wickets",
    );
    expect(j.reason).toBe('the answer contains "BB-024" ("BB-024"), which it must not');
  });

  it("takes the task's confidence over the module's", async () => {
    const j = await judge(
      cricketAnswer(BB042, { confidence: "observed" }),
      "168/6 169/4 Jaipur Kites won by 6 wickets",
    );
    expect(j.confidence).toBe("observed");
  });
});
