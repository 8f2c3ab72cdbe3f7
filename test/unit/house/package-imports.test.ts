/**
 * Dependencies through their public doors only (issue 30): every package a source file imports is a
 * direct dependency of umpire (runtime code: `dependencies`, since an install without dev
 * dependencies must run it; scripts may also use `devDependencies`), and every subpath it imports is
 * one the package's `exports` publishes. A path outside `exports`
 * has no semver promise, and a package umpire only gets through another (`playwright-core` through
 * `playwright`) can change or vanish with that other package's patch release.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { isBuiltin } from "node:module";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { clauseLoadsModule } from "../../support/source-imports.js";

const root = resolve(__dirname, "../../..");
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  name: string;
  exports: Exports;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** Folder -> the dependency sections its imports may come from. */
const SOURCES: Record<string, ("dependencies" | "devDependencies")[]> = {
  src: ["dependencies"],
  bin: ["dependencies"],
  "fixtures-site": ["dependencies"],
  tasks: ["dependencies"],
  scripts: ["dependencies", "devDependencies"],
};

const SOURCE_FILE = /\.(?:ts|mts|cts|js|mjs|cjs)$/;

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === "node_modules") return [];
    if (statSync(path).isDirectory()) return filesUnder(path);
    return SOURCE_FILE.test(name) && !name.endsWith(".d.ts") ? [path] : [];
  });
}

