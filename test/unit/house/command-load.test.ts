/**
 * What a command loads before it runs: the CLI imports each command lazily (src/cli/main.ts) so that
 * `umpire validate` and the store's read commands do not pay for Playwright (about 0.9 CPU s to load)
 * or SQLite. A static import anywhere in a command's graph undoes that silently, so the graph is walked
 * here: from each command module, through every import that loads at run time (not `import type`, not
 * a dynamic `await import(...)`, which loads only when reached).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { clauseLoadsModule } from "../../support/source-imports.js";

const root = resolve(__dirname, "../../..");

/** The relative modules `source` imports at load time, as the specifiers written. */
function staticValueImports(source: string): string[] {
  const found: string[] = [];
  const declarations = /(?:^|\n)\s*(import|export)\s+(?!type\b)([^;]*?)\s+from\s+["']([^"']+)["']/g;
  for (const m of source.matchAll(declarations)) {
    if (clauseLoadsModule(m[2]!)) found.push(m[3]!);
  }
  for (const m of source.matchAll(/(?:^|\n)\s*import\s+["']([^"']+)["']/g)) found.push(m[1]!);
  return found.filter((spec) => spec.startsWith("."));
}

/** Every source file `entry` loads through static value imports (entry included). */
function staticGraph(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const spec of staticValueImports(readFileSync(file, "utf8"))) {
      const target = resolve(dirname(file), spec).replace(/\.js$/, ".ts");
      if (existsSync(target)) visit(target);
    }
  };
  visit(join(root, entry));
  return new Set([...seen].map((file) => relative(root, file)));
}

const PLAYWRIGHT = "src/browser/playwright.ts";
const SQLITE = "src/store/open.ts";

describe("what a command loads before it runs", () => {
  it("validate (without --self-test) loads neither Playwright nor the store", () => {
    const graph = staticGraph("src/cli/commands/validate.ts");
    expect(graph.has(PLAYWRIGHT)).toBe(false);
    expect(graph.has(SQLITE)).toBe(false);
    expect(graph.has("src/task/loader.ts")).toBe(true);
  });

  it("the commands that play no trial (the store's reads, report, plan, merge, lint, init) do not load Playwright", () => {
    for (const command of [
      "runs",
      "show",
      "compare",
      "history",
      "report",
      "plan",
      "merge",
      "lint",
      "init",
      "show-report",
    ]) {
      const graph = staticGraph(`src/cli/commands/${command}.ts`);
      expect([command, graph.has(PLAYWRIGHT)]).toEqual([command, false]);
    }
  });

  it("the walk finds them where they are loaded (so the checks above can fail)", () => {
    const run = staticGraph("src/cli/commands/run.ts");
    expect(run.has(PLAYWRIGHT)).toBe(true);
    expect(run.has(SQLITE)).toBe(true);
  });

  it("reads value imports, re-exports and bare imports, and skips type-only and dynamic ones", () => {
    const source = [
      `import { a } from "./a.js";`,
      `import type { B } from "./b.js";`,
      `import { type C, type D } from "./c.js";`,
      `import { type E, e } from "./e.js";`,
      `import f, { type F } from "./f.js";`,
      `export { g } from "./g.js";`,
      `export type { H } from "./h.js";`,
      `import "./side-effect.js";`,
      `const later = await import("./lazy.js");`,
      `import { z } from "zod";`,
    ].join("\n");
    expect(staticValueImports(source).sort()).toEqual(["./a.js", "./e.js", "./f.js", "./g.js", "./side-effect.js"]);
  });
});
