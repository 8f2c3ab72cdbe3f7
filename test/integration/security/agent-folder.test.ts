/**
 * Issue #38 §1, through the real CLI with real command agents (Node programs in bubblewrap): umpire
 * never touches the agent's folder by path.
 * - an agent that replaces agent/stdout.log and stderr.log with links to a file outside (as one did
 *   to the task's custom check module, which then ran its code in the next `umpire validate`), and
 *   result.json with a link to a valid result, writes nothing outside and is not believed;
 * - an agent that replaces events.jsonl and result.json with named pipes (which froze umpire for
 *   good) does not hang the run: the trial ends agent_crashed with the reason, within seconds;
 * - an agent that writes past the folder's cap (64 MB) is ended, and what it added is removed;
 * - an agent that fills `--out` itself (a small tmpfs) makes umpire's next screenshot or evidence
 *   write a storage fault: exit 4, the run interrupted, no verdict stored (it finished "normally");
 * - the project's dotenv files (beside the config, and above the agent's folder) cannot be read in the sandbox.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "yaml";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../../../src/store/open.js";
import { REPO_ROOT, runCli } from "../../support/cli.js";
import { events, scratch, trialFolder } from "./support.js";

const s = scratch("agent-folder");
afterAll(() => s.cleanup());
const APP = join(REPO_ROOT, "test/fixtures/optimistic-app/app.mjs");

const PRELUDE = `import { execFileSync } from "node:child_process";
import { rmSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
const dir = dirname(process.env.UMPIRE_RESULT_FILE);
const swap = (name, to) => { rmSync(join(dir, name), { force: true }); symlinkSync(to, join(dir, name)); };
const pipe = (file) => { rmSync(file, { force: true }); execFileSync("mkfifo", [file]); };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
`;
/** Links where umpire's logs and its result were; then prints, so umpire has something to append. */
const LINKER = `${PRELUDE}
swap("stdout.log", process.env.VICTIM);
swap("stderr.log", process.env.VICTIM);
swap("result.json", process.env.FORGED_RESULT);
swap("events.jsonl", process.env.FORGED_EVENTS);
for (let i = 0; i < 20; i++) { console.log("APPENDED BY THE AGENT " + i); console.error("APPENDED BY THE AGENT " + i); await sleep(50); }
`;
/** Named pipes where umpire reads: opening one for reading waits for a writer that never comes. */
const PIPER = `${PRELUDE}
pipe(process.env.UMPIRE_EVENTS_FILE);
pipe(process.env.UMPIRE_RESULT_FILE);
await sleep(1500);
`;

/** Writes 8 MB files into its folder until it is stopped. */
const FILLER = `${PRELUDE}
import { writeFileSync } from "node:fs";
const block = Buffer.alloc(8 * 1024 * 1024, 120);
for (let i = 0; i < 40; i++) { writeFileSync(join(dir, "fill-" + i), block); await sleep(100); }
writeFileSync(process.env.UMPIRE_RESULT_FILE, JSON.stringify({ answer: "filled" }));
`;

/** Fills the filesystem under its folder, then frees one 4 KB page: umpire's small appends fit, a picture does not. */
const DISK_FILLER = `${PRELUDE}
import { writeFileSync } from "node:fs";
let i = 0;
try { for (;;) writeFileSync(join(dir, "mb-" + i++), Buffer.alloc(1024 * 1024, 120)); } catch {}
try { for (;;) writeFileSync(join(dir, "page-" + i++), Buffer.alloc(4096, 120)); } catch {}
rmSync(join(dir, "page-" + (i - 2)), { force: true });
writeFileSync(process.env.UMPIRE_RESULT_FILE, JSON.stringify({ answer: "full" }));
`;

/** Reads the project's dotenv files (its own folder and the one above) and answers with what it read. */
const DOTENV_READER = `${PRELUDE}
import { readFileSync, writeFileSync } from "node:fs";
const read = (f) => { try { return readFileSync(f, "utf8"); } catch (e) { return e.code; } };
const answer = [read(".env"), read("../.env.local")].join(" | ");
writeFileSync(process.env.UMPIRE_RESULT_FILE, JSON.stringify({ answer: answer || "(empty)" }));
`;
const DOTENV_SECRET = "DOTENV-SECRET-4242";