/** The bare specifiers a file imports, exports from, dynamically imports or requires. */
function bareImports(source: string): string[] {
  const pattern =
    /(?:^|[^\w.])(?:import|export)\b[^'"`;]*?\bfrom\s*["']([^"']+)["']|(?:^|[^\w."'`])import\s*["']([^"']+)["']|\b(?:import|require)\(\s*["']([^"']+)["']\s*\)/g;
  return [...source.matchAll(pattern)]
    .map((m) => (m[1] ?? m[2] ?? m[3])!)
    .filter((spec) => !spec.startsWith(".") && !spec.startsWith("/"));
}

/** `@scope/name/sub/path` -> [`@scope/name`, `./sub/path`]; `name` -> [`name`, `.`]. */
function splitSpecifier(spec: string): [string, string] {
  const parts = spec.split("/");
  const length = spec.startsWith("@") ? 2 : 1;
  const rest = parts.slice(length).join("/");
  return [parts.slice(0, length).join("/"), rest ? `./${rest}` : "."];
}

type Exports = string | string[] | null | { [key: string]: Exports };

/** Whether `subpath` is published by a package.json `exports` field (Node's rules, `*` patterns included). */
function exportsAllow(exports: Exports | undefined, subpath: string): boolean {
  if (exports === undefined) return true; // no exports field: every file is public, as Node resolves it
  const keyed =
    exports !== null &&
    typeof exports === "object" &&
    !Array.isArray(exports) &&
    Object.keys(exports).some((k) => k.startsWith("."));
  if (!keyed) return subpath === ".";
  const map = exports as Record<string, Exports>;
  if (subpath in map) return map[subpath] !== null;
  return Object.entries(map).some(([key, target]) => {
    const star = key.indexOf("*");
    if (star < 0 || target === null) return false;
    const [before, after] = [key.slice(0, star), key.slice(star + 1)];
    return subpath.startsWith(before) && subpath.endsWith(after) && subpath.length >= before.length + after.length;
  });
}

function exportsOf(name: string): Exports | undefined {
  const pkg = JSON.parse(readFileSync(join(root, "node_modules", name, "package.json"), "utf8")) as {
    exports?: Exports;
  };
  return pkg.exports;
}

/** What is wrong with one import of a file in `folder`, or null. */
function importProblem(
  spec: string,
  allowed: Record<string, string>,
  exportsFor: (name: string) => Exports | undefined,
): string | null {
  if (spec.startsWith("node:") || isBuiltin(spec)) return null;
  const [name, subpath] = splitSpecifier(spec);
  // The package by its own name (the fixture suite's checks: `umpire/checks`), through its own exports.
  if (name === manifest.name)
    return exportsAllow(manifest.exports, subpath)
      ? null
      : `imports ${spec}, but umpire's own package.json "exports" does not publish ${subpath}`;
  if (!(name in allowed)) return `imports ${spec}, but ${name} is not a direct dependency in package.json`;
  if (!exportsAllow(exportsFor(name), subpath))
    return `imports ${spec}, but ${name}'s package.json "exports" does not publish ${subpath}`;
  return null;
}

function problems(): string[] {
  const out: string[] = [];
  for (const [folder, sections] of Object.entries(SOURCES)) {
    const allowed = Object.assign({}, ...sections.map((s) => manifest[s] ?? {})) as Record<string, string>;
    for (const file of filesUnder(join(root, folder))) {
      for (const spec of bareImports(readFileSync(file, "utf8"))) {
        const problem = importProblem(spec, allowed, exportsOf);
        if (problem) out.push(`${relative(root, file)} ${problem}`);
      }
    }
  }
  return out;
}

describe("package imports", () => {
  it("every source file imports only direct dependencies, through their published exports", () => {
    expect(problems()).toEqual([]);
  });

  it("the scan sees the imports there are (so the check above is not vacuous)", () => {
    const specs = filesUnder(join(root, "src")).flatMap((f) => bareImports(readFileSync(f, "utf8")));
    expect(specs).toEqual(expect.arrayContaining(["playwright", "zod", "ws", "undici", "better-sqlite3"]));
  });

  it("names a private path and a package that is not a direct dependency", () => {
    const deps = { playwright: "1", ws: "1" };
    const source = `import { ws } from "playwright-core/lib/utilsBundle";\nimport x from "playwright/lib/server";\nconst y = await import("ws");`;
    const found = bareImports(source).map((spec) => importProblem(spec, deps, exportsOf));
    expect(found).toEqual([
      "imports playwright-core/lib/utilsBundle, but playwright-core is not a direct dependency in package.json",
      `imports playwright/lib/server, but playwright's package.json "exports" does not publish ./lib/server`,
      null,
    ]);
    // Through a real exports map: playwright-core publishes a few ./lib/ files, no others.
    expect(exportsAllow(exportsOf("playwright-core"), "./lib/utilsBundle")).toBe(true);
    expect(exportsAllow(exportsOf("playwright-core"), "./lib/server/index")).toBe(false);
    expect(exportsAllow({ ".": "./i.js", "./sub/*": "./s/*.js", "./hidden/*": null }, "./sub/a")).toBe(true);
    expect(exportsAllow({ ".": "./i.js", "./hidden/*": null }, "./hidden/a")).toBe(false);
    expect(exportsAllow({ import: "./i.mjs", require: "./i.cjs" }, "./x")).toBe(false);
  });

  it("Playwright's run-time values come through src/browser/playwright.ts alone (require: no ESM lexing of its bundle)", () => {
    const door = join(root, "src/browser/playwright.ts");
    const offenders = filesUnder(join(root, "src"))
      .filter((file) => file !== door)
      .flatMap((file) =>
        valueImportsOf(readFileSync(file, "utf8"), "playwright").map((line) => `${relative(root, file)}: ${line}`),
      );
    expect(offenders).toEqual([]);
    expect(readFileSync(door, "utf8")).toMatch(/require\("playwright"\)/);
  });

  it("tells a value import of a package from a type-only one", () => {
    const source = [
      `import type { Page } from "playwright";`,
      `import { type Browser, type BrowserContext } from "playwright";`,
      `import { chromium, type Browser } from "playwright";`,
      `const pw = await import("playwright");`,
      `import { z } from "zod";`,
    ].join("\n");
    expect(valueImportsOf(source, "playwright")).toEqual([
      `import { chromium, type Browser } from "playwright"`,
      `import("playwright")`,
    ]);
  });
});

/** The imports of `pkg` in `source` that load it at run time (not `import type`, not only `type` names). */
function valueImportsOf(source: string, pkg: string): string[] {
  const quoted = `["']${pkg}["']`;
  const statics = [...source.matchAll(new RegExp(`import\\s+(?!type\\b)([^;]*?)\\s+from\\s+${quoted}`, "g"))]
    .filter((m) => clauseLoadsModule(m[1]!))
    .map((m) => m[0]);
  const dynamics = [...source.matchAll(new RegExp(`import\\(\\s*${quoted}\\s*\\)`, "g"))].map((m) => m[0]);
  return [...statics, ...dynamics];
}
