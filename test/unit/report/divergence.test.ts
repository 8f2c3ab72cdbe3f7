/**
 * The divergence finder's rules on small trajectories, with the real action-signature rule of
 * the repetition module and a table of screen similarities: screens that parted before the
 * actions did, a trial that ended first, trajectories that never parted, and which repeats stand
 * for a flipped task.
 */
import { describe, expect, it } from "vitest";
import {
  describeTurn,
  divergenceLine,
  divergenceSection,
  findDivergence,
  SCREENS_APART,
  type TrajectorySide,
  type TrajectoryTurn,
} from "../../../src/report/divergence.js";
import { representative } from "../../../src/report/divergence-pairs.js";
import type { TaskRow } from "../../../src/report/compare.js";
import type { TrialRecord } from "../../../src/store/records.js";
import { sameAttempt } from "../../../src/runner/trial/repetition/signature.js";

const shot = (name: string) => ({ path: `/screens/${name}.png`, width: 1280, height: 800 });
const click = (x: number, y: number, element = "a button") => ({
  tool: "click",
  args: { element, x, y },
  status: "success" as const,
});
const turn = (idx: number, screen: string, ...actions: TrajectoryTurn["actions"]): TrajectoryTurn => ({
  idx,
  actions,
  screenshot: shot(screen),
});

function side(id: string, verdict: "passed" | "failed", turns: TrajectoryTurn[]): TrajectorySide {
  return { trialId: id, seq: 0, runId: id.split("/")[0]!, repeat: 0, verdict, stopReason: "answered", turns };
}

/** Similarity by screen name: the same name is 100% alike, listed pairs as given, else 50%. */
function tools(pairs: Record<string, number> = {}) {
  return {
    sameAction: (a: any, b: any) => sameAttempt(a, b),
    screenSimilarity: (a: { path: string }, b: { path: string }) =>
      a.path === b.path ? 1 : (pairs[`${a.path}|${b.path}`] ?? 0.5),
  };
}

describe("findDivergence", () => {
  it("parts at the first turn whose actions differ by signature; the element's wording is not part of it", () => {
    const base = side("A/1", "passed", [
      turn(1, "home", click(500, 400, "Search box")),
      turn(2, "results", click(360, 250)),
      turn(3, "match"),
    ]);
    const cand = side("B/1", "failed", [
      turn(1, "home", click(505, 395, "the search box [search-box]")),
      turn(2, "results", click(360, 300)),
      turn(3, "other"),
    ]);
    const d = findDivergence("t", "pass->fail", base, cand, tools());
    expect(d).toMatchObject({ turn: 2, cause: "actions", similarity: 1 });
    expect(d.baseTurns[0]!.idx).toBe(2);
    expect(d.candidateTurns[1]!.idx).toBe(3);
    expect(divergenceLine(d)).toMatch(
      /^task t flipped pass->fail: diverged at turn 2: baseline click 'a button' at \(360, 250\), candidate click 'a button' at \(360, 300\) \(point differs\); screens 100% alike before/,
    );
    const markdown = divergenceSection([d], "A", "B", true);
    expect(markdown).toContain(
      "### Where the flipped tasks diverged\n\n- task t flipped pass->fail: diverged at turn 2:",
    );
    expect(markdown).toContain("Side by side: `umpire report B --baseline A`");
    expect(divergenceSection([], "A", "B")).toBe("");
  });

  it("screens less alike than the line part the trajectories even when the actions agree", () => {
    const base = side("A/1", "passed", [turn(1, "home", click(500, 400)), turn(2, "saved", click(100, 100))]);
    const cand = side("B/1", "failed", [turn(1, "home", click(500, 400)), turn(2, "error-page", click(100, 100))]);
    const below = findDivergence(
      "t",
      "pass->fail",
      base,
      cand,
      tools({ "/screens/saved.png|/screens/error-page.png": SCREENS_APART - 0.01 }),
    );
    expect(below).toMatchObject({ turn: 2, cause: "screens" });
    expect(divergenceLine(below)).toContain("screens 89% alike (the pages had already parted)");
    const above = findDivergence(
      "t",
      "pass->fail",
      base,
      cand,
      tools({ "/screens/saved.png|/screens/error-page.png": SCREENS_APART + 0.05 }),
    );
    expect(above).toMatchObject({ turn: null, cause: null, screensCompared: { turns: 2, compared: 2 } });
    expect(divergenceLine(above)).toContain(": the same actions on alike screens at every turn (");
  });

  it("trajectories that never parted say 'alike screens' only of screens that were compared", () => {
    const bare = (idx: number, ...actions: TrajectoryTurn["actions"]): TrajectoryTurn => ({
      idx,
      actions,
      screenshot: null,
    });
    const base = side("A/1", "passed", [bare(1, click(500, 400)), turn(2, "saved", click(100, 100))]);
    const none = side("B/1", "failed", [bare(1, click(500, 400)), bare(2, click(100, 100))]);
    const noScreens = findDivergence("t", "pass->fail", base, none, tools());
    expect(noScreens).toMatchObject({ turn: null, screensCompared: { turns: 2, compared: 0 } });
    expect(divergenceLine(noScreens)).toContain(
      ": the same actions at every turn (screens not compared: no turn has a screenshot on each side) (",
    );
    const some = side("B/1", "failed", [bare(1, click(500, 400)), turn(2, "saved", click(100, 100))]);
    expect(divergenceLine(findDivergence("t", "pass->fail", base, some, tools()))).toContain(
      ": the same actions at every turn, on alike screens at the 1 of 2 turns with both screenshots (",
    );
  });

  it("a trial that ended first parts at the turn the other one still played", () => {
    const answered: TrajectoryTurn = { idx: 2, actions: [], screenshot: shot("form"), answer: "Done." };
    const base = side("A/1", "passed", [
      turn(1, "form", click(10, 10)),
      turn(2, "form", click(20, 20)),
      turn(3, "dialog", click(30, 30)),
    ]);
    const cand = side("B/1", "failed", [turn(1, "form", click(10, 10)), answered]);
    expect(findDivergence("t", "pass->fail", base, cand, tools())).toMatchObject({ turn: 2, cause: "actions" });
    const shorter = side("B/1", "failed", [turn(1, "form", click(10, 10)), turn(2, "form", click(20, 20))]);
    const d = findDivergence("t", "pass->fail", base, shorter, tools());
    expect(d).toMatchObject({ turn: 3, cause: "ended", similarity: null });
    expect(describeTurn(d.candidateTurns[0])).toBe("no turn (the trial had ended)");
    expect(describeTurn(answered)).toBe('answer "Done."');
  });
});

