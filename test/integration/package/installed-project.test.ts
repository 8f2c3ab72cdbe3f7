/**
 * umpire as a dev dependency of someone else's project, the way a user gets it: `npm pack` of this
 * checkout, `npm install -D <tarball>` offline in an empty project, then `npx umpire init`,
 * `validate`, `validate --self-test` and `run` there, on a one-page app umpire starts itself, with
 * a custom check in TypeScript importing the public API by package name (`umpire/checks`).
 * One deliberate slow test: it proves the package, not a feature (and that the bundled fixture
 * suite, shipped in it, self-tests from node_modules/umpire/tasks). A second one runs docs/your-app.md
 * as written: every file block it marks is written, every command block it marks is run in order in
 * a project of its own (from the same tarball, packed once), and each command must exit 0.
 *
 * Offline: the install resolves nothing from the registry. The project's lockfile is seeded with
 * umpire's dependency closure as this checkout's package-lock.json records it (the tarballs are in
 * the npm cache since `npm ci`), which is what npm would resolve online. Install scripts are skipped
 * and better-sqlite3's native addon is copied from this checkout's install: online, its install
 * script downloads that same prebuilt file; offline it compiles SQLite from source, which takes
 * many minutes on two cores and proves nothing about umpire.
 */
import { execFile } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
  mkdirSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../../..");
const TSC = join(ROOT, "node_modules/typescript/bin/tsc");
const HANG_GUARD_MS = 600_000;
let dir: string;
let project: string;

interface Result {
  code: number;
  out: string;
}

/** Runs a command to its end; a non-zero exit is a result, not an exception. */
function sh(file: string, args: string[], cwd: string): Promise<Result> {
  return new Promise((done) => {
    execFile(
      file,
      args,
      { cwd, timeout: HANG_GUARD_MS, maxBuffer: 64 << 20, env: { ...process.env, NO_COLOR: "1" } },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
        done({ code, out: `${stdout}${stderr}` });
      },
    );
  });
}

/** Offline, as the file's head says: the seeded lockfile resolves everything from the npm cache. */
const OFFLINE_INSTALL = ["--offline", "--ignore-scripts", "--no-audit", "--no-fund"];
const ADDON = "node_modules/better-sqlite3/build/Release/better_sqlite3.node";

/** better-sqlite3's prebuilt addon, which its skipped install script would have downloaded. */
function copyAddon(into: string): void {
  mkdirSync(dirname(join(into, ADDON)), { recursive: true });
  copyFileSync(join(ROOT, ADDON), join(into, ADDON));
}

/**
 * docs/your-app.md in order: blocks whose info string has `file=NAME` are files of the project,
 * blocks `console run` hold its commands (`$ ` lines, a trailing `# comment` dropped).
 */
function docSteps(markdown: string): ({ file: string; text: string } | { command: string })[] {
  const steps: ({ file: string; text: string } | { command: string })[] = [];
  for (const m of markdown.matchAll(/^```([^\n]*)\n([\s\S]*?)^```$/gm)) {
    const info = m[1]!.trim().split(/\s+/);
    const file = info.find((w) => w.startsWith("file="))?.slice("file=".length);
    if (file) steps.push({ file, text: m[2]! });
    else if (info[0] === "console" && info.includes("run")) {
      for (const line of m[2]!.split("\n"))
        if (line.startsWith("$ "))
          steps.push({
            command: line
              .slice(2)
              .replace(/\s+#.*$/, "")
              .trim(),
          });
    }
  }
  return steps;
}

const npx = (args: string[]) => sh("npx", ["--no", "--", "umpire", ...args], project);

/** A lockfile naming what umpire depends on, at the versions and integrity this checkout locks. */
function seededLock(): string {
  const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8")) as {
    packages: Record<string, { dev?: boolean; link?: boolean }>;
  };
  const packages: Record<string, unknown> = { "": { name: "greeter" } };
  for (const [key, entry] of Object.entries(lock.packages)) {
    if (key && !entry.dev && !entry.link) packages[key] = { ...entry, dev: true };
  }
  return JSON.stringify({ name: "greeter", lockfileVersion: 3, requires: true, packages }, null, 2);
}

const APP = `<!doctype html>
<html><head><meta charset="utf-8"><title>Greeter</title></head>
<body>
  <h1>Greeter</h1>
  <label>Your name <input data-testid="name" autocomplete="off"></label>
  <button data-testid="greet">Greet me</button>
  <p data-testid="greeting"></p>
  <script>
    document.querySelector("[data-testid=greet]").addEventListener("click", () => {
      const name = document.querySelector("[data-testid=name]").value;
      localStorage.setItem("greeted", name);
      document.querySelector("[data-testid=greeting]").textContent = "Hello, " + name + "!";
    });
  </script>
</body></html>
`;

