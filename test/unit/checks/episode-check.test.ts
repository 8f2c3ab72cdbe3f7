/**
 * The `episode` check judges the record an episode capture kept in the trial's page: a finished
 * episode's raw reward above `above` passes; a refused (forged) write fails whatever the reward; an
 * unfinished episode, or a page without a capture, fails; a context with no page cannot judge.
 */
import { describe, expect, it } from "vitest";
import { runCheck } from "../../../src/checks/registry.js";
import type { CheckContext, EpisodeRecord } from "../../../src/checks/types.js";
import { CheckSpec } from "../../../src/task/schema.js";

const finished = (rawReward: number, refused: EpisodeRecord["refused"] = []): EpisodeRecord => ({
  done: true,
  rawReward,
  reward: rawReward * 0.9,
  reason: null,
  refused,
});

function ctxWith(record: EpisodeRecord | null): CheckContext {
  const page = {
    current: async () => {
      throw new Error("not used");
    },
    open: async () => {
      throw new Error("not used");
    },
    isTaskPage: () => true,
    episode: async () => record,
  };
  return { workspaceDir: "/nowhere", effects: [], answer: null, page } as unknown as CheckContext;
}

const spec = (above?: number) => CheckSpec.parse({ kind: "episode", ...(above === undefined ? {} : { above }) });

describe("episode check", () => {
  it("passes a raw reward above 0 by default and names it; above sets the bar", async () => {
    const pass = await runCheck(spec(), ctxWith(finished(1)));
    expect(pass).toMatchObject({ pass: true, confidence: "verified", name: "episode reward > 0" });
    expect(pass.reason).toBe("the episode's raw reward was 1");
    expect((await runCheck(spec(), ctxWith(finished(-1)))).pass).toBe(false);
    expect((await runCheck(spec(0.5), ctxWith(finished(0.4)))).pass).toBe(false);
    expect((await runCheck(spec(0.5), ctxWith(finished(0.6)))).pass).toBe(true);
  });

  it("fails a forged write even beside a genuine reward", async () => {
    const forged = finished(1, [{ name: "WOB_RAW_REWARD_GLOBAL", value: "1", stack: "at <anonymous>:1:1" }]);
    const result = await runCheck(spec(), ctxWith(forged));
    expect(result.pass).toBe(false);
    expect(result.reason).toContain("something other than the page's own code wrote WOB_RAW_REWARD_GLOBAL = 1");
  });

  it("fails an unfinished episode and a page without a capture; crashes without a page", async () => {
    const open: EpisodeRecord = { done: false, rawReward: null, reward: null, reason: null, refused: [] };
    expect((await runCheck(spec(), ctxWith(open))).reason).toBe("the episode did not finish (no reward)");
    expect((await runCheck(spec(), ctxWith(null))).reason).toContain("no episode capture");
    const none = await runCheck(spec(), { workspaceDir: "/nowhere", effects: [], answer: null } as CheckContext);
    expect(none.crashed).toBe(true);
  });
});
