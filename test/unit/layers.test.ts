/**
 * Keeps the layers one-way (docs/ARCHITECTURE.md): each folder may import only the folders
 * listed for it. Playwright checks its packages' allowed imports the same way.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(__dirname, "../..");

/** Layer -> layers it may import (besides itself). */
const ALLOWED: Record<string, string[]> = {
  "src/safety": [],
  "src/toolbox": ["src/safety"],
  "src/task": ["src/toolbox", "src/errors.ts", "src/safety"],
  "fixtures-site": ["src/task", "src/toolbox", "src/errors.ts", "src/browser", "src/safety"],
  "src/agent": ["src/toolbox", "src/task", "src/errors.ts", "src/safety"],
  "src/sim": ["src/toolbox", "src/task", "src/agent", "fixtures-site", "src/errors.ts", "src/safety"],
  "src/checks": ["src/toolbox", "src/task", "src/errors.ts", "src/safety"],
  "src/store": ["src/task", "src/toolbox", "src/errors.ts", "src/checks", "src/safety"],
  "src/target": ["src/task", "src/toolbox", "src/checks", "fixtures-site", "src/errors.ts", "src/safety"],
  "src/runner": ["src/toolbox", "src/task", "src/agent", "src/checks", "src/store", "src/browser", "src/target", "src/errors.ts", "src/report", "src/safety"],
  "src/report": ["src/store", "src/task", "src/checks", "src/toolbox", "src/agent", "src/errors.ts", "src/safety"],
  "src/browser": ["src/errors.ts", "src/safety"],
  // The config file and the option table; `report` only for the price schema (moves to the vocabulary).
  "src/config": ["src/task", "src/agent", "src/report", "src/errors.ts", "src/safety"],
};

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path));
    else if (path.endsWith(".ts")) out.push(path);
  }
  return out;
}

function layerOf(file: string): string | undefined {
  const rel = relative(root, file).split("\\").join("/");
  if (rel === "src/errors.ts") return "src/errors.ts";
  return Object.keys(ALLOWED).find((layer) => rel === layer || rel.startsWith(`${layer}/`));
}

describe("layering", () => {
  it("imports only go down the layers", () => {
    const violations: string[] = [];
    for (const layer of Object.keys(ALLOWED)) {
      for (const file of filesUnder(join(root, layer))) {
        const source = readFileSync(file, "utf8");
        for (const match of source.matchAll(/(?:import|export)[^'"]*?from\s+["'](\.[^"']+)["']|import\(\s*["'](\.[^"']+)["']\s*\)/g)) {
          const spec = match[1] ?? match[2]!;
          const target = layerOf(resolve(dirname(file), spec));
          if (!target || target === layer) continue;
          if (!ALLOWED[layer]!.includes(target)) violations.push(`${relative(root, file)} imports ${spec} (${target})`);
        }
      }
    }
    expect(violations).toEqual([]);
  });

  it("only src/cli reads process.argv or exits the process", () => {
    const offenders: string[] = [];
    for (const layer of Object.keys(ALLOWED)) {
      for (const file of filesUnder(join(root, layer))) {
        const source = readFileSync(file, "utf8");
        if (/process\.exit\(|process\.argv/.test(source)) offenders.push(relative(root, file));
      }
    }
    expect(offenders).toEqual([]);
  });
});
