/**
 * `umpire plan --detect POINTS [--baseline RUN]`: the repeats per task a run needs so that comparing
 * it with the baseline detects a pass-rate drop of POINTS (80% power, alpha 0.05 by default), from
 * the variance the baseline's repeats showed (src/report/repeat-plan.ts).
 */
import { UmpireError } from "../../errors.js";
import { reportedCost } from "../../report/cost.js";
import { baselineCounts, planRepeats, type RepeatPlan } from "../../report/repeat-plan.js";
import type { CommandOption } from "../command.js";
import { OPTIONS as O, PRICE_OPTIONS } from "../../config/options.js";
import { type ParsedCommand, pricesOf } from "../args.js";
import { defineCommand } from "../command.js";
import { resolveBaseline } from "../baseline.js";
import { EXIT } from "../exit-codes.js";
import type { CommandIO } from "../io.js";
import { withReadStore } from "../read-store.js";

const OPTIONS = {
  detect: {
    kind: "number",
    arg: "POINTS",
    required: true,
    min: 0.1,
    max: 100,
    help: "the pass-rate drop to detect, in points (10 = 10 points)",
  },
  baseline: {
    kind: "string",
    arg: "RUN|TAG",
    help: "the run to compare against later; its repeats give the variance\n(default: the worst case, every task passing half the time)",
  },
  tasks: {
    kind: "int",
    arg: "N",
    min: 1,
    defaultText: "the baseline's tasks x agents",
    help: "tasks the comparison will pair",
  },
  alpha: {
    kind: "number",
    arg: "A",
    min: 0.0001,
    max: 0.5,
    default: 0.05,
    help: "significance level of the comparison",
  },
  power: { kind: "number", arg: "P", min: 0.5, max: 0.999, default: 0.8, help: "the chance of detecting the drop" },
  json: { ...O.json, help: "print JSON only" },
  db: O.db,
  ...PRICE_OPTIONS,
} as const satisfies Record<string, CommandOption>;

export const run = defineCommand({
  name: "plan",
  options: OPTIONS,
  positionals: [],
  example: "umpire plan --detect 10 --baseline RUN (a 10-point drop)",
  description: `Estimates the repeats per task a run needs so that \`umpire compare\` against the baseline detects a
pass-rate drop of POINTS with the given power, from the variance of the baseline's repeats (Connor's
sample size for the paired McNemar test; docs/reporting.md, "How sure").`,
  run: execute,
});

const usd = (x: number | null) =>
  x === null ? "unknown (a model without a price, or no baseline)" : `$${x.toPrecision(3)}`;

function planText(p: RepeatPlan, baseline: string | null): string {
  const noise =
    p.noiseFrom === "worst case"
      ? `${(p.noise * 100).toFixed(1)}% discordant pairs, the worst case (${baseline ? `run ${baseline} has no task with two repeats` : "no --baseline"})`
      : `${(p.noise * 100).toFixed(1)}% discordant pairs, from the repeats of run ${baseline}`;
  return [
    `to detect a drop of ${(p.drop * 100).toFixed(1)} points with ${Math.round(p.power * 100)}% power at alpha ${p.alpha}:`,
    `  repeats per task  ${p.repeatsPerTask} (--repeat ${p.repeatsPerTask})`,
    `  trials            ${p.trials} (${p.tasks} tasks; ${p.pairsNeeded} paired repeats needed)`,
    `  noise             ${noise}`,
    `  estimated cost    ${usd(p.estimatedCostUsd)}`,
    ...(p.sameEveryRepeat
      ? [
          `  note              every task of run ${baseline} gave one result in every repeat: if the agent is deterministic,
                    its repeats are copies (compare counts them once), and only more tasks, not repeats, make it surer`,
        ]
      : []),
    "",
  ].join("\n");
}

async function execute(parsed: ParsedCommand<typeof OPTIONS>, io: CommandIO): Promise<number> {
  const { values } = parsed;
  const prices = pricesOf(values, parsed.config);
  const baseline =
    values.baseline === undefined
      ? null
      : withReadStore(values.db, io, (store) => {
          const run = resolveBaseline(store, values.baseline!, []);
          return {
            id: run.id,
            ...baselineCounts(store.trials(run.id).map((t) => ({ ...t, costUsd: reportedCost(t, prices) }))),
          };
        });
  const tasks = values.tasks ?? baseline?.counts.length;
  if (!tasks) {
    const why = baseline
      ? `run ${baseline.id} has no passed or failed trial`
      : "without --baseline the number of tasks is unknown";
    throw new UmpireError(
      "usage",
      `plan: ${why}`,
      "give --tasks N (the tasks the comparison will pair), or a --baseline with finished trials",
    );
  }
  const plan = planRepeats({
    drop: values.detect / 100,
    tasks,
    baseline: baseline?.counts ?? [],
    alpha: values.alpha,
    power: values.power,
    meanTrialCostUsd: baseline?.meanTrialCostUsd ?? null,
  });
  io.stdout.write(
    values.json
      ? `${JSON.stringify({ baseline: baseline?.id ?? null, plan }, null, 2)}\n`
      : planText(plan, baseline?.id ?? null),
  );
  return EXIT.ok;
}
