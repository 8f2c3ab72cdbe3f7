/**
 * `umpire compare`: two runs side by side, or one run split by mode, model, tag or agent, with paired
 * statistics; with `--fail-on-regression` it is a CI gate (exit 1 on a regression).
 */
import { writeOutputFile } from "../output-file.js";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { defaultReportDir } from "../../report/html/writer.js";
import { sideBySideUrl } from "../../report/html/layout.js";
import { UmpireError } from "../../errors.js";
import type { Store } from "../../store/store.js";
import type { TrialRecord } from "../../store/records.js";
import {
  compareGroups,
  groupRunsByTag,
  groupTrialsBy,
  type CompareBy,
  type CompareGroupInput,
  type Comparison,
} from "../../report/compare.js";
import { divergenceSection, type Divergence } from "../../report/divergence.js";
import { divergencesBetween } from "../divergence-tools.js";
import { reportedCost } from "../../report/cost.js";
import { junitXml } from "../../report/junit.js";
import { compareMarkdown } from "../../report/markdown.js";
import type { PriceBook } from "../../pricing.js";
import { GATE_BASIS } from "../../report/how-sure.js";
import { judgeRegression, type RegressionVerdict } from "../../report/regression.js";
import { compareText } from "../../report/tables.js";
import { terminalStyle } from "../../report/table-layout.js";
import type { OptionSpec } from "../../config/option.js";
import { OPTIONS as O, PRICE_OPTIONS } from "../../config/options.js";
import { type ParsedCommand, pricesOf } from "../args.js";
import { defineCommand } from "../command.js";
import { EXIT } from "../exit-codes.js";
import type { CommandIO } from "../io.js";
import { withReadStore } from "../read-store.js";
import { resolveBaseline } from "../baseline.js";
import { environmentLines, rejudgedLines } from "../../report/environment-diff.js";
import { changeLines, sidesOf } from "../../report/agent-changes.js";

const BY: readonly CompareBy[] = ["mode", "model", "tag", "agent"];

const OPTIONS = {
  by: {
    kind: "enum",
    arg: "mode|model|tag|agent",
    values: BY,
    help: "split the given run(s) into groups instead of comparing runs",
  },
  baseline: {
    kind: "string",
    arg: "RUN|TAG",
    help: "the run to compare against (a tag means the newest run with it);\nthe candidate is the given run, or the latest run",
  },
  "fail-on-regression": {
    kind: "boolean",
    help: `exit ${EXIT.failed} when the pass rate drops significantly (McNemar p < 0.05), a\nstable task flips to failing, or cost per success rises too much`,
  },
  "max-cost-increase": {
    kind: "number",
    arg: "PCT",
    min: 0,
    help: "the cost-per-success rise (percent) that counts as a regression",
  },
  "include-changed-tasks": {
    kind: "boolean",
    help: 'pair tasks whose content changed between the runs (default: they are\nmarked "task changed" and left out of the paired analysis and the gate)',
  },
  k: { kind: "int", arg: "N", min: 1, defaultText: "the fewest repeats of any task", help: "k for pass@k and pass^k" },
  seed: { kind: "int", arg: "N", min: 0, default: 1, help: "bootstrap seed" },
  json: { ...O.json, help: "print JSON only" },
  markdown: { kind: "boolean", help: "print Markdown (for a pull-request comment)" },
  junit: {
    kind: "string",
    arg: "FILE",
    help: "also write the compared trials as JUnit XML (the candidates when gating)",
  },
  db: O.db,
  ...PRICE_OPTIONS,
} as const satisfies Record<string, OptionSpec>;

export const run = defineCommand({
  name: "compare",
  options: OPTIONS,
  positionals: [{ name: "run", variadic: true }],
  retired: {
    "include-changed-agents":
      "no longer needed: an agent changed under its own name is the change under test, and its pairs always count",
  },
  description: `Forms:
  umpire compare <runA> <runB> [options]
  umpire compare <run>... --by mode|model|tag|agent [options]
  umpire compare [run] --baseline <run|tag> --fail-on-regression [--max-cost-increase PCT]

One row per task and group: passes k/n, pass@k, pass^k, mean cost, cost per success, p50/p95 wall
time, turns, actions, invalid calls per turn (when stored: then also a line per group with their
kinds, "not recorded" where none was), false successes, stop reasons; a summary row per group with a
Wilson 95% interval; then each group against the first: flipped and flaky tasks, exact McNemar test,
bootstrap interval on the pass-rate difference, cost and latency deltas. For two runs, each
flipped task's line says at which turn the candidate's trajectory left the baseline's (action
signature, screen similarity); \`umpire report <runB> --baseline <runA>\` shows it side by side.

Runs are ids, unique id prefixes or "latest".`,
  run: execute,
});

