import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { fileCheck } from "../../../src/checks/file-check.js";
import { RIGHT_NOTE, WRONG_RECORD_NOTE, spec, tempWorkspace, type TempWorkspace } from "./workspace.js";

let ws: TempWorkspace;
let outside: string;
const SECRET = "TOP-SECRET-OUTSIDE-CONTENT";

beforeAll(async () => {
  outside = await mkdtemp(join(tmpdir(), "umpire-outside-"));
  await writeFile(join(outside, "secret.md"), `match: BB-042\n${SECRET}\n`);
});
afterAll(() => rm(outside, { recursive: true, force: true }));
beforeEach(async () => {
  ws = await tempWorkspace();
});
afterEach(() => ws.remove());

const judge = (input: Record<string, unknown>) => fileCheck.judge(spec({ kind: "file", ...input }), ws.ctx());

describe("a missing file", () => {
  it("names what the folder holds", async () => {
    await ws.write("notes/BB-024.md", WRONG_RECORD_NOTE);
    const j = await judge({ path: "notes/BB-042.md" });
    expect(j.pass).toBe(false);
    expect(j.reason).toBe("notes/BB-042.md does not exist (notes/ holds: BB-024.md)");
  });

  it("says when the workspace is empty", async () => {
    const j = await judge({ path: "notes/BB-042.md", contains: ["BB-042"] });
    expect(j.pass).toBe(false);
    expect(j.reason).toBe("notes/BB-042.md does not exist (the workspace is empty)");
    expect(j.evidence).toMatchObject({ exists: false });
  });

  it("passes an existing file with its text conditions", async () => {
    await ws.write("notes/BB-042.md", RIGHT_NOTE);
    const j = await judge({ path: "notes/BB-042.md", contains: ["169/4"] });
    expect(j).toMatchObject({ pass: true, reason: "notes/BB-042.md exists and matches 1 text condition(s)" });
    expect(j.evidence).toMatchObject({ path: "notes/BB-042.md", exists: true });
    expect(j.evidence.excerpt).toContain("169/4");
  });
});

describe("content conditions", () => {
  it("lists every missing and forbidden text", async () => {
    await ws.write("notes/BB-042.md", "match: BB-042\nPune 28\n");
    const j = await judge({ path: "notes/BB-042.md", contains: ["168/6", { regex: "169[/-]4" }], notContains: ["28"] });
    expect(j.reason).toBe(
      'notes/BB-042.md does not contain "168/6"; does not contain /169[/-]4/; contains "28" ("28"), which it must not',
    );
  });

  it("fails a folder where a file was expected", async () => {
    await mkdir(join(ws.dir, "notes", "BB-042.md"), { recursive: true });
    const j = await judge({ path: "notes/BB-042.md" });
    expect(j.pass).toBe(false);
    expect(j.reason).toMatch(/is not a regular file/);
  });

  it("refuses a named pipe at once instead of waiting for a writer (issue #38: an agent outside the sandbox made one)", async () => {
    await mkdir(join(ws.dir, "notes"), { recursive: true });
    execFileSync("mkfifo", [join(ws.dir, "notes", "BB-042.md")]);
    const j = await judge({ path: "notes/BB-042.md", contains: ["BB-042"] });
    expect(j.pass).toBe(false);
    expect(j.reason).toMatch(/is not a regular file/);
  }, 5_000);
});

describe("exists: false", () => {
  it("passes when the file is absent and fails when it is there", async () => {
    expect((await judge({ path: "notes/BB-999.md", exists: false })).pass).toBe(true);
    await ws.write("notes/BB-999.md", "x");
    const j = await judge({ path: "notes/BB-999.md", exists: false });
    expect(j).toMatchObject({ pass: false, reason: "notes/BB-999.md exists, but the task says it must not" });
  });
});

describe("paths never leave the workspace", () => {
  const neverLeaks = (evidence: unknown) => expect(JSON.stringify(evidence)).not.toContain(SECRET);

  it("refuses ../", async () => {
    const j = await judge({ path: "../secret.md" });
    expect(j.pass).toBe(false);
    expect(j.reason).toBe(
      'refused to read ../secret.md: "../secret.md" uses "..", which could leave the workspace; file checks only read inside the trial workspace',
    );
  });

  it("refuses an absolute path, even one that exists", async () => {
    const path = join(outside, "secret.md");
    const j = await judge({ path });
    expect(j.pass).toBe(false);
    expect(j.reason).toMatch(/is absolute; write it relative to the workspace/);
    neverLeaks(j.evidence);
  });

  it("refuses a symbolic link to a file outside", async () => {
    await mkdir(join(ws.dir, "notes"));
    await symlink(join(outside, "secret.md"), join(ws.dir, "notes", "BB-042.md"));
    const j = await judge({ path: "notes/BB-042.md", contains: [SECRET] });
    expect(j.pass).toBe(false);
    expect(j.reason).toMatch(/leads outside the workspace through a symbolic link/);
    neverLeaks(j.evidence);
  });

  it("refuses a folder link leading outside, also for exists: false", async () => {
    await symlink(outside, join(ws.dir, "notes"));
    const present = await judge({ path: "notes/secret.md" });
    expect(present.reason).toMatch(/leads outside the workspace/);
    neverLeaks(present.evidence);
    const absent = await judge({ path: "notes/missing.md", exists: false });
    expect(absent.pass).toBe(false);
    expect(absent.reason).toMatch(/leads outside the workspace/);
  });

  it("refuses a dangling link that points outside", async () => {
    await symlink(join(outside, "not-there.md"), join(ws.dir, "gone.md"));
    const j = await judge({ path: "gone.md", exists: false });
    expect(j.pass).toBe(false);
    expect(j.reason).toMatch(/leads outside the workspace/);
  });

  it("follows a link that stays inside", async () => {
    await ws.write("drafts/final.md", RIGHT_NOTE);
    await mkdir(join(ws.dir, "notes"));
    await symlink(join(ws.dir, "drafts", "final.md"), join(ws.dir, "notes", "BB-042.md"));
    expect((await judge({ path: "notes/BB-042.md", contains: ["169/4"] })).pass).toBe(true);
  });

  it("treats a missing workspace as unjudgeable, not as the agent's failure", async () => {
    await expect(
      fileCheck.judge(spec({ kind: "file", path: "x.md" }), { ...ws.ctx(), workspaceDir: join(ws.dir, "nope") }),
    ).rejects.toThrow(/the workspace .* cannot be read/);
  });
});
