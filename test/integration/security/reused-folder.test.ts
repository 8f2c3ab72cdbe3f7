/**
 * A reused run folder, through the real CLI: the same --run-id and --out with a fresh --db. The
 * first run writes a correct note; the second run's model only answers "done". It must not pass on
 * the note the first run left: the trial starts from an empty workspace, and the earlier folder is
 * moved aside (kept, and named in the new trial's log), not deleted.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../../support/cli.js";
import { hostileRunArgs, startHostileModel } from "../../support/hostile-model.js";
import { events, scratch, trialFolder } from "./support.js";

const s = scratch("reuse");
afterAll(() => s.cleanup());

const NOTE =
  "match: BB-042\nteams: Pune Pioneers vs Jaipur Kites\nscores: Pune Pioneers 168/6, Jaipur Kites 169/4\nresult: Jaipur Kites won by 6 wickets\n";

describe("a reused run folder", () => {
  it("a second run with the same --run-id and --out starts from an empty workspace", async () => {
    const runId = "reused-run";
    let phase: "honest" | "lazy" = "honest";
    const model = await startHostileModel((_trial, turn) => {
      if (phase === "honest" && turn === 1) return [{ name: "write_note", args: { name: "BB-042.md", content: NOTE } }];
      return [{ name: "answer", args: { content: "done" } }];
    });
    try {
      const { args, env } = hostileRunArgs(model);
      const common = ["run", "api-note-bb042", ...args, "--run-id", runId, "--out", s.out, "--json"];

      const first = await runCli([...common, "--db", join(s.dir, "first.db")], { env });
      const firstTrial = JSON.parse(first.stdout).trials[0];
      expect(firstTrial.verdict).toBe("passed");
      expect(first.code).toBe(0);
      const folder = trialFolder(s.out, runId, firstTrial.id ?? firstTrial.trialId);
      expect(existsSync(join(folder, "workspace/notes/BB-042.md"))).toBe(true);

      phase = "lazy";
      const second = await runCli([...common, "--db", join(s.dir, "second.db")], { env });
      const trial = JSON.parse(second.stdout).trials[0];
      expect(trial.verdict).toBe("failed");
      expect(second.code).toBe(1);

      // The new trial's workspace is its own: no note from the first run.
      expect(readdirSync(join(folder, "workspace/notes"))).toEqual([]);
      // The first run's folder is kept beside it, and the new log says where it went.
      const started = events(folder).find((e) => e.type === "AgentStartedEvent")!;
      const moved = started.data.previousFolderMovedTo as string;
      expect(moved).toMatch(/\.stale-/);
      expect(existsSync(join(moved, "workspace/notes/BB-042.md"))).toBe(true);
    } finally {
      await model.close();
    }
  });
});
