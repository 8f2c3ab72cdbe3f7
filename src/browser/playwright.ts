/**
 * Playwright's `chromium`, the one door umpire's code takes to it at run time (types still come from
 * `import type ... from "playwright"`). It is loaded with `require` rather than `import`: Playwright is
 * a CommonJS package, and an ESM `import` of it makes Node lex its re-exports down to the 3.6 MB core
 * bundle for named exports before loading it: 0.25 CPU s more in a bare `node -e`, about 0.1 s of every
 * `umpire run` start (the group's CPU total, three runs each: docs/performance.md).
 */
import { createRequire } from "node:module";
import type { BrowserType } from "playwright";

const require = createRequire(import.meta.url);

export const chromium: BrowserType = (require("playwright") as typeof import("playwright")).chromium;
