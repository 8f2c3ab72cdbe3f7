import { describe, expect, it } from "vitest";
import { collapseWhitespace } from "../../../src/safety/whitespace.js";

/** What the fold must equal: the plain pattern it replaces. */
const plain = (text: string) => text.replace(/\s+/g, " ");

// Every character `\s` matches (ASCII controls, NBSP, the Unicode spaces, line/paragraph
// separators, BOM), plus letters, so runs of every mix and length occur.
const WHITE = [
  " ",
  "\t",
  "\n",
  "\v",
  "\f",
  "\r",
  "\u00a0",
  "\u1680",
  "\u2000",
  "\u200a",
  "\u2028",
  "\u2029",
  "\u202f",
  "\u205f",
  "\u3000",
  "\ufeff",
];
const ALPHABET = [...WHITE, " ", " ", "a", "b", "-"];

/** A small deterministic generator (mulberry32), so a failure names a seed that replays. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("collapseWhitespace", () => {
  it("folds every run of white space to one space, leaving single spaces and other text alone", () => {
    expect(collapseWhitespace("a  b\t\tc \n d")).toBe("a b c d");
    expect(collapseWhitespace(" lead and trail ")).toBe(" lead and trail ");
    expect(collapseWhitespace("a\u00a0b \u2003 c")).toBe("a b c");
    expect(collapseWhitespace("")).toBe("");
  });

  it("gives exactly what /\\s+/g -> ' ' gives, on 5,000 random strings of every white-space mix", () => {
    const next = random(27);
    for (let i = 0; i < 5_000; i++) {
      const length = Math.floor(next() * 24);
      const text = Array.from({ length }, () => ALPHABET[Math.floor(next() * ALPHABET.length)]).join("");
      expect(collapseWhitespace(text), `case ${i}: ${JSON.stringify(text)}`).toBe(plain(text));
    }
  });

  it("gives the same string on a megabytes-long instruction", () => {
    const text = `Look up match BB-042. ${"Context. ".repeat(300_000)}  end\t\n`;
    expect(collapseWhitespace(text)).toBe(plain(text));
  });
});
