/**
 * The project's task files: all valid, the suite the issue asks for, and expected values that
 * agree with the fixture's data (the pinned records in fixtures-site/data/matches.ts).
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { getMatch, scoreOf } from "../../../fixtures-site/data/matches.js";
import { loadTasks } from "../../../src/task/loader.js";
import type { Task } from "../../../src/task/schema.js";
import { REPO_ROOT } from "./helpers.js";

const { tasks, problems, files } = loadTasks(["tasks"], { cwd: REPO_ROOT });
const byId = new Map(tasks.map((t) => [t.id, t]));
const task = (id: string): Task => {
  const found = byId.get(id);
  if (!found) throw new Error(`no task ${id}`);
  return found;
};
const stepsOf = (steps: Task["reference"]) => steps.map((s) => (s.target ? `${s.tool}:${s.target}` : s.tool));

describe("tasks/", () => {
  it("validates clean: no errors and no warnings", () => {
    expect(problems).toEqual([]);
    expect(files.every((f) => f.valid)).toBe(true);
  });

  it("holds at least 12 tasks, among them every kind the issue names", () => {
    expect(tasks.length).toBeGreaterThanOrEqual(12);
    const scenarios = new Set(tasks.map((t) => t.start.scenario));
    for (const s of [
      "plain",
      "cookie-escape",
      "cookie-reject",
      "cookie-reappear",
      "canvas",
      "lazy",
      "slow-save",
      "injection",
    ])
      expect(scenarios, s).toContain(s);
    for (const id of [
      "scorecard-note-bb042",
      "answer-only-bb042",
      "trap-date-bb042",
      "api-note-bb042",
      "long-scroll-bb017",
      "infeasible-bb999",
      "compare-bb007-bb031",
    ]) {
      expect(byId.has(id), id).toBe(true);
    }
  });

  it("every file points editors at the JSON Schema", () => {
    for (const t of tasks) {
      expect(fs.readFileSync(path.join(REPO_ROOT, t.file), "utf8"), t.file).toMatch(
        /^\$schema: \.\.\/schema\/task\.schema\.json$/m,
      );
    }
  });

  it("scorecard-note-bb042 plays the gold path and declares the three negatives", () => {
    const t = task("scorecard-note-bb042");
    expect(stepsOf(t.reference)).toEqual([
      "click:search-box",
      "write",
      "click:result-BB-042",
      "click:add-note",
      "click:note-body",
      "write",
      "click:note-save",
      "click:confirm-save",
      "answer",
    ]);
    expect(Object.keys(t.negatives).sort()).toEqual(["forget-save", "premature-answer", "wrong-record"]);
    expect(stepsOf(t.negatives["wrong-record"])).toContain("click:result-BB-024");
    expect(stepsOf(t.negatives["forget-save"])).not.toContain("click:note-save");
    expect(t.negatives["premature-answer"].map((s) => s.tool).filter((x) => x === "write")).toHaveLength(1);
  });

  it("cookie tasks dismiss the dialog before Save, and each declares a loop that clicks the covered Save 6 times", () => {
    const cookies = tasks.filter((t) => t.start.scenario.startsWith("cookie-"));
    expect(cookies).toHaveLength(3);
    for (const t of cookies) {
      const steps = stepsOf(t.reference);
      const dismiss =
        t.start.scenario === "cookie-escape" ? steps.indexOf("press") : steps.indexOf("click:cookie-reject");
      expect(dismiss, t.id).toBeGreaterThan(-1);
      expect(dismiss, t.id).toBeLessThan(steps.indexOf("click:note-save"));
      if (t.start.scenario === "cookie-reappear")
        expect(steps.filter((s) => s === "click:cookie-reject")).toHaveLength(2);
      const loop = stepsOf(t.negatives.loop);
      expect(
        loop.filter((s) => s === "click:note-save"),
        t.id,
      ).toHaveLength(6);
      expect(loop.at(-1)).toBe("answer");
    }
  });

  it("the gold BB-042 note states the fixture's scores and result", () => {
    const match = getMatch("BB-042")!;
    const note = task("scorecard-note-bb042").reference.find(
      (s) => s.tool === "write" && String(s.args.content).startsWith("match:"),
    )!.args.content;
    expect(note).toBe(
      `match: BB-042\nteams: ${match.teams.join(" vs ")}\nscores: ${match.innings.map((i) => `${i.team} ${scoreOf(i)}`).join(", ")}\nresult: ${match.result}\n`,
    );
    const noteCheck = task("scorecard-note-bb042").checks.find(
      (c) =>
        c.kind === "custom" && c.export === "note" && (c.options.fields as { result?: string } | undefined)?.result,
    );
    expect(noteCheck).toMatchObject({ module: "./checks/cricket.ts", options: { fields: { result: match.result } } });
  });

  it("answer checks agree with the fixture data", () => {
    const bb042 = getMatch("BB-042")!;
    const cricketAnswer = (id: string) => task(id).checks.find((c) => c.kind === "custom" && c.export === "answer");
    expect(cricketAnswer("answer-only-bb042")).toMatchObject({
      required: true,
      module: "./checks/cricket.ts",
      options: { scores: bb042.innings.map(scoreOf), result: bb042.result },
    });

    const bb017 = getMatch("BB-017")!;
    expect(cricketAnswer("long-scroll-bb017")).toMatchObject({
      options: { scores: [scoreOf(bb017.innings[0])], result: bb017.result },
    });

    const [a, b] = [getMatch("BB-007")!, getMatch("BB-031")!];
    const higher = a.innings[0].runs > b.innings[0].runs ? a : b;
    const compare = task("compare-bb007-bb031").checks.find((c) => c.kind === "answer")!;
    expect(compare).toMatchObject({
      required: true,
      contains: [higher.id, { regex: `\\b${higher.innings[0].runs}\\b` }],
    });

    expect(getMatch("BB-999")).toBeUndefined();
  });

  it("the API task uses only http_get, write_note and answer, with an allow list", () => {
    const t = task("api-note-bb042");
    expect([...t.tools].sort()).toEqual(["answer", "http_get", "write_note"]);
    expect(t.permissions.httpAllow).toEqual(["/api/matches/"]);
  });

  it("safety and timing tasks check what the issue asks", () => {
    const effects = (id: string) => task(id).checks.filter((c) => c.kind === "effects");
    expect(
      effects("injection-note-bb042").some((c) => c.required && c.forbid.some((f) => f.type === "match_deleted")),
    ).toBe(true);
    expect(
      effects("slow-save-note-bb042").some(
        (c) => c.required && c.require.some((r) => r.type === "note_saved" && r.count === 1),
      ),
    ).toBe(true);
    expect(stepsOf(task("slow-save-note-bb042").reference).slice(-2)).toEqual(["wait", "answer"]);
    expect(stepsOf(task("lazy-note-bb042").reference)).toContain("wait");
    expect(
      task("long-scroll-bb017")
        .reference.filter((s) => s.tool === "scroll")
        .every((s) => s.target),
    ).toBe(true);
    const infeasible = task("infeasible-bb999");
    expect(infeasible.checks).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: "file", path: "notes/BB-999.md", exists: false }),
        expect.objectContaining({ kind: "effects", forbid: expect.arrayContaining([{ type: "note_saved" }]) }),
      ]),
    );
  });

  it("answer checks are advisory wherever a file is the real outcome", () => {
    for (const t of tasks) {
      const hasFile = t.checks.some((c) => c.kind === "file" && c.exists);
      if (!hasFile) continue;
      for (const c of t.checks.filter((c) => c.kind === "answer")) expect(c.required, t.id).toBe(false);
    }
  });
});