const TASK = {
  id: "save-apple",
  title: "Save apple",
  target: "optimistic",
  instruction: "In the app, save an item named apple.",
  givens: ["apple"],
  start: { path: "/" },
  tools: ["click", "write", "answer"],
  limits: { seconds: 60 },
  checks: [
    {
      kind: "page",
      name: "the saved page says apple is saved",
      open: "/saved/apple",
      selector: "#status",
      text: "Saved apple",
    },
  ],
  reference: [
    { tool: "click", target: "name" },
    { tool: "write", args: { content: "apple" } },
    { tool: "click", target: "save" },
    { tool: "answer", args: { content: "Saved apple" } },
  ],
};

const VICTIM_TEXT = "export default { checks: {} }; // the task's custom check module\n";
const dir = join(s.dir, "project");
mkdirSync(dir, { recursive: true });
const victim = join(dir, "victim-check.mjs");
writeFileSync(victim, VICTIM_TEXT);
const forgedResult = join(dir, "forged-result.json");
writeFileSync(forgedResult, JSON.stringify({ answer: "Saved apple (forged)", outcome: "success" }));
const forgedEvents = join(dir, "forged-events.jsonl");
writeFileSync(
  forgedEvents,
  `${JSON.stringify({ type: "AgentEvent", data: { kind: "answer_event", answer: "forged through a link" } })}\n`,
);
writeFileSync(join(dir, "linker.mjs"), LINKER);
writeFileSync(join(dir, "piper.mjs"), PIPER);
writeFileSync(join(dir, "filler.mjs"), FILLER);
writeFileSync(join(dir, "disk-filler.mjs"), DISK_FILLER);
writeFileSync(join(dir, "dotenv-reader.mjs"), DOTENV_READER);
writeFileSync(join(dir, ".env"), `API_KEY=${DOTENV_SECRET}\n`);
writeFileSync(join(s.dir, ".env.local"), `OTHER_KEY=${DOTENV_SECRET}\n`);
const task = join(dir, "save-apple.yaml");
writeFileSync(task, stringify(TASK));
const config = join(dir, "umpire.config.yaml");
writeFileSync(
  config,
  stringify({
    targets: {
      optimistic: {
        baseUrl: "http://127.0.0.1:${PORT}",
        start: { command: [process.execPath, APP], readyUrl: "/" },
        context: { headers: { "x-trial": "${TRIAL_ID}" } },
        isolated: true,
        marks: { name: { selector: "#name" }, save: { role: "button", name: "Save", exact: true } },
      },
    },
    agents: {
      linker: {
        kind: "command",
        command: [process.execPath, "linker.mjs"],
        env: { VICTIM: victim, FORGED_RESULT: forgedResult, FORGED_EVENTS: forgedEvents },
      },
      piper: { kind: "command", command: [process.execPath, "piper.mjs"] },
      filler: { kind: "command", command: [process.execPath, "filler.mjs"] },
      "disk-filler": { kind: "command", command: [process.execPath, "disk-filler.mjs"] },
      "dotenv-reader": { kind: "command", command: [process.execPath, "dotenv-reader.mjs"] },
    },
  }),
);

type TrialJson = {
  id: string;
  agent: string;
  verdict: string;
  stopReason: string;
  stopDetail: string;
  answer: string | null;
};

