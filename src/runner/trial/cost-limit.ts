/**
 * Money limits, checked before each model request like the token budget: a task's `limits.usd`
 * per trial and `umpire run --max-cost USD` for the whole run. The next request is assumed to cost
 * what the last one did (requests grow, so that is a floor): a trial stops when what it spent plus
 * that would pass its limit.
 *
 * The trial's own limit is the agent's doing, like `token_budget`: the task declared what a trial
 * may spend and the agent spent it; its checks still judge what it did. The run's limit is not: a
 * trial stopped because other trials spent the run's money is left unjudged (verdict `cancelled`,
 * `umpire run --resume` runs it again), since the agent did nothing wrong.
 */
import type { Usage } from "../../vocabulary.js";

/** The run's spend, shared by every trial (and every round of --until-decided). */
export interface RunSpend {
  limitUsd: number;
  spentUsd: number;
}

export interface SpendStop {
  scope: "trial" | "run";
  detail: string;
}

const usd = (x: number) => `$${Number(x.toPrecision(3))}`;

/**
 * The check a trial's loop calls before each request with the trial's summed usage; null when
 * no limit applies. `costOf` prices usage (null: the model has no price, the limit cannot be held).
 */
export function spendCheck(
  trialLimitUsd: number | undefined,
  run: RunSpend | undefined,
  costOf: (usage: Usage) => number | null,
): ((usage: Usage, turns: number) => SpendStop | null) | undefined {
  if (trialLimitUsd === undefined && run === undefined) return undefined;
  let before = 0;
  let spent = 0;
  return (usage, turns) => {
    const now = costOf(usage);
    if (now === null) return null;
    if (now !== spent) [before, spent] = [spent, now];
    const next = spent - before;
    if (run && (run.spentUsd >= run.limitUsd || (turns > 0 && run.spentUsd + next > run.limitUsd))) {
      return {
        scope: "run",
        detail: `the run spent ${usd(run.spentUsd)} of its --max-cost ${usd(run.limitUsd)}; the next request (~${usd(next)}) was not sent`,
      };
    }
    if (trialLimitUsd !== undefined && turns > 0 && spent + next > trialLimitUsd) {
      return {
        scope: "trial",
        detail: `${usd(spent)} of limits.usd ${usd(trialLimitUsd)} spent; the next request (~${usd(next)}) would not fit`,
      };
    }
    return null;
  };
}
