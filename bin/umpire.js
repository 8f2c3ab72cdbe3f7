#!/usr/bin/env node
// Entry point for `npx umpire`: runs the compiled CLI in dist/ (built by `npm run build`, which
// `npm install` runs through `prepare`). UMPIRE_FROM_SOURCE=1 runs src/ through tsx instead, for
// working on umpire itself without rebuilding.
import { existsSync } from "node:fs";

const built = new URL("../dist/src/cli/main.js", import.meta.url);
let main;
if (process.env.UMPIRE_FROM_SOURCE === "1") {
  (await import("tsx/esm/api")).register();
  ({ main } = await import("../src/cli/main.ts"));
} else if (existsSync(built)) {
  ({ main } = await import(built.href));
} else {
  process.stderr.write("umpire: the CLI is not built (no dist/); run `npm run build` in the umpire checkout\n");
  process.exit(4);
}
process.exitCode = await main(process.argv.slice(2));
