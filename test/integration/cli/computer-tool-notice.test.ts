/**
 * A named agent forcing a computer tool version its Claude model id is not documented with, through
 * the real CLI (in process; nothing is played): `umpire validate` lists the notice among its warnings
 * and passes, `umpire run --list` says it on stderr for its agents, under --quiet too, and goes on.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, runInProcess } from "../../support/cli-in-process.js";

const TASK = join(ROOT, "tasks/answer-only-bb042.yaml");
const CONFIG = `agents:
  forced:
    model: claude-opus-4-6
    baseUrl: https://api.anthropic.com/v1
    computerTool: computer_20250124
  fine:
    model: claude-opus-4-6
    baseUrl: https://api.anthropic.com/v1
`;
const NOTICE =
  "umpire.config.yaml:5: warning: agents.forced.computerTool: computer_20250124 is not the version Anthropic documents for claude-opus-4-6 (computer_20251124, beta computer-use-2025-11-24); a real endpoint may refuse the request (fix: computerTool: auto (or no computerTool) sends computer_20251124;";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "umpire-tool-notice-"));
  writeFileSync(join(dir, "umpire.config.yaml"), CONFIG);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const umpire = (args: string[]) => runInProcess(args, { cwd: dir, env: {} });

describe("a forced computerTool against the documented version", () => {
  it("umpire validate lists it as a warning of the config file and still passes", async () => {
    const r = await umpire(["validate", TASK]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(NOTICE);
    expect(r.stdout).toMatch(/0 errors, 1 warning\n/);
  });

  it("umpire run says it for its agent, also under --quiet, and plans the run; not for an agent on auto", async () => {
    const store = ["--db", join(dir, "u.db"), "--out", join(dir, "runs")];
    const forced = await umpire(["run", TASK, "--agent", "forced", "--list", "--quiet", ...store]);
    expect(forced.code).toBe(0);
    expect(forced.stderr).toContain(`umpire: ${NOTICE}`);
    const fine = await umpire(["run", TASK, "--agent", "fine", "--list", ...store]);
    expect(fine.code).toBe(0);
    expect(fine.stderr).not.toContain("computerTool");
  });
});
