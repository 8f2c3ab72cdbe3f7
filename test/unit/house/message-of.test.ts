/**
 * One way to put a caught `unknown` into a message (src/errors.ts): `messageOf`, or `firstLineOf`
 * where Playwright's call log would follow. The hand-written forms it replaced must not come back.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { firstLineOf, messageOf, UmpireError } from "../../../src/errors.js";

const root = resolve(__dirname, "../../..");

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return path.endsWith(".ts") ? [path] : [];
  });
}

describe("messageOf", () => {
  it("reads an Error's message, an error-like object's message, else the value as text", () => {
    expect(messageOf(new TypeError("bad thing"))).toBe("bad thing");
    expect(messageOf(new UmpireError("input", "a.yaml: no"))).toBe("a.yaml: no");
    expect(messageOf({ message: "from elsewhere" })).toBe("from elsewhere");
    expect(messageOf("plain words")).toBe("plain words");
    expect(messageOf(42)).toBe("42");
    expect(messageOf(null)).toBe("null");
    expect(messageOf(undefined)).toBe("undefined");
    expect(messageOf({ message: 7 })).toBe("[object Object]");
  });

  it("firstLineOf drops what follows the first line (Playwright's call log)", () => {
    const playwright = new Error("page.goto: net::ERR_FAILED\nCall log:\n  - navigating");
    expect(firstLineOf(playwright)).toBe("page.goto: net::ERR_FAILED");
    expect(firstLineOf("one line")).toBe("one line");
  });

  it("src/ and fixtures-site/ write no message of a caught error by hand", () => {
    const guarded = /(\w+) instanceof Error \? \1\.message(?:\.split\([^)]*\)\[0\]!?)? : String\(\1\)/.source;
    const cast = /\(\w+ as Error\)\??\.message/.source;
    const handWritten = new RegExp(`${guarded}|${cast}`);
    const offenders = [...tsFiles(join(root, "src")), ...tsFiles(join(root, "fixtures-site"))]
      .filter((file) => !file.endsWith("errors.ts") && handWritten.test(readFileSync(file, "utf8")))
      .map((file) => relative(root, file));
    expect(offenders).toEqual([]);
  });
});
