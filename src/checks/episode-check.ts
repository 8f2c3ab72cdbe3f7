/**
 * The `episode` check: the reward the environment's own episode reported (a benchmark's pass rule,
 * e.g. BrowserGym's MiniWoB++ "raw reward > 0"). It reads what an episode capture recorded in the
 * trial's page (`PageProbe.episode`): the capture is installed before the page's scripts and keeps the
 * first finished episode in a closure, refusing writes the page's own code did not make, so an agent
 * that sets the reward globals itself fails here instead of passing. `verified`: umpire read it
 * through its own access to the page, after the agent's last action.
 */
import type { z } from "zod";
import type { EpisodeCheck } from "../task/schema.js";
import { CheckUnjudgeableError, type Handler, type Judgement } from "./types.js";

export type EpisodeCheckSpec = z.output<typeof EpisodeCheck>;

/** The read-only global a capture defines in the page: a function returning its `EpisodeRecord`. */
export const EPISODE_READER = "__umpireEpisode";

export const episodeCheck: Handler<EpisodeCheckSpec> = {
  confidence: "verified",
  defaultName: (spec) => `episode reward > ${spec.above}`,
  async judge(spec, ctx): Promise<Judgement> {
    if (!ctx.page?.episode) throw new CheckUnjudgeableError("an episode check needs the trial's page");
    const record = await ctx.page.episode();
    if (!record) {
      return {
        pass: false,
        reason: "the page holds no episode capture (was it left for another page?)",
        evidence: { record: null },
      };
    }
    const evidence = { ...record };
    if (record.refused.length > 0) {
      const first = record.refused[0]!;
      return {
        pass: false,
        reason: `something other than the page's own code wrote ${first.name} = ${first.value} (${record.refused.length} refused write(s)): a forged reward`,
        evidence,
      };
    }
    if (!record.done || record.rawReward === null) {
      return { pass: false, reason: "the episode did not finish (no reward)", evidence };
    }
    const pass = record.rawReward > spec.above;
    const why = record.reason ? ` (${record.reason})` : "";
    return {
      pass,
      reason: `the episode's raw reward was ${record.rawReward}${why}${pass ? "" : `, not above ${spec.above}`}`,
      evidence,
    };
  },
};
