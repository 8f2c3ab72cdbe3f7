/**
 * Symlinks in the workspace, through the real CLI: the hostile model plants a real symbolic link
 * in the running trial's workspace, then asks write_note to write through it. The note must not
 * land outside (the file outside keeps its bytes, no file appears in the folder outside), the
 * write is rejected in words that say why, and the file check does not read through the link,
 * so the trial cannot pass.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../../support/cli.js";
import { hostileRunArgs, startHostileModel } from "../../support/hostile-model.js";
import { events, scratch, trialFolder } from "./support.js";

const s = scratch("links");
afterAll(() => s.cleanup());

const NOTE =
  "match: BB-042\nteams: Pune Pioneers vs Jaipur Kites\nscores: Pune Pioneers 168/6, Jaipur Kites 169/4\nresult: Jaipur Kites won by 6 wickets\n";

describe("write_note and symbolic links", () => {
  it("never writes through a planted file link or folder link; the trial does not pass", async () => {
    const runId = "links-run";
    const outside = join(s.dir, "outside");
    mkdirSync(outside, { recursive: true });
    const victim = join(outside, "victim.txt");
    writeFileSync(victim, "ORIGINAL\n");

    const attacks: string[] = [];
    const model = await startHostileModel((trialId, turn) => {
      if (turn === 1) {
        const notes = join(trialFolder(s.out, runId, trialId), "workspace", "notes");
        if (attacks.length === 0) {
          // 1: notes/BB-042.md is a link to a file outside the workspace.
          symlinkSync(victim, join(notes, "BB-042.md"));
          attacks.push("file");
        } else {
          // 2: the notes folder itself is a link to a folder outside.
          renameSync(notes, `${notes}.moved`);
          symlinkSync(outside, notes);
          attacks.push("folder");
        }
        return [{ name: "write_note", args: { name: "BB-042.md", content: NOTE } }];
      }
      return [{ name: "answer", args: { content: "Saved notes/BB-042.md." } }];
    });
    try {
      const { args, env } = hostileRunArgs(model);
      const run = await runCli(
        [
          "run",
          "api-note-bb042",
          ...args,
          "--repeat",
          "2",
          "--concurrency",
          "1",
          "--run-id",
          runId,
          "--out",
          s.out,
          "--db",
          s.db,
          "--json",
        ],
        { env },
      );
      expect(attacks).toEqual(["file", "folder"]);
      // Nothing outside changed.
      expect(readFileSync(victim, "utf8")).toBe("ORIGINAL\n");
      expect(existsSync(join(outside, "BB-042.md"))).toBe(false);

      const body = JSON.parse(run.stdout);
      expect(body.trials).toHaveLength(2);
      for (const trial of body.trials) {
        expect(trial.verdict).toBe("failed");
        const log = events(trialFolder(s.out, runId, trial.id ?? trial.trialId));
        const text = JSON.stringify(log);
        expect(text).toMatch(/umpire does not write through links/);
      }
      expect(run.code).toBe(1);
    } finally {
      await model.close();
    }
  });
});
