/**
 * Keeps the layers one-way: the allowed imports are read from the table in docs/ARCHITECTURE.md
 * ("Layers (folders) and allowed imports"), so the rule the test enforces is the rule the doc states,
 * exactly. Playwright checks its packages' allowed imports the same way.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(__dirname, "../../..");

/** Layer (a folder without its trailing slash, or a file) -> the layers it may import besides itself. */
function readLayerTable(markdown: string): Record<string, string[]> {
  const section = markdown.split(/^## /m).find((s) => s.startsWith("Layers (folders) and allowed imports"));
  if (!section) throw new Error("docs/ARCHITECTURE.md has no section 'Layers (folders) and allowed imports'");
  const rows = section.split("\n").filter((line) => /^\|\s*`/.test(line));
  const layerId = (cell: string) => cell.replace(/\/$/, "");
  const layers = rows.map((row) => layerId(/`([^`]+)`/.exec(row)![1]!));
  const table: Record<string, string[]> = {};
  for (const [i, row] of rows.entries()) {
    const cells = row.split("|").map((c) => c.trim());
    const mayImport = cells[cells.length - 2]!;
    table[layers[i]!] =
      mayImport === "everything"
        ? layers.filter((l) => l !== layers[i])
        : [...mayImport.matchAll(/`([^`]+)`/g)].map((m) => layerId(m[1]!));
  }
  // A layer whose row says "every layer may import it" (the safety layer) sits under every layer
  // except the other bottom ones, whose rows say "(nothing)".
  const bottom = new Set(rows.flatMap((row, i) => (/\|\s*\(nothing\)\s*\|\s*$/.test(row) ? [layers[i]!] : [])));
  for (const [i, row] of rows.entries()) {
    if (!/every layer may import it/.test(row)) continue;
    for (const layer of layers) if (layer !== layers[i] && !bottom.has(layer)) table[layer]!.push(layers[i]!);
  }
  return table;
}

const ALLOWED = readLayerTable(readFileSync(join(root, "docs/ARCHITECTURE.md"), "utf8"));

function filesOf(layer: string): string[] {
  const path = join(root, layer);
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path).flatMap((name) => {
    const child = join(path, name);
    if (statSync(child).isDirectory()) return filesOf(relative(root, child));
    return child.endsWith(".ts") ? [child] : [];
  });
}

function layerOf(file: string): string | undefined {
  const rel = relative(root, file).split("\\").join("/");
  return Object.keys(ALLOWED).find((layer) => rel === layer || rel.startsWith(`${layer}/`));
}

/** Each relative import of a file: its specifier, and the source file it names (`.js` names the `.ts`). */
function importsOf(file: string): { spec: string; resolved: string }[] {
  const source = readFileSync(file, "utf8");
  return [
    ...source.matchAll(/(?:import|export)[^'"]*?from\s+["'](\.[^"']+)["']|import\(\s*["'](\.[^"']+)["']\s*\)/g),
  ].map((match) => {
    const spec = match[1] ?? match[2]!;
    return { spec, resolved: resolve(dirname(file), spec.replace(/\.js$/, ".ts")) };
  });
}

const relativeImports = (file: string) => importsOf(file).map((i) => i.resolved);

function violations(): string[] {
  const out: string[] = [];
  for (const layer of Object.keys(ALLOWED)) {
    for (const file of filesOf(layer)) {
      for (const { spec, resolved } of importsOf(file)) {
        const target = layerOf(resolved);
        if (target === layer) continue;
        if (!target) out.push(`${relative(root, file)} imports ${spec}, which is in no layer of the table`);
        else if (!ALLOWED[layer]!.includes(target)) out.push(`${relative(root, file)} imports ${spec} (${target})`);
      }
    }
  }
  return out;
}

describe("layering", () => {
  it("reads the table of docs/ARCHITECTURE.md, cli/ included", () => {
    expect(Object.keys(ALLOWED)).toEqual(
      expect.arrayContaining([
        "src/cli",
        "src/authoring",
        "src/runtime",
        "src/runner/schedule",
        "src/runner/external",
        "src/runner/trial",
        "src/runner/page",
        "src/report",
        "src/store",
        "src/vocabulary.ts",
        "fixtures-site",
      ]),
    );
    // What the issue found the old hand-kept table allowing beyond the doc stays forbidden.
    expect(ALLOWED["src/store"]).not.toContain("src/checks");
    for (const wing of ["src/runner/schedule", "src/runner/external", "src/runner/trial", "src/runner/page"]) {
      expect(ALLOWED[wing]).not.toContain("src/report");
      expect(ALLOWED[wing]).not.toContain("src/runtime");
      expect(ALLOWED[wing]).not.toContain("src/authoring");
    }
    expect(ALLOWED["src/runner/page"]).not.toContain("src/runner/trial");
    expect(ALLOWED["src/authoring"]).not.toContain("src/cli");
    expect(ALLOWED["src/runtime"]).not.toContain("src/authoring");
    expect(ALLOWED["src/report"]).not.toContain("src/agent");
    expect(ALLOWED["src/vocabulary.ts"]).toEqual([]);
  });

  it("every source folder is a layer of the table, or a folder of layers (the runner's wings)", () => {
    const layers = Object.keys(ALLOWED);
    const top = readdirSync(join(root, "src")).map((name) => `src/${name}`);
    const missing = top.flatMap((p) => {
      if (layers.includes(p)) return [];
      if (!statSync(join(root, p)).isDirectory()) return [p];
      return readdirSync(join(root, p))
        .map((name) => `${p}/${name}`)
        .filter((child) => !layers.includes(child));
    });
    expect(missing).toEqual([]);
  });

  it("the README's Layout names every entry of src/ and points at this table", () => {
    const readme = readFileSync(join(root, "README.md"), "utf8");
    const layout = readme.split(/^## /m).find((s) => s.startsWith("Layout"))!;
    const missing = readdirSync(join(root, "src")).filter((name) => !layout.includes(`src/${name}`));
    expect(missing).toEqual([]);
    expect(layout).toContain("docs/ARCHITECTURE.md");
  });

  it("imports only go down the layers", () => {
    expect(violations()).toEqual([]);
  });

  it("no index.ts and no re-exports: an import names the file that declares the name (docs/ARCHITECTURE.md)", () => {
    // The published entry for custom checks (package.json "exports": "./checks") is the one file made of re-exports.
    const published = join(root, "src/checks/custom-api.ts");
    const REEXPORT = /^export\s+(?:type\s+)?(?:\*|\{[^}]*\})\s*from\s/m;
    const offenders: string[] = [];
    for (const layer of Object.keys(ALLOWED)) {
      for (const file of filesOf(layer)) {
        if (file.endsWith("/index.ts")) offenders.push(`${relative(root, file)} is an index file`);
        else if (file !== published && REEXPORT.test(readFileSync(file, "utf8"))) {
          offenders.push(`${relative(root, file)} re-exports another module's names`);
        }
      }
    }
    expect(offenders).toEqual([]);
  });

  it("no import circle anywhere in src/ (rules.ts <-> leak-rule.ts and loop.ts <-> model-measure.ts were two)", () => {
    const graph = new Map(filesOf("src").map((file) => [file, relativeImports(file)]));
    const cycles: string[] = [];
    // Depth first, by colour: meeting a file still on the path closes a circle through it.
    const state = new Map<string, "open" | "done">();
    const path: string[] = [];
    const visit = (file: string) => {
      state.set(file, "open");
      path.push(file);
      for (const next of graph.get(file) ?? []) {
        if (!graph.has(next) || next === file) continue; // a self-import is an example in a comment
        if (state.get(next) === "open") {
          cycles.push([...path.slice(path.indexOf(next)), next].map((f) => relative(root, f)).join(" -> "));
        } else if (!state.has(next)) visit(next);
      }
      path.pop();
      state.set(file, "done");
    };
    for (const file of graph.keys()) if (!state.has(file)) visit(file);
    expect(cycles).toEqual([]);
  });

  it("only src/cli reads process.argv or exits the process", () => {
    const offenders: string[] = [];
    for (const layer of Object.keys(ALLOWED).filter((l) => l !== "src/cli")) {
      for (const file of filesOf(layer)) {
        const source = readFileSync(file, "utf8");
        if (/process\.exit\(|process\.argv/.test(source)) offenders.push(relative(root, file));
      }
    }
    expect(offenders).toEqual([]);
  });
});
