import { describe, expect, it } from "vitest";
import { checkMatchers, describeMatcher, findText, normalizeText } from "../../../src/checks/text-match.js";

const ALL = { case: true, whitespace: true, dashes: true };
const NONE = { case: false, whitespace: false, dashes: false };

describe("normalizeText", () => {
  it("maps unicode dashes and the minus sign to '-'", () => {
    expect(normalizeText("BB\u2013042 BB\u2014042 BB\u2212042 BB\u2011042 BB\uFF0D042", ALL)).toBe(
      "bb-042 bb-042 bb-042 bb-042 bb-042",
    );
  });
  it("drops soft hyphens and zero-width spaces", () => {
    expect(normalizeText("BB\u00AD-042\u200B", ALL)).toBe("bb-042");
  });
  it("collapses white space, including non-breaking spaces and newlines", () => {
    expect(normalizeText("  Jaipur\u00A0Kites \n won\tby 6 ", ALL)).toBe("jaipur kites won by 6");
  });
  it("leaves text alone when every option is off", () => {
    expect(normalizeText("BB\u2013042  X", NONE)).toBe("BB\u2013042  X");
  });
  it("composes unicode so precomposed and combining forms compare equal", () => {
    expect(normalizeText("Cafe\u0301", NONE)).toBe(normalizeText("Caf\u00E9", NONE));
  });
});

describe("findText", () => {
  it("matches plain text after normalising both sides", () => {
    // The match is reported in the text's own case, with white space collapsed.
    expect(findText("Result: Jaipur  Kites WON by 6 wickets", "jaipur kites won", ALL)?.matched).toBe(
      "Jaipur Kites WON",
    );
    expect(findText("match BB\u2013042", "BB-042", ALL)).not.toBeNull();
  });
  it("respects case when case-insensitivity is off", () => {
    expect(findText("bb-042", "BB-042", { ...ALL, case: false })).toBeNull();
  });
  it("runs regexes on dash-normalised text and adds the i flag for case-insensitive checks", () => {
    expect(findText("match: bb\u2013042", { regex: "BB-\\d{3}" }, ALL)?.matched).toBe("bb-042");
    expect(findText("match: bb-042", { regex: "BB-\\d{3}" }, { ...ALL, case: false })).toBeNull();
  });
  it("keeps line structure for regexes", () => {
    expect(findText("a\nresult: x", { regex: "^result:", flags: "m" }, ALL)).not.toBeNull();
  });
  it("returns an excerpt around the match", () => {
    const long = `${"x".repeat(500)} needle ${"y".repeat(500)}`;
    const found = findText(long, "needle", ALL)!;
    expect(found.excerpt).toContain("needle");
    expect(found.excerpt.length).toBeLessThan(200);
  });
  it("names the pattern when a regex is invalid", () => {
    expect(() => findText("x", { regex: "(" }, ALL)).toThrow(/invalid regular expression \/\(\//);
  });
});

describe("checkMatchers", () => {
  it("reports missing and forbidden text as actionable phrases", () => {
    const report = checkMatchers("Pune 168/6", ["168/6", "169/4"], [{ regex: "BB-024" }, "pune"], ALL);
    expect(report.failures).toEqual(['does not contain "169/4"', 'contains "pune" ("Pune"), which it must not']);
    expect(report.details.map((d) => d.pass)).toEqual([true, false, true, false]);
  });
  it("describes matchers as written", () => {
    expect(describeMatcher("169/4")).toBe('"169/4"');
    expect(describeMatcher({ regex: "BB-\\d+", flags: "i" })).toBe("/BB-\\d+/i");
  });
});