describe("naming the argument that differs (issue 36)", () => {
  const get = (path: string) => ({ tool: "http_get", args: { path }, status: "success" as const });
  it("says every argument of a tool by name, and names the ones that differ between the two turns", () => {
    const base = side("A/1", "passed", [turn(1, "home", get("/api/matches/BB-042"))]);
    const cand = side("B/1", "failed", [turn(1, "home", get("/api/matches/BB-024"))]);
    const d = findDivergence("api", "pass->fail", base, cand, tools());
    expect(d).toMatchObject({ turn: 1, cause: "actions" });
    expect(divergenceLine(d)).toMatch(
      /diverged at turn 1: baseline http_get path \/api\/matches\/BB-042, candidate http_get path \/api\/matches\/BB-024 \(path differs\);/,
    );
    const note = (name: string, content: string) => ({
      tool: "write_note",
      args: { name, content },
      status: "success" as const,
    });
    const write = { tool: "write", args: { content: "BB-042", press_enter: false }, status: "success" as const };
    expect(describeTurn(turn(2, "x", write))).toBe('write "BB-042"');
    expect(describeTurn(turn(2, "x", note("BB-042.md", "match: BB-042")))).toBe(
      'write_note "match: BB-042" name BB-042.md',
    );
  });
});

describe("which trials stand for a flipped task", () => {
  const row: TaskRow = { key: "t", taskId: "t", cells: [], changed: false };
  const trial = (
    seq: number,
    repeat: number,
    verdict: TrialRecord["verdict"],
    taskId = "t",
    status: TrialRecord["status"] = "done",
  ) =>
    ({
      id: `r-${seq}`,
      seq,
      repeat,
      verdict,
      taskId,
      status,
      mode: "structured",
      model: "m",
      agentLabel: "m/structured",
    }) as TrialRecord;

  it("the lowest repeat with the verdict wanted, among finished trials of the row", () => {
    const trials = [
      trial(0, 2, "passed"),
      trial(1, 1, "failed"),
      trial(2, 0, "error"),
      trial(3, 1, "passed"),
      trial(4, 0, "passed", "other"),
      trial(5, 0, "passed", "t", "running"),
    ];
    expect(representative(trials, row, "passed")!.seq).toBe(3);
    expect(representative(trials, row, "failed")!.seq).toBe(1);
    expect(representative(trials, { ...row, mode: "tools" }, "passed")).toBeNull();
  });
});
