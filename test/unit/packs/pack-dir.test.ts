/**
 * Where `umpire run --pack miniwob` finds the benchmark's folder: --pack-dir, else the config file's
 * `packs.miniwob.dir` (relative to the file's folder), else MINIWOB_DIR; a folder that is not a MiniWoB++
 * html folder is refused naming where it was given (the file and field, the flag or the variable) and the fix.
 * Real files: the config is read by umpire's loader, the folders are made on disk.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config/loader.js";
import { configPackDir, selectPack } from "../../../src/cli/run/pack.js";
import { UmpireError } from "../../../src/errors.js";

const root = mkdtempSync(join(tmpdir(), "umpire-pack-dir-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const MINI = join(import.meta.dirname, "../../../examples/miniwob-mini/html");

/** A project folder with a config file naming `dir` under packs.miniwob, and a copy of the test pack at vendor/html. */
function project(name: string, dir: string) {
  const folder = join(root, name);
  mkdirSync(join(folder, "vendor"), { recursive: true });
  cpSync(MINI, join(folder, "vendor", "html"), { recursive: true });
  writeFileSync(join(folder, "umpire.config.yaml"), `packs:\n  miniwob:\n    dir: ${dir}\n`);
  return folder;
}

function select(folder: string, cwd: string, flags: { "pack-dir"?: string } = {}, env: NodeJS.ProcessEnv = {}) {
  const config = loadConfig({ cwd, file: join(folder, "umpire.config.yaml") });
  return selectPack({ pack: "miniwob", "pack-tasks": ["click-button"], ...flags }, [], env, configPackDir(config, cwd));
}

function thrown(fn: () => unknown): UmpireError {
  try {
    fn();
  } catch (error) {
    if (error instanceof UmpireError) return error;
    throw error;
  }
  throw new Error("expected an UmpireError");
}

describe("the MiniWoB++ folder of a run", () => {
  it("comes from packs.miniwob.dir of the config file, relative to the file's folder, wherever umpire runs", () => {
    const folder = project("relative", "vendor/html");
    // Run from another folder: the path resolves against the config file's folder, not the working folder.
    const selected = select(folder, root, {}, { MINIWOB_DIR: "/nowhere" });
    expect(selected?.pack.htmlDir).toBe(join(folder, "vendor", "html"));
    expect(selected?.pack.tasks.map((t) => t.id)).toEqual(["miniwob-click-button"]);
  });

  it("--pack-dir overrides the config file, and the config file overrides MINIWOB_DIR", () => {
    const folder = project("precedence", "vendor/html");
    const other = join(root, "other-html");
    cpSync(MINI, other, { recursive: true });
    expect(select(folder, folder, { "pack-dir": other })?.pack.htmlDir).toBe(other);
    expect(select(folder, folder, {}, { MINIWOB_DIR: other })?.pack.htmlDir).toBe(join(folder, "vendor", "html"));
    // Without the config entry, MINIWOB_DIR is the default.
    expect(selectPack({ pack: "miniwob" }, [], { MINIWOB_DIR: other })?.pack.htmlDir).toBe(other);
  });

  it("that is not a MiniWoB++ html folder is refused naming the file, the field and the fix", () => {
    // The environments' folder instead of the html folder above it: a plausible slip.
    const folder = project("not-miniwob", "vendor/html/miniwob");
    mkdirSync(join(folder, "empty"));
    const wrong = thrown(() => select(project("not-miniwob-2", "empty"), root));
    expect(wrong.message).toMatch(/umpire\.config\.yaml: packs\.miniwob\.dir empty: no such folder/);
    const notHtml = thrown(() => select(folder, root, {}, {}));
    expect(notHtml.message).toBe(
      // The file as shown: relative to the working folder.
      `not-miniwob/umpire.config.yaml: packs.miniwob.dir vendor/html/miniwob: ${join(folder, "vendor/html/miniwob")} is not a MiniWoB++ html folder (no core/core.js and miniwob/ in it, in html/ or in miniwob/html/)`,
    );
    expect(notHtml.hint).toMatch(
      /set packs\.miniwob\.dir in .*umpire\.config\.yaml to a MiniWoB\+\+ checkout's miniwob\/html/,
    );
    const flag = thrown(() => selectPack({ pack: "miniwob", "pack-dir": join(folder, "empty") }, [], {}));
    expect(flag.message).toMatch(/^--pack-dir .*empty: .* is not a MiniWoB\+\+ html folder/);
    expect(flag.hint).toContain("pass --pack-dir <clone>/miniwob/html");
    const variable = thrown(() => selectPack({ pack: "miniwob" }, [], { MINIWOB_DIR: join(folder, "empty") }));
    expect(variable.message).toMatch(/^MINIWOB_DIR=.*empty: .* is not a MiniWoB\+\+ html folder/);
  });

  it("is checked by the config file's schema: an unknown key under packs.miniwob is an error with the file and line", () => {
    const folder = join(root, "typo");
    mkdirSync(folder);
    writeFileSync(join(folder, "umpire.config.yaml"), "packs:\n  miniwob:\n    folder: html\n");
    const error = thrown(() => loadConfig({ cwd: folder, file: "umpire.config.yaml" }));
    expect(error.message).toMatch(/umpire\.config\.yaml:3.*packs\.miniwob/);
  });
});
