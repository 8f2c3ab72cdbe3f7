#!/usr/bin/env node
// Entry point for `npx umpire`: runs the TypeScript sources through tsx, so the checkout needs no build step.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/cli/main.ts");
process.exitCode = await main(process.argv.slice(2));
