#!/usr/bin/env node
// The package's build (npm run build; run by `prepare` on npm install/ci and by `prepack`): compiles
// umpire's TypeScript to dist/ with tsc and copies the files tsc does not emit (the report's
// assets, the fixture site's page script). Plain JavaScript, so building needs nothing built.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const ASSETS = ["src/report/html/assets", "fixtures-site/site/browser"];
/** Single files tsc does not emit: the sandbox's own init, run inside bubblewrap as plain JavaScript. */
const FILES = ["src/runner/external/sandbox-init.mjs"];

let tsc;
try {
  tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
} catch {
  // Installed as a dependency from a registry or tarball: dist/ came in the package, nothing to build.
  if (existsSync(join(ROOT, "dist/src/cli/main.js"))) process.exit(0);
  console.error("umpire build: TypeScript is not installed; run `npm install` in the umpire checkout first");
  process.exit(1);
}
const result = spawnSync(process.execPath, [tsc, "-p", join(ROOT, "tsconfig.build.json")], { stdio: "inherit" });
if (result.status !== 0) process.exit(result.status ?? 1);
for (const dir of ASSETS) {
  cpSync(join(ROOT, dir), join(ROOT, "dist", dir), { recursive: true, filter: (file) => !file.endsWith(".ts") });
}
for (const file of FILES) cpSync(join(ROOT, file), join(ROOT, "dist", file));