/**
 * For a comparison inside one run: per task, a link to the report's side-by-side view of the
 * first trial of the first two groups (the report must exist: `umpire report <run>`).
 */
function sideBySideLinks(store: Store, groups: readonly CompareGroupInput[], cwd: string): string {
  const runIds = new Set(groups.flatMap((g) => g.trials.map((t) => t.runId)));
  if (runIds.size !== 1 || groups.length < 2) return "";
  const run = store.getRun([...runIds][0]!);
  const dir = defaultReportDir(run, cwd);
  if (!existsSync(join(dir, "index.html"))) return `\nside-by-side views: run \`umpire report ${run.id}\` first\n`;
  const [a, b] = groups;
  const lines = [...new Set(a!.trials.map((t) => t.taskId))].flatMap((task) => {
    const ta = a!.trials.find((t) => t.taskId === task);
    const tb = b!.trials.find((t) => t.taskId === task);
    return ta && tb ? [`  ${task}: ${sideBySideUrl(dir, ta.seq, tb.seq)}`] : [];
  });
  return lines.length ? `\nside by side (${a!.label} | ${b!.label}):\n${lines.join("\n")}\n` : "";
}

/** Two runs compared: where each flipped task's candidate trajectory left the baseline's (src/report/divergence.ts). */
function runDivergences(
  store: Store,
  comparison: Comparison,
  groups: readonly CompareGroupInput[],
  cwd: string,
): Divergence[] {
  if (groups.length !== 2) return [];
  return divergencesBetween(store, store.getRun(groups[0]!.label), store.getRun(groups[1]!.label), cwd, comparison);
}

function trialsPriced(store: Store, runId: string, prices: PriceBook): TrialRecord[] {
  return store.trials(runId).map((t) => ({ ...t, costUsd: reportedCost(t, prices) }));
}

/** The groups the command compares: whole runs (two, or a run and its --baseline), or runs split by --by. */
function groupsToCompare(
  store: Store,
  by: CompareBy | undefined,
  positionals: readonly string[],
  baseline: string | undefined,
  prices: PriceBook,
): CompareGroupInput[] {
  let groups: CompareGroupInput[];
  if (by === "mode" || by === "model" || by === "agent") {
    const runs = (positionals.length > 0 ? positionals : ["latest"]).map((ref) => store.getRun(ref));
    groups = groupTrialsBy(
      runs.flatMap((r) => trialsPriced(store, r.id, prices)),
      by,
    );
  } else if (by === "tag") {
    const runs = positionals.map((ref) => store.getRun(ref));
    groups = groupRunsByTag(runs.map((r) => ({ id: r.id, tags: r.tags, trials: trialsPriced(store, r.id, prices) })));
  } else {
    let runs = positionals.map((ref) => store.getRun(ref));
    if (baseline !== undefined) {
      if (runs.length === 0) runs = [store.getRun("latest")];
      runs = [
        resolveBaseline(
          store,
          baseline,
          runs.map((r) => r.id),
        ),
        ...runs,
      ];
    }
    if (runs.length < 2)
      throw new UmpireError(
        "usage",
        "compare needs two runs, a --baseline, or --by",
        "umpire compare <runA> <runB>, or umpire compare <run> --by mode",
      );
    groups = runs.map((r) => ({ label: r.id, runIds: [r.id], trials: trialsPriced(store, r.id, prices) }));
  }
  const labels = groups.map((g) => g.label);
  if (new Set(labels).size !== labels.length)
    throw new UmpireError("usage", `the same run appears twice: ${labels.join(", ")}`, "compare two different runs");
  if (groups.length < 2) {
    throw new UmpireError(
      "usage",
      `nothing to compare: every trial falls in one group (${labels.join(", ") || "none"})`,
      by ? `the runs have only one ${by}` : "give two runs",
    );
  }
  return groups;
}

