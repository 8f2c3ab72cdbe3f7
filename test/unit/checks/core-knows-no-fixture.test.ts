/**
 * The core's check and task layers know no fixture vocabulary: cricket scores, `onlyRecord` and
 * note fields are the fixture suite's own custom checks (tasks/checks/), written against the
 * public API (src/checks/custom-api.ts) like any app's. This fails when such code comes back.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HANDLERS } from "../../../src/checks/registry.js";
import { REPO_ROOT } from "../task/helpers.js";

const FIXTURE_WORDS = /cricket|onlyRecord|readFields|note-fields|wickets?\b/i;

function sources(dir: string): string[] {
  return readdirSync(join(REPO_ROOT, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts"))
    .map((f) => join(dir, f));
}

describe("the core knows no fixture checks", () => {
  it("src/checks and src/task name no cricket, onlyRecord or note-field code", () => {
    const hits = [...sources("src/checks"), ...sources("src/task")].flatMap((file) =>
      readFileSync(join(REPO_ROOT, file), "utf8")
        .split("\n")
        .flatMap((line, i) => (FIXTURE_WORDS.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(hits).toEqual([]);
  });

  it("the core check kinds are the general ones; the fixture's come through custom", () => {
    expect(Object.keys(HANDLERS).sort()).toEqual([
      "answer",
      "command",
      "custom",
      "effects",
      "episode",
      "file",
      "http",
      "page",
      "storage",
    ]);
  });

  it("the fixture suite's check modules import umpire only by the package's public name, as a user's do", () => {
    for (const file of sources("tasks/checks")) {
      const imports = [...readFileSync(join(REPO_ROOT, file), "utf8").matchAll(/from "([^"]+)"/g)].map((m) => m[1]);
      expect(
        imports.filter((s) => s!.includes("/src/")),
        file,
      ).toEqual([]);
      expect(imports, file).toContain("umpire/checks");
    }
  });
});