const CHECK = `import { CheckUnjudgeableError, defineCheck } from "umpire/checks";

/** What the app stored under localStorage "greeted" is the name given. */
export const greeted = defineCheck<{ name: string }>({
  name: (options) => \`the app stored \${options.name}\`,
  async judge(ctx, options) {
    if (!ctx.storage) throw new CheckUnjudgeableError("the trial had no browser storage to read");
    const { origins } = await ctx.storage.state();
    const stored = origins.flatMap((o) => o.localStorage).find((entry) => entry.name === "greeted")?.value ?? null;
    return { pass: stored === options.name, reason: \`localStorage greeted is \${JSON.stringify(stored)}\`, evidence: { stored } };
  },
});
`;

const MISTYPED_CHECK = `import { defineCheck } from "umpire/checks";
export const wrong = defineCheck<{ name: string }>({ judge: () => ({ pass: "yes", reason: 1 }) });
`;

const TSCONFIG = JSON.stringify({
  compilerOptions: {
    module: "NodeNext",
    moduleResolution: "NodeNext",
    target: "ES2022",
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  },
  include: ["tasks/checks"],
});

const TARGET = `targets:
  greeter:
    baseUrl: http://127.0.0.1:\${PORT}
    start:
      command: ${JSON.stringify(`${process.execPath} serve.mjs`)}
    reset: { kind: none }
    isolated: false
`;

/** The app's server: what `npm start` is in a real project. */
const SERVER = `import { createServer } from "node:http";
import { readFileSync } from "node:fs";
createServer((req, res) => res.writeHead(200, { "content-type": "text/html" }).end(readFileSync("index.html")))
  .listen(Number(process.env.PORT), "127.0.0.1");
`;

const TASK = `id: first-task
title: Greet Ada
target: greeter
instruction: >-
  Type the name Ada into the app and ask it to greet you, then answer with the greeting it shows.
givens: [Ada]
start: { path: / }
tools: [click, write, press, answer]
checks:
  - kind: custom
    module: ./checks/greeted.ts
    export: greeted
    options: { name: Ada }
  - kind: page
    name: the greeting is on the page
    selector: "[data-testid=greeting]"
    text: Hello, Ada!
reference:
  - { tool: click, target: name }
  - { tool: write, args: { content: Ada } }
  - { tool: click, target: greet }
  - { tool: answer, args: { content: "Hello, Ada!" } }
negatives:
  no-greet:
    - { tool: click, target: name }
    - { tool: write, args: { content: Ada } }
    - { tool: answer, args: { content: "Hello, Ada!" } }
`;

