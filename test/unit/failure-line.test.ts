/**
 * The reason a crashed command gives (an external agent, a reset command): the error's own line
 * from what real Node and Python processes print when they crash, never Node's version banner or
 * a stack frame cut mid-word.
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { failureLine } from "../../src/errors.js";

const stderrOf = (command: string, args: string[]) => spawnSync(command, args, { encoding: "utf8" }).stderr;

describe("failureLine", () => {
  it("a Node crash: the error's line, not 'Node.js v20...' nor a module_job frame", () => {
    const stderr = stderrOf(process.execPath, [
      "--input-type=module",
      "-e",
      "await Promise.resolve(); throw new TypeError('the endpoint said no')",
    ]);
    expect(stderr).toMatch(/Node\.js v\d/);
    expect(failureLine(stderr)).toBe("TypeError: the endpoint said no");
  });

  it("a Node error with a code keeps its code", () => {
    const stderr = stderrOf(process.execPath, [
      "--input-type=module",
      "-e",
      "import('./nowhere-at-all.mjs').catch((e) => { throw e; })",
    ]);
    expect(failureLine(stderr)).toMatch(/^Error \[ERR_MODULE_NOT_FOUND\]: Cannot find module/);
  });

  it("a Python traceback: the exception's line", () => {
    const stderr = stderrOf("python3", ["-c", "import json\njson.loads('{')"]);
    expect(failureLine(stderr)).toMatch(/^json\.decoder\.JSONDecodeError: Expecting property name/);
  });

  it("a plain message: its last line; a long one clipped at a word with an ellipsis", () => {
    expect(failureLine("resetting the database\nreset failed: the database is locked\n")).toBe(
      "reset failed: the database is locked",
    );
    const long = failureLine(`fatal: ${"word ".repeat(100)}`, 50)!;
    expect(long).toMatch(/^fatal: (word )*word…$/);
    expect(long.length).toBeLessThanOrEqual(51);
    expect(failureLine("")).toBeUndefined();
  });
});