async function execute(parsed: ParsedCommand<typeof OPTIONS>, io: CommandIO): Promise<number> {
  const { values, positionals } = parsed;
  const by = values.by;
  if (by && values.baseline)
    throw new UmpireError(
      "usage",
      "--baseline compares whole runs and cannot be combined with --by",
      "drop one of them",
    );
  if (values.json && values.markdown)
    throw new UmpireError("usage", "--json and --markdown both asked for", "choose one output format");
  const maxCost = values["max-cost-increase"];
  const { k, seed } = values;
  const prices = pricesOf(values, parsed.config);

  return withReadStore(values.db, io, (store) => {
    const gating = values.baseline !== undefined || values["fail-on-regression"] === true;
    const groups = groupsToCompare(store, by, positionals, values.baseline, prices);

    const comparison = compareGroups(groups, by ?? "run", {
      k,
      seed,
      includeChangedTasks: values["include-changed-tasks"] === true,
    });
    const verdicts: RegressionVerdict[] = gating
      ? comparison.paired.map((p) => judgeRegression(p, p.costPerSuccess, { maxCostIncreasePct: maxCost }))
      : [];
    // Whole runs compared: what changed around them (environment), and which trials were re-judged.
    const compared = by ? [] : groups.map((g) => store.getRun(g.label));
    const environment = environmentLines(compared);
    const marks = [...environment, ...rejudgedLines(compared.map((r, i) => ({ id: r.id, trials: groups[i]!.trials })))];
    const verdict: RegressionVerdict | undefined = gating
      ? {
          regressed: verdicts.some((v) => v.regressed),
          basis: GATE_BASIS,
          reasons: verdicts.flatMap((v) => v.reasons),
          notes: [
            ...verdicts.flatMap((v) => v.notes),
            ...environment.map((e) => `${e}: not a like-for-like comparison, a change may come from it`),
          ],
        }
      : undefined;

    if (values.junit) {
      const suites = (gating ? groups.slice(1) : groups).map((g) => ({
        name: g.label,
        trials: g.trials.map((t) => ({ trial: t as TrialRecord, checks: store.checks(t.id) })),
      }));
      writeOutputFile(resolve(io.cwd, values.junit), junitXml(suites), `--junit ${values.junit}`);
    }
    const divergences = by ? [] : runDivergences(store, comparison, groups, io.cwd);
    const markText = marks.map((m) => `${m}\n`).join("");
    // Runs compared (not one run split by a dimension): what changed between them, said first.
    const changes =
      by === undefined || by === "tag"
        ? changeLines(
            comparison,
            sidesOf(
              comparison,
              (id) => store.getRun(id),
              (label) => groups.find((g) => g.label === label)?.trials ?? [],
            ),
            values["include-changed-tasks"] === true,
          )
        : [];
    if (values.json)
      io.stdout.write(
        `${JSON.stringify({ changes, comparison, regression: verdict ?? null, marks, divergences }, null, 2)}\n`,
      );
    else if (values.markdown) {
      const divergenceText = divergenceSection(divergences, groups[0]!.label, groups[1]!.label, true);
      const head = changes.map((c) => `- ${c}\n`).join("");
      io.stdout.write(
        (head ? `${head}\n` : "") +
          compareMarkdown(comparison, verdict) +
          marks.map((m) => `- ${m}\n`).join("") +
          divergenceText,
      );
    } else {
      const head = changes.map((c) => `${c}\n`).join("");
      io.stdout.write(
        (head ? `${head}\n` : "") + compareText(comparison, terminalStyle(io.stdout, io.env), verdict) + markText,
      );
      io.stdout.write(divergenceSection(divergences, groups[0]!.label, groups[1]!.label));
      if (by === "mode" || by === "model" || by === "agent") io.stdout.write(sideBySideLinks(store, groups, io.cwd));
    }
    return values["fail-on-regression"] && verdict?.regressed ? EXIT.failed : EXIT.ok;
  });
}
