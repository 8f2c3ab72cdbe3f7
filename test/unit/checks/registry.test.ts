import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HANDLERS, confidenceOf, runChecks } from "../../../src/checks/registry.js";
import { summarizeClaim, verdictOf } from "../../../src/checks/verdict.js";
import type { CheckResult } from "../../../src/checks/types.js";
import type { CheckSpec } from "../../../src/task/schema.js";
import { NOTE_CHECK, RIGHT_NOTE, cricketAnswer, spec, tempWorkspace, type TempWorkspace } from "./workspace.js";

let ws: TempWorkspace;
beforeEach(async () => {
  ws = await tempWorkspace();
});
afterEach(() => ws.remove());

const RIGHT_ANSWER = "Done. Pune Pioneers 168/6, Jaipur Kites 169/4. Jaipur Kites won by 6 wickets.";
const SEED_CHECKS: CheckSpec[] = [
  spec(NOTE_CHECK),
  spec({
    kind: "effects",
    require: [{ type: "note_saved", where: { name: "BB-042.md" }, count: 1 }],
    forbid: [{ type: "match_deleted" }],
  }),
  spec(cricketAnswer({ scores: ["168/6", "169/4"], result: "Jaipur Kites won by 6 wickets" }, { required: false })),
];
const savedOnce = [{ type: "note_saved", at: "t1", detail: { name: "BB-042.md" } }];

