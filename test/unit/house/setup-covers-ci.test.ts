/**
 * The README's two commands are all a fresh machine needs: CI (`.ci/run`) installs nothing that
 * `npm run setup` does not, so a test that passes in CI passes after `npm install && npm run setup`.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { DEBIAN_PACKAGES, DEBIAN_PYTHON } from "../../../scripts/setup.js";

const ROOT = resolve(import.meta.dirname, "../../..");
const CI = readFileSync(join(ROOT, ".ci/run"), "utf8");
const commands = CI.split("\n")
  .map((line) => line.replace(/#.*$/, "").trim())
  .filter(Boolean);

describe(".ci/run installs nothing that npm run setup does not", () => {
  it("every apt-get install names only packages scripts/setup.ts installs", () => {
    const aptPackages = commands.flatMap((c) =>
      [...c.matchAll(/apt-get install ((?:-\S+\s+)*)([^;&|]+)/g)].flatMap((m) => m[2]!.trim().split(/\s+/)),
    );
    for (const pkg of aptPackages) expect(DEBIAN_PACKAGES, `.ci/run installs ${pkg}`).toContain(pkg);
    expect(DEBIAN_PACKAGES).toEqual(expect.arrayContaining(["chromium", "python3-websocket", "bubblewrap"]));
  });

  it("the only npm installs are the README's (npm ci/install of the lockfile, no named packages)", () => {
    const npmInstalls = commands.filter(
      (c) => /\bnpm (i|install|ci|add)\b/.test(c) || /\bnpx (-y|--yes)\b|playwright install/.test(c),
    );
    expect(npmInstalls.length).toBeGreaterThan(0);
    for (const c of npmInstalls) expect(c, `.ci/run: ${c}`).toMatch(/^npm (ci|install)( --[\w-]+)*$/);
  });

  it("and CI runs npm run setup before the tests", () => {
    expect(commands.indexOf("npm run setup")).toBeGreaterThan(-1);
    expect(commands.indexOf("npm run setup")).toBeLessThan(commands.indexOf("npm test"));
  });

  it("setup looks for python3-websocket in the interpreter the Python example runs with (not the PATH's python3)", () => {
    const config = parse(readFileSync(join(ROOT, "examples/external-agents/umpire.config.yaml"), "utf8"));
    expect(config.agents["python-agent"].command[0]).toBe(DEBIAN_PYTHON);
  });
});