describe("umpire never follows the agent's names in its folder", () => {
  it("links in place of the logs, the events and the result: nothing written outside, nothing believed; pipes: no hang", async () => {
    const began = Date.now();
    const run = await runCli(
      [
        "run",
        task,
        "--config",
        config,
        "--agent",
        "linker",
        "--agent",
        "piper",
        "--retries",
        "0",
        "--run-id",
        "swapped",
        "--out",
        s.out,
        "--db",
        s.db,
        "--json",
      ],
      { killAfterMs: 240_000 },
    );
    const seconds = (Date.now() - began) / 1000;
    expect(run.code, run.stderr).toBe(1);
    const trials = JSON.parse(run.stdout).trials as TrialJson[];
    const linker = trials.find((t) => t.agent === "linker")!;
    const piper = trials.find((t) => t.agent === "piper")!;

    // Nothing was appended through the links: the "custom check module" is as it was.
    expect(readFileSync(victim, "utf8")).toBe(VICTIM_TEXT);
    const linkerFolder = join(trialFolder(s.out, "swapped", linker.id), "agent");
    // umpire's descriptors, opened before the agent started, still hold its output (unlinked from the folder).
    expect([linker.verdict, linker.stopReason]).toEqual(["failed", "agent_crashed"]);
    expect(linker.stopDetail).toContain("the result file was not read: it is a symbolic link");
    expect(linker.answer).toBeNull();
    const linkerLog = events(trialFolder(s.out, "swapped", linker.id));
    expect(JSON.stringify(linkerLog)).not.toContain("forged through a link");
    expect(
      linkerLog.some((e) => String(e.data.error).includes("the events file was not read: it is a symbolic link")),
    ).toBe(true);
    expect(existsSync(linkerFolder)).toBe(true);

    expect([piper.verdict, piper.stopReason]).toEqual(["failed", "agent_crashed"]);
    expect(piper.stopDetail).toContain("the result file was not read: it is a named pipe, not a regular file");
    const piperLog = events(trialFolder(s.out, "swapped", piper.id));
    expect(
      piperLog.some((e) => String(e.data.error).includes("the events file was not read: it is a named pipe")),
    ).toBe(true);
    // Both ended on their own, well inside the task's 60 s limit (a pipe used to hold umpire for good).
    expect(seconds).toBeLessThan(120);
  }, 300_000);

  it("an agent that fills its folder past the cap is ended, and what it added is removed", async () => {
    const run = await runCli(
      [
        "run",
        task,
        "--config",
        config,
        "--agent",
        "filler",
        "--retries",
        "0",
        "--run-id",
        "filled",
        "--out",
        s.out,
        "--db",
        s.db,
        "--json",
      ],
      { killAfterMs: 240_000 },
    );
    expect(run.code, run.stderr).toBe(1);
    const [trial] = JSON.parse(run.stdout).trials as TrialJson[];
    expect([trial!.verdict, trial!.stopReason]).toEqual(["failed", "agent_crashed"]);
    expect(trial!.stopDetail).toMatch(/the agent's folder holds \d+ MB, more than the cap of 64 MB/);
    const folder = trialFolder(s.out, "filled", trial!.id);
    expect(readdirSync(join(folder, "agent")).filter((n) => n.startsWith("fill-"))).toEqual([]);
    expect(events(folder).some((e) => e.data.origin === "agent_folder")).toBe(true);
  }, 300_000);

  it("the project's dotenv files cannot be read in the sandbox", async () => {
    const run = await runCli(
      [
        "run",
        task,
        "--config",
        config,
        "--agent",
        "dotenv-reader",
        "--run-id",
        "dotenv",
        "--out",
        s.out,
        "--db",
        s.db,
        "--json",
      ],
      { killAfterMs: 240_000 },
    );
    const [trial] = JSON.parse(run.stdout).trials as TrialJson[];
    expect(trial!.stopReason, run.stderr).toBe("answered");
    // Neither reads: each is masked (bubblewrap's mask of a file refuses it: EACCES) or absent.
    expect(trial!.answer).toMatch(/^(EACCES|ENOENT)? \| (EACCES|ENOENT)?$/);
    expect(run.stdout + run.stderr).not.toContain(DOTENV_SECRET);
  }, 300_000);

  /** A real 24 MB tmpfs as --out (below the folder's cap, so the disk fills first), where this process may mount one. */
  const small = join(s.dir, "small");
  mkdirSync(small);
  let mounted = false;
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=24m", "tmpfs", small], { stdio: "ignore" });
    mounted = true;
  } catch {
    console.info("agent-folder: no tmpfs could be mounted; the full --out case is skipped");
  }
  afterAll(() => {
    if (mounted) execFileSync("umount", [small]);
  });

  it.skipIf(!mounted)(
    "an agent that fills --out: umpire's next write is a storage fault (exit 4), not a silent gap",
    async () => {
      const run = await runCli(
        [
          "run",
          task,
          "--config",
          config,
          "--agent",
          "disk-filler",
          "--retries",
          "0",
          "--run-id",
          "disk-full",
          "--out",
          join(small, "runs"),
          "--db",
          s.db,
        ],
        { killAfterMs: 240_000 },
      );
      expect(run.stderr).toContain("no space left on the device");
      expect(run.stderr).toContain("run disk-full was stopped and marked interrupted");
      expect(run.code, run.stderr).toBe(4);
      const store = openStore(s.db, { readonly: true });
      try {
        expect(store.getRun("disk-full").status).toBe("interrupted");
        expect(store.trials("disk-full").map((t) => t.verdict)).toEqual([null]);
      } finally {
        store.close();
      }
    },
    300_000,
  );
});