describe("runChecks and verdictOf", () => {
  it("passes a trial whose note, effects and answer are right", async () => {
    await ws.write("notes/BB-042.md", RIGHT_NOTE);
    const results = await runChecks(SEED_CHECKS, ws.ctx({ effects: savedOnce, answer: RIGHT_ANSWER }));
    expect(results.map((r) => [r.kind, r.pass])).toEqual([
      ["custom", true],
      ["effects", true],
      ["custom", true],
    ]);
    expect(verdictOf(results)).toBe("passed");
    expect(summarizeClaim(RIGHT_ANSWER, results)).toEqual({
      claimed: true,
      verified: true,
      falseSuccess: false,
      silentSuccess: false,
      declaredFailure: null,
    });
  });

  it("fails a trial with no note even though the answer is right: a false success", async () => {
    const results = await runChecks(SEED_CHECKS, ws.ctx({ effects: [], answer: RIGHT_ANSWER }));
    const [file, effects, answer] = results;
    expect(file).toMatchObject({
      pass: false,
      required: true,
      reason: "notes/BB-042.md does not exist (the workspace is empty)",
    });
    expect(effects.pass).toBe(false);
    expect(answer).toMatchObject({ pass: true, confidence: "claimed" });
    expect(verdictOf(results)).toBe("failed");
    expect(summarizeClaim(RIGHT_ANSWER, results)).toMatchObject({ claimed: true, verified: false, falseSuccess: true });
  });

  it("does not fail the verdict for an advisory failure", async () => {
    await ws.write("notes/BB-042.md", RIGHT_NOTE);
    const results = await runChecks(SEED_CHECKS, ws.ctx({ effects: savedOnce, answer: "Saved the note." }));
    expect(results[2]).toMatchObject({ required: false, pass: false });
    expect(verdictOf(results)).toBe("passed");
  });

  it("turns a crashing handler into a failed, flagged result and the verdict into error", async () => {
    await ws.write("notes/BB-042.md", RIGHT_NOTE);
    const specs = [spec(NOTE_CHECK), spec({ kind: "page", selector: "[data-mark=cookie-dialog]", state: "hidden" })];
    const results = await runChecks(specs, ws.ctx({ effects: savedOnce, answer: RIGHT_ANSWER }));
    expect(results[0].pass).toBe(true);
    expect(results[1]).toMatchObject({
      kind: "page",
      pass: false,
      crashed: true,
      confidence: "observed",
      reason: "check crashed: no browser page to look at (the trial gave the checks no page probe)",
    });
    expect(verdictOf(results)).toBe("error");
    // An error is the harness's fault: it is not counted as the agent's false success.
    expect(summarizeClaim(RIGHT_ANSWER, results)).toMatchObject({
      claimed: true,
      verified: false,
      falseSuccess: false,
    });
  });

  it("reports an invalid regex at run time as a crash naming the pattern", async () => {
    await ws.write("notes/BB-042.md", RIGHT_NOTE);
    const [result] = await runChecks(
      [spec({ kind: "file", path: "notes/BB-042.md", contains: [{ regex: "168/(6" }] })],
      ws.ctx(),
    );
    expect(result).toMatchObject({ crashed: true, pass: false });
    expect(result.reason).toMatch(/^check crashed: invalid regular expression \/168\/\(6\//);
  });

  it("reports an unknown kind as a crash instead of throwing", async () => {
    const bogus = { kind: "telepathy", required: true } as unknown as CheckSpec;
    const [result] = await runChecks([bogus], ws.ctx());
    expect(result).toMatchObject({
      kind: "telepathy",
      crashed: true,
      reason: 'check crashed: no handler for check kind "telepathy"',
    });
  });

  it("ignores an advisory crash in the verdict but reports it", async () => {
    await ws.write("notes/BB-042.md", RIGHT_NOTE);
    const specs = [spec(NOTE_CHECK), spec({ kind: "page", required: false, selector: "body" })];
    const results = await runChecks(specs, ws.ctx());
    expect(results[1].crashed).toBe(true);
    expect(verdictOf(results)).toBe("passed");
  });

  it("gives an error verdict for an infrastructure failure, in either calling form", async () => {
    await ws.write("notes/BB-042.md", RIGHT_NOTE);
    const results = await runChecks([spec(NOTE_CHECK)], ws.ctx());
    expect(verdictOf(results, { infraError: true })).toBe("error");
    expect(verdictOf(results, { infraError: false })).toBe("passed");
  });

  it("fills names, timing and JSON-serialisable evidence", async () => {
    await ws.write("notes/BB-042.md", RIGHT_NOTE);
    const results = await runChecks([spec({ kind: "file", path: "notes/BB-042.md" }), spec(NOTE_CHECK)], ws.ctx());
    expect(results.map((r) => r.name)).toEqual(["file notes/BB-042.md", NOTE_CHECK.name]);
    for (const r of results) expect(r.ms).toBeGreaterThanOrEqual(0);
    expect(JSON.parse(JSON.stringify(results))).toEqual(results);
  });
});

describe("confidence per kind", () => {
  it("is verified for file and effects, observed for page, claimed for answer", async () => {
    expect({
      file: confidenceOf("file"),
      effects: confidenceOf("effects"),
      page: confidenceOf("page"),
      answer: confidenceOf("answer"),
    }).toEqual({
      file: "verified",
      effects: "verified",
      page: "observed",
      answer: "claimed",
    });
    const results = await runChecks(SEED_CHECKS, ws.ctx({ answer: RIGHT_ANSWER }));
    expect(results.map((r) => r.confidence)).toEqual(["verified", "verified", "claimed"]);
  });

  it("is exhaustive: a registry missing a kind does not compile", () => {
    // @ts-expect-error: the answer handler is missing, so this is not a complete registry.
    const partial: typeof HANDLERS = { file: HANDLERS.file, page: HANDLERS.page, effects: HANDLERS.effects };
    expect(Object.keys(partial)).not.toContain("answer");
  });
});

describe("summarizeClaim", () => {
  const passed: CheckResult[] = [
    { kind: "file", name: "f", required: true, pass: true, reason: "ok", evidence: {}, confidence: "verified", ms: 1 },
  ];
  const failed: CheckResult[] = [{ ...passed[0], pass: false }];

  it("counts no answer as no claim, so a verified trial at the turn cap is a silent success", () => {
    expect(summarizeClaim(null, passed)).toMatchObject({
      claimed: false,
      verified: true,
      silentSuccess: true,
      falseSuccess: false,
    });
    expect(summarizeClaim("  ", passed).claimed).toBe(false);
  });

  it("does not count an answer that says the task failed as a claim", () => {
    const s = summarizeClaim("I could not save the note: the Save button stayed covered.", failed);
    expect(s).toMatchObject({ claimed: false, falseSuccess: false, declaredFailure: "could not" });
    expect(summarizeClaim("I was unable to find the match", failed).claimed).toBe(false);
  });

  it("counts 'BB-999 does not exist' as the claim of an infeasible task", () => {
    expect(summarizeClaim("BB-999 does not exist.", passed, { infeasible: true })).toMatchObject({
      claimed: true,
      verified: true,
      silentSuccess: false,
    });
    expect(summarizeClaim("BB-999 does not exist.", passed)).toMatchObject({
      claimed: false,
      silentSuccess: true,
      declaredFailure: "does not exist",
    });
  });
});
