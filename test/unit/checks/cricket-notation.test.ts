import { describe, expect, it } from "vitest";
import {
  deriveResult,
  findResults,
  findScores,
  formatResult,
  parseResult,
  parseScore,
  readCricketAnswer,
  sameResult,
  sameTeam,
} from "../../../tasks/checks/cricket-notation.js";
import { findNumbers, parseNumberWord } from "../../../src/checks/numbers.js";

const pune = { team: "Pune Pioneers", score: { runs: 168, wickets: 6 } };
const jaipur = { team: "Jaipur Kites", score: { runs: 169, wickets: 4 } };
const BB042 = { scores: ["168/6", "169/4"], result: "Jaipur Kites won by 6 wickets" };

describe("score notation", () => {
  it("reads 168/6 as 168 runs for 6 wickets, never a division", () => {
    expect(parseScore("168/6")).toEqual({ runs: 168, wickets: 6 });
    expect(parseScore("28")).toBeNull();
    expect(findScores("Pune scored 28")).toEqual([]);
    expect(findNumbers("168/6").map((n) => n.value)).toEqual([168, 6]);
  });
  it("reads the other ways a score is written", () => {
    expect(parseScore("168-6")).toEqual({ runs: 168, wickets: 6 });
    expect(parseScore("168\u20136")).toEqual({ runs: 168, wickets: 6 });
    expect(parseScore("168 for 6")).toEqual({ runs: 168, wickets: 6 });
    expect(parseScore("168 for six")).toEqual({ runs: 168, wickets: 6 });
    expect(parseScore("143 all out")).toEqual({ runs: 143, wickets: 10 });
  });
  it("reads wickets-first notation only when it is unambiguous", () => {
    expect(parseScore("6/168")).toEqual({ runs: 168, wickets: 6 });
    expect(parseScore("6/8")).toEqual({ runs: 6, wickets: 8 });
    expect(parseScore("168/69")).toBeNull();
  });
  it("does not read dates, ids or overs as scores", () => {
    expect(findScores("on 2024-05-12 (12/05/2024), match BB-042, 18.3 overs")).toEqual([]);
  });
  it("finds every score in a sentence with its position", () => {
    const found = findScores("Pune Pioneers 168/6 (20 ov), Jaipur Kites 169-4 (18.3 ov)");
    expect(found.map((s) => [s.runs, s.wickets, s.text])).toEqual([
      [168, 6, "168/6"],
      [169, 4, "169-4"],
    ]);
  });
});

describe("number words", () => {
  it("reads words up to ninety-nine", () => {
    expect(parseNumberWord("six")).toBe(6);
    expect(parseNumberWord("Seventeen")).toBe(17);
    expect(parseNumberWord("twenty-one")).toBe(21);
    expect(parseNumberWord("ninety nine")).toBe(99);
    expect(parseNumberWord("sixish")).toBeNull();
  });
  it("finds digits and words in prose without reading id separators as signs", () => {
    expect(findNumbers("BB-042 won by six wickets, -3 and \u22124.5, 1,234").map((n) => n.value)).toEqual([
      42, 6, -3, -4.5, 1234,
    ]);
  });
});

describe("deriveResult", () => {
  it("gives the chasing side a win by 10 minus wickets lost: 169/4 chasing 168/6 won by 6 wickets", () => {
    const result = deriveResult(pune, jaipur);
    expect(result).toEqual({ kind: "win", winner: "Jaipur Kites", margin: 6, unit: "wickets" });
    expect(formatResult(result)).toBe("Jaipur Kites won by 6 wickets");
  });
  it("gives the side batting first a win by runs when the chase falls short", () => {
    const result = deriveResult(
      { team: "A", score: { runs: 180, wickets: 6 } },
      { team: "B", score: { runs: 168, wickets: 9 } },
    );
    expect(formatResult(result)).toBe("A won by 12 runs");
    expect(
      formatResult(
        deriveResult({ team: "A", score: { runs: 150, wickets: 6 } }, { team: "B", score: { runs: 149, wickets: 10 } }),
      ),
    ).toBe("A won by 1 run");
  });
  it("recognises a tie and refuses impossible innings", () => {
    expect(
      deriveResult({ team: "A", score: { runs: 150, wickets: 6 } }, { team: "B", score: { runs: 150, wickets: 8 } }),
    ).toEqual({ kind: "tie" });
    expect(() => deriveResult(pune, { team: "B", score: { runs: 170, wickets: 10 } })).toThrow(RangeError);
    expect(() => deriveResult({ team: "A", score: { runs: 150, wickets: 11 } }, jaipur)).toThrow(
      /wickets must be 0..10/,
    );
  });
});

