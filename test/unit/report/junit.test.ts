import { join } from "node:path";
import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { main } from "../../../src/cli/main.js";
import { escapeXml, junitXml } from "../../../src/report/junit.js";
import { openStore } from "../../../src/store/open.js";
import { planned, tempDir } from "../store/fixtures.js";
import { fakeIO, seedRun } from "./seed.js";
import { parseXml } from "./xml-check.js";

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(() => cleanup());

describe("junit", () => {
  it("escapes markup and replaces characters XML forbids", () => {
    expect(escapeXml(`<a href="x">&'</a>`)).toBe("&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;");
    expect(escapeXml("bell\u0007 lone\uD800 pair\uD83D\uDE00")).toBe("bell\uFFFD lone\uFFFD pair\uD83D\uDE00");
    expect(() => parseXml(`<r a="${escapeXml("\u0001<&>\"'")}">${escapeXml("]]> & <x>")}</r>`)).not.toThrow();
  });

  it("show --junit writes every trial of a run; unfinished trials are skipped, not passed", async () => {
    const db = join(dir, "umpire.db");
    const store = openStore(db);
    const runId = seedRun(store, {
      model: "reference",
      startedAt: "2025-06-01T00:00:00.000Z",
      trials: [
        { task: "a", verdict: "passed", wallMs: 1500 },
        { task: "b", verdict: "failed" },
      ],
    });
    store.addTrials(runId, [planned(2, { taskId: "c", taskFile: "tasks/c.yaml" })]);
    store.close();
    const file = join(dir, "show.xml");
    expect(await main(["show", runId, "--db", db, "--junit", file], fakeIO(dir).io)).toBe(0);
    const root = parseXml(readFileSync(file, "utf8"));
    expect(root.attributes).toMatchObject({ tests: "3", failures: "1", errors: "0", skipped: "1" });
    const cases = root.children[0].children;
    expect(cases.map((c) => c.attributes.classname)).toEqual(["umpire.a", "umpire.b", "umpire.c"]);
    expect(cases[0].attributes.time).toBe("1.500");
    expect(cases[2].children.map((c) => c.name)).toEqual(["skipped"]);

    // A CI step names results/junit.xml before anything made results/: the folder is made.
    const nested = join(dir, "results", "ci", "junit.xml");
    expect(await main(["show", runId, "--db", db, "--junit", nested], fakeIO(dir).io)).toBe(0);
    expect(parseXml(readFileSync(nested, "utf8")).attributes).toMatchObject({ tests: "3" });
    // A path that cannot be written is the user's to fix, said with the flag (exit 2), not an internal error (4).
    const blocked = fakeIO(dir);
    expect(await main(["show", runId, "--db", db, "--junit", join(file, "under-a-file.xml")], blocked.io)).toBe(2);
    expect(blocked.err()).toContain(`--junit ${join(file, "under-a-file.xml")}: cannot write the file`);
    expect(blocked.err()).toContain("choose a writable path");
  });

  it("an empty suite list is still a valid document", () => {
    const root = parseXml(junitXml([]));
    expect(root).toMatchObject({ name: "testsuites", attributes: { tests: "0" }, children: [] });
  });

  it("the checker itself rejects malformed XML", () => {
    expect(() => parseXml("<a><b></a></b>")).toThrow(/closes/);
    expect(() => parseXml("<a>x & y</a>")).toThrow(/bad entity/);
    expect(() => parseXml('<a x="1" x="2"/>')).toThrow(/duplicate/);
    expect(() => parseXml("<a>\u0001</a>")).toThrow(/forbidden/);
    expect(() => parseXml("<a/><b/>")).toThrow(/second root/);
  });
});
