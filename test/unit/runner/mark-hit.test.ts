/**
 * The words a click's message carries about the marks it landed on (mark-hit.ts), and how `try`
 * and the self-test read them back: the one place both sides of that sentence are held together.
 */
import { describe, expect, it } from "vitest";
import { aimedMark, hitClause, marksHit, missedMark } from "../../../src/runner/page/mark-hit.js";

describe("mark hits", () => {
  it("names the marks under the point, innermost first, and a missed aim", () => {
    expect(hitClause({ marks: ["name-field", "tray"], under: "input" }, "name-field")).toBe(
      " onto mark name-field (inside tray)",
    );
    expect(hitClause({ marks: ["tray"], under: "div#tray" }, "name-field")).toBe(
      " onto mark tray; it missed its mark name-field",
    );
    expect(hitClause({ marks: ["veil"], under: "div.veil", covered: "buy" }, "buy")).toBe(
      " onto mark veil, which covers its mark buy",
    );
    expect(hitClause({ marks: [], under: 'p "Delete record 7?"' }, null)).toBe(
      ' onto no mark (under the point: p "Delete record 7?")',
    );
  });

  it("reads the aimed mark from the reference model's element words", () => {
    expect(aimedMark("the name field element [name-field] on /tray")).toBe("name-field");
    expect(aimedMark("the [x] thing [save] on /a")).toBe("save");
    expect(aimedMark("the Save button")).toBeNull();
    expect(aimedMark(undefined)).toBeNull();
  });

  it("reads back what a message says; a message that says nothing judges nothing", () => {
    const base = "click sent at (10, 20) CSS px";
    expect(marksHit(`${base}${hitClause({ marks: ["a", "b", "c"], under: "x" }, null)}; input sent`)).toEqual([
      "a",
      "b",
      "c",
    ]);
    expect(marksHit(`${base}${hitClause({ marks: [], under: "div" }, null)}; input sent`)).toEqual([]);
    expect(marksHit(`${base}; input sent`)).toBeNull();
    expect(missedMark("b", `${base} onto mark a (inside b); input sent`)).toBeNull();
    // Landed on the cover of a mark the picture showed covered: played as written.
    expect(
      missedMark("buy", `${base}${hitClause({ marks: ["veil"], under: "div", covered: "buy" }, "buy")}; input sent`),
    ).toBeNull();
    expect(
      missedMark("buy", `${base}${hitClause({ marks: [], under: "div", covered: "buy" }, "buy")}; input sent`),
    ).toBeNull();
    expect(missedMark("z", `${base}; input sent`)).toBeNull();
    expect(missedMark(undefined, `${base} onto mark a; input sent`)).toBeNull();
    expect(missedMark("z", `${base} onto mark a; it missed its mark z; input sent`)).toBe(
      `missed its mark z: ${base} onto mark a; input sent`,
    );
  });
});