describe("result sentences", () => {
  const sixWickets = { kind: "win", winner: "Jaipur Kites", margin: 6, unit: "wickets" };
  it.each([
    "Jaipur Kites won by 6 wickets",
    "Done. Jaipur Kites won by 6 wickets.",
    "Jaipur Kites beat Pune Pioneers by six wickets",
    "Pune Pioneers lost to Jaipur Kites by 6 wkts",
    "Pune Pioneers were defeated by Jaipur Kites by 6 wickets",
    "Jaipur Kites chased down 168/6 to win by six wickets",
    "Pune Pioneers 168/6 and Jaipur Kites 169/4 - Jaipur Kites won by 6 wickets",
    "Result: Jaipur Kites won by 6 wickets (18.3 overs)",
  ])("reads %j", (sentence) => {
    expect(parseResult(sentence)).toEqual(sixWickets);
  });
  it("reads runs margins and ties", () => {
    expect(parseResult("Pune Pioneers won by twelve runs")).toEqual({
      kind: "win",
      winner: "Pune Pioneers",
      margin: 12,
      unit: "runs",
    });
    expect(parseResult("The match tied.")).toEqual({ kind: "tie" });
  });
  it("returns null when no winner can be read", () => {
    expect(parseResult("won by 6 wickets")).toBeNull();
    expect(parseResult("a close game")).toBeNull();
  });
  it("compares results by winner, margin and unit", () => {
    const want = parseResult("Jaipur Kites won by 6 wickets")!;
    expect(sameResult(parseResult("So the Kites won by 6 wickets")!, want)).toBe(true);
    expect(sameResult(parseResult("Pune Pioneers won by 6 wickets")!, want)).toBe(false);
    expect(sameResult(parseResult("Jaipur Kites won by 6 runs")!, want)).toBe(false);
    expect(sameResult(parseResult("Jaipur Kites won by 4 wickets")!, want)).toBe(false);
    expect(sameTeam("the Jaipur Kites", "Jaipur Kites")).toBe(true);
    expect(sameTeam("Pune", "Jaipur Kites")).toBe(false);
  });
  it("finds every result stated in a longer answer", () => {
    expect(findResults("Jaipur Kites won by 6 wickets. Earlier, Pune Pioneers won by 3 runs.")).toHaveLength(2);
  });
});

describe("readCricketAnswer", () => {
  it("passes an answer that states both scores and the same result", () => {
    const reading = readCricketAnswer(
      "Pune Pioneers 168/6, Jaipur Kites 169 for 4. Jaipur Kites beat Pune by six wickets.",
      BB042,
    );
    expect(reading).toMatchObject({ pass: true, failures: [], scoresFound: ["168/6", "169/4"] });
  });
  it("fails an answer that turned a score into a division", () => {
    const reading = readCricketAnswer("Pune 28, Jaipur 42.25. Jaipur Kites won by 6 wickets.", BB042);
    expect(reading.pass).toBe(false);
    expect(reading.failures[0]).toBe("does not state the score 168/6 (scores stated: none)");
  });
  it("fails an answer with the wrong winner or no result", () => {
    expect(readCricketAnswer("168/6 and 169/4; Pune Pioneers won by 6 wickets", BB042).failures).toEqual([
      'states "168/6 and 169/4; Pune Pioneers won by 6 wickets", but the result is "Jaipur Kites won by 6 wickets"',
    ]);
    expect(readCricketAnswer("168/6 and 169/4", BB042).failures).toEqual([
      'does not state the result (expected "Jaipur Kites won by 6 wickets")',
    ]);
  });
  it("refuses an expectation it cannot read", () => {
    expect(() => readCricketAnswer("x", { scores: [], result: "a famous victory" })).toThrow(
      /cannot read the expected result/,
    );
  });
});
