import { describe, expect, it } from "vitest";
import { checkDeclarationProblems } from "../../../src/checks/declaration.js";
import { NOTE_CHECK, spec } from "./workspace.js";

const problems = (input: { kind: "file" | "page" | "effects" | "answer" } & Record<string, unknown>) => checkDeclarationProblems(spec(input));

describe("checkDeclarationProblems", () => {
  it("accepts the seed's checks", () => {
    expect(problems(NOTE_CHECK)).toEqual([]);
    expect(problems({ kind: "page", open: "/notes?match=BB-042", selector: "[data-mark=cookie-dialog]", state: "hidden" })).toEqual([]);
    expect(problems({ kind: "effects", require: [{ type: "note_saved", count: 1 }] })).toEqual([]);
    expect(problems({ kind: "answer", cricket: { scores: ["168/6"], result: "Jaipur Kites won by 6 wickets" } })).toEqual([]);
  });

  it("rejects paths that would leave the workspace", () => {
    expect(problems({ kind: "file", path: "../notes/x.md" })).toEqual([
      { path: "path", message: '"../notes/x.md" uses "..", which could leave the workspace; file checks only read inside the trial workspace' },
    ]);
    expect(problems({ kind: "file", path: "/etc/passwd" })[0].message).toMatch(/is absolute/);
    expect(problems({ kind: "file", path: "C:\\x" })[0].message).toMatch(/is absolute/);
  });

  it("names every invalid regex by its dotted path", () => {
    const found = problems({ kind: "file", path: "a.md", contains: ["ok", { regex: "(" }], onlyRecord: { pattern: "BB-[", expect: "BB-042" } });
    expect(found.map((p) => p.path)).toEqual(["contains[1].regex", "onlyRecord.pattern"]);
    expect(problems({ kind: "page", url: { regex: "*x" } })[0].path).toBe("url.regex");
  });

  it("catches declarations that could never pass", () => {
    expect(problems({ kind: "file", path: "a.md", onlyRecord: { pattern: "BB-\\d{3}", expect: "BB-42" } })[0].path).toBe("onlyRecord.expect");
    expect(problems({ kind: "file", path: "a.md", exists: false, contains: ["x"] })[0].path).toBe("exists");
    expect(problems({ kind: "answer", cricket: { result: "a thrilling finish" } })[0].path).toBe("cricket.result");
    expect(problems({ kind: "answer", present: false, contains: ["x"] })[0].path).toBe("present");
    expect(problems({ kind: "effects", require: [{ type: "note_saved", count: 1, min: 1 }] })[0].path).toBe("require[0]");
    expect(problems({ kind: "effects" })[0].message).toMatch(/at least one entry/);
  });

  it("rejects page paths that leave the fixture site or states without a selector", () => {
    expect(problems({ kind: "page", open: "//evil.test/x", selector: "body" })[0].path).toBe("open");
    expect(problems({ kind: "page", open: "https://x.test/", selector: "body" })[0].path).toBe("open");
    expect(problems({ kind: "page", state: "hidden" }).map((p) => p.path)).toEqual(["state", ""]);
  });
});