beforeAll(async () => {
  expect(
    existsSync(join(ROOT, "dist/src/cli/main.js")),
    "dist/ is missing: `npm test` builds first (npm run build)",
  ).toBe(true);
  dir = mkdtempSync(join(tmpdir(), "umpire-package-"));
  project = join(dir, "greeter");
  mkdirSync(project);
  // The build is the suite's (npm test runs npm run build first), so packing needs no second one.
  const packed = await sh("npm", ["pack", "--ignore-scripts", "--pack-destination", dir], ROOT);
  expect(packed.code, `npm pack: ${packed.out}`).toBe(0);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "greeter", private: true, type: "module" }));
  writeFileSync(join(project, "package-lock.json"), seededLock());
  mkdirSync(join(dir, "doc-project"));
  writeFileSync(join(dir, "doc-project/package.json"), JSON.stringify({ name: "greeter", private: true }));
  writeFileSync(join(dir, "doc-project/package-lock.json"), seededLock());
  writeFileSync(join(project, "index.html"), APP);
  writeFileSync(join(project, "serve.mjs"), SERVER);
}, HANG_GUARD_MS);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("umpire installed from its packed tarball into another project", () => {
  it("installs offline, then init, validate, validate --self-test and run work there", async () => {
    const tarball = readdirSync(dir).find((name) => name.endsWith(".tgz"))!;
    const install = await sh("npm", ["install", "-D", join(dir, tarball), ...OFFLINE_INSTALL], project);
    expect(install.code, `npm install: ${install.out}`).toBe(0);
    copyAddon(project);
    expect(existsSync(join(project, "node_modules/.bin/umpire"))).toBe(true);
    // Compiled JavaScript only: no TypeScript of umpire's own in the package.
    expect(existsSync(join(project, "node_modules/umpire/src"))).toBe(false);

    const version = await npx(["--version"]);
    expect(version.out).toBe(`umpire ${JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version}\n`);

    const init = await npx(["init", "--url", "http://127.0.0.1:${PORT}", "--name", "greeter"]);
    expect(init.code, init.out).toBe(0);
    // The schemas resolve from the project, through its own node_modules.
    for (const file of ["umpire.config.yaml", "tasks/first-task.yaml"]) {
      const schema = /^\$schema: (.+)$/m.exec(readFileSync(join(project, file), "utf8"))?.[1];
      expect(schema, file).toMatch(/node_modules\/umpire\/schema\/(config|task)\.schema\.json$/);
      expect(existsSync(resolve(dirname(join(project, file)), schema!)), `${file}: ${schema}`).toBe(true);
    }
    const initialValidate = await npx(["validate"]);
    expect(initialValidate.code, initialValidate.out).toBe(0);

    writeFileSync(
      join(project, "umpire.config.yaml"),
      `$schema: ./node_modules/umpire/schema/config.schema.json\n${TARGET}`,
    );
    writeFileSync(join(project, "tasks/first-task.yaml"), TASK);
    mkdirSync(join(project, "tasks/checks"));
    writeFileSync(join(project, "tasks/checks/greeted.ts"), CHECK);
    writeFileSync(join(project, "tsconfig.json"), TSCONFIG);

    // `umpire/checks` is typed: the check typechecks, and a judgement of the wrong shape does not.
    const typed = await sh(process.execPath, [TSC, "-p", "tsconfig.json"], project);
    expect(typed.code, typed.out).toBe(0);
    writeFileSync(join(project, "tasks/checks/wrong.ts"), MISTYPED_CHECK);
    const mistyped = await sh(process.execPath, [TSC, "-p", "tsconfig.json"], project);
    expect(mistyped.out).toMatch(/wrong\.ts\(2,\d+\): error TS2322: Type 'string' is not assignable to type 'boolean'/);
    rmSync(join(project, "tasks/checks/wrong.ts"));

    const validate = await npx(["validate"]);
    expect(validate.code, validate.out).toBe(0);
    expect(validate.out).toContain("1 of 1 task file valid; 0 errors");

    const selfTest = await npx(["validate", "--self-test", "--concurrency", "1"]);
    expect(selfTest.code, selfTest.out).toBe(0);
    expect(selfTest.out).toContain("every task is sound");

    const run = await npx(["run", "--concurrency", "1"]);
    expect(run.code, run.out).toBe(0);
    expect(run.out).toContain("2/2 passed, 0 failed, 0 errors");
    expect(existsSync(join(project, "results/umpire.db"))).toBe(true);

    // The bundled fixture suite ships in the package and runs from it: its checks (TypeScript,
    // compiled at load) import umpire/checks, which resolves inside the installed package.
    const bundled = await npx([
      "validate",
      "--self-test",
      "--concurrency",
      "1",
      "node_modules/umpire/tasks/answer-only-bb042.yaml",
    ]);
    expect(bundled.code, bundled.out).toBe(0);
    expect(bundled.out).toContain("every task is sound");
  }, 1_800_000);
});

describe("docs/your-app.md, run as written in a project of its own", () => {
  it("writes each file the page marks and runs each command it marks: every one exits 0", async () => {
    const doc = join(dir, "doc-project");
    const steps = docSteps(readFileSync(join(ROOT, "docs/your-app.md"), "utf8"));
    const commands = steps.flatMap((s) => ("command" in s ? [s.command] : []));
    // The page's path, at least: install, init, validate, self-test, run, marks and try.
    for (const wanted of [
      /^npm install -D \.\.\/umpire-[\d.]+\.tgz$/,
      /^npx umpire init /,
      /^npx umpire validate$/,
      /^npx umpire validate --self-test/,
      /^npx umpire run/,
      /^npx umpire marks /,
      /^npx umpire try /,
    ]) {
      expect(
        commands.some((c) => wanted.test(c)),
        `docs/your-app.md runs no command like ${wanted}`,
      ).toBe(true);
    }
    for (const step of steps) {
      if ("file" in step) {
        mkdirSync(dirname(join(doc, step.file)), { recursive: true });
        writeFileSync(join(doc, step.file), step.text);
        continue;
      }
      // The install as the page shows it, offline (this file's head says why) and with the addon copied after.
      const install = /^npm install\b/.test(step.command);
      const result = await sh(
        "sh",
        ["-c", install ? `${step.command} ${OFFLINE_INSTALL.join(" ")}` : step.command],
        doc,
      );
      expect(result.code, `docs/your-app.md: $ ${step.command}\n${result.out}`).toBe(0);
      if (install) copyAddon(doc);
    }
  }, 1_800_000);
});
