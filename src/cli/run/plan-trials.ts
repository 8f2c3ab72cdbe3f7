/**
 * Phase "plan": the run id and folder and the trials to run now: a new run's full plan (narrowed
 * to what did not pass with --last-failed, cut to one shard with --shard), or a resumed run's
 * unfinished trials. `--list` prints the plan and ends the run here.
 */
import { redactConfig } from "../../agent/config.js";
import { taskPartHashes } from "../../task/content-hash.js";
import { planTrials, storedPlan, type PlannedTrial } from "../../runner/schedule/trial-plan.js";
import { assignShards, shardLabel } from "../../runner/schedule/shards.js";
import { UmpireError } from "../../errors.js";
import type { StoredRunOptionsInput, StoredShard } from "../../store/run-options.js";
import type { Store } from "../../store/store.js";
import { newRunId } from "../../vocabulary.js";
import { EXIT } from "../exit-codes.js";
import { withReadStore } from "../read-store.js";
import { hasTaskFilter, keepPairs, pairKey } from "./selection.js";
import { resumeIgnoresOut } from "./storage-fault.js";
import { runFolder } from "../../runtime/suite-runtime.js";
import { VERSION } from "../../runtime/version.js";
import { withoutUrlCredentials } from "../../safety/secrets.js";
import { commandSpecs, storable } from "./agents.js";
import { agentProtocolRecords } from "./named-agents.js";
import { storedPack } from "./pack.js";
import { fromPhase, type Plan, type RunContext, type Selection } from "./context.js";
import type { Phase } from "./phases.js";

export const planPhase: Phase<RunContext> = {
  title: "plan",
  setup(ctx) {
    const selection = fromPhase(ctx.selection, "select");
    const plan = selection.resumed ? planResumed(ctx, selection, selection.resumed) : planNew(ctx, selection);
    if (plan === "nothing to re-run") return EXIT.ok;
    ctx.plan = plan;
    if (ctx.values.list) {
      ctx.io.stdout.write(
        ctx.values.json
          ? `${JSON.stringify(listJson(plan.trials, plan.shardOfTrial), null, 2)}\n`
          : listText(plan.trials, plan.shardOfTrial),
      );
      return EXIT.ok;
    }
  },
};

/** Every trial the selected tasks x agents x repeats give, with the commands of command agents. */
function fullPlan(ctx: RunContext, selection: Selection, runId: string, repeat: number): PlannedTrial[] {
  const commands = commandSpecs(selection.commandAgents, ctx.settings.sandbox, ctx.io.env, ctx.values.list === true);
  const trials = planTrials(
    runId,
    selection.tasks,
    [...selection.agents, ...selection.commandAgents.map((c) => c.config)],
    repeat,
    commands,
  );
  // A pair the agent's protocol cannot play is left out (its ids stay those of the full plan, as with --last-failed).
  const skipped = new Set((selection.notPlayed ?? []).map((p) => pairKey(p.task, p.agent)));
  return skipped.size ? trials.filter((t) => !skipped.has(pairKey(t.task.id, t.agent.label))) : trials;
}

/** `--resume`: the run's unfinished trials, matched by task, agent and repeat to today's plan of its tasks and agents. */
function planResumed(ctx: RunContext, selection: Selection, resumed: NonNullable<Selection["resumed"]>): Plan {
  const store = fromPhase(ctx.store, "select");
  const runId = resumed.id;
  const runDir = resumed.folder ?? runFolder(ctx.settings.outDir, runId);
  ctx.stage.resuming = runId;
  const ignored = ctx.values.list
    ? null
    : resumeIgnoresOut(ctx.sources.out === "flag", ctx.settings.outDir, runDir, runId);
  if (ignored) ctx.io.stderr.write(`${ignored}\n`);
  // The stored rows name the trials (a filtered run's ids are not those of the full plan): match each to its task and agent.
  const key = (taskId: string, agentLabel: string, repeat: number) => `${pairKey(taskId, agentLabel)}\u0000${repeat}`;
  const all = new Map(
    fullPlan(ctx, selection, runId, resumed.repeat).map((t) => [key(t.task.id, t.agent.label, t.repeat), t]),
  );
  const previousAttempts = new Map<string, number>();
  for (const t of store.trials(runId)) previousAttempts.set(t.id, t.attempt);
  const trials = store.unfinishedTrials(runId).map((row) => {
    const planned = all.get(key(row.taskId, row.agentLabel, row.repeat));
    if (!planned) {
      throw new UmpireError(
        "input",
        `run ${runId}: trial ${row.id} is task ${row.taskId} with ${row.agentLabel}, which the run's task files and agents no longer give`,
        `restore ${row.taskFile}, or start a new run`,
      );
    }
    return { ...planned, id: row.id, seq: row.seq };
  });
  return { runId, runDir, trials, shardOfTrial: null, previousAttempts, record: () => store.reopenRun(runId) };
}

/** A new run: the full plan (trial ids from it, so every shard's ids are those of the unsharded run), narrowed and sharded. */
function planNew(ctx: RunContext, selection: Selection): Plan | "nothing to re-run" {
  const { values, settings, io } = ctx;
  const runId = settings.askedRunId ?? newRunId();
  const runDir = runFolder(settings.outDir, runId);
  let trials = fullPlan(ctx, selection, runId, values.repeat);
  const { failed } = selection;
  if (failed) {
    trials = keepPairs(trials, failed.pairs, runId);
    if (trials.length === 0) {
      const why =
        failed.notPassed === 0
          ? `every one of its ${failed.trials} trials passed`
          : "none of the tasks x agents that did not pass there is in today's selection";
      (values.json ? io.stderr : io.stdout).write(`umpire: nothing to re-run from run ${failed.runId}: ${why}\n`);
      return "nothing to re-run";
    }
    if (settings.chatty)
      io.stderr.write(
        `umpire: re-running ${trials.length} trials: the tasks x agents that did not pass in run ${failed.runId}\n`,
      );
  }
  const sharded = shardOf(ctx, trials);
  trials = sharded.trials;
  const shardOfTrial = sharded.options && settings.shard ? shardLabel(settings.shard) : null;
  const store = fromPhase(ctx.store, "select");
  const options = storedOptions(ctx, selection, sharded.options);
  const record = () => {
    store.createRun({ id: runId, tags: values.tag ?? [], umpireVersion: VERSION, folder: runDir, options });
    store.addTrials(
      runId,
      trials.map((t) => storedPlan(t, shardOfTrial)),
    );
  };
  return { runId, runDir, trials, shardOfTrial, previousAttempts: new Map(), record };
}

/** `--shard i/n`: this shard's trials, balanced by the durations stored in --db or --shard-history. */
function shardOf(ctx: RunContext, trials: PlannedTrial[]): { trials: PlannedTrial[]; options?: StoredShard } {
  const { shard, chatty } = ctx.settings;
  if (!shard || shard.total <= 1) return { trials };
  const store: Store = fromPhase(ctx.store, "select");
  const historyFile = ctx.values["shard-history"];
  const history = historyFile
    ? withReadStore(historyFile, ctx.io, (s) => s.durationHistory())
    : store.durationHistory();
  const plan = assignShards(trials, shard.total, history);
  const options = {
    index: shard.index,
    total: shard.total,
    trials: trials.length,
    balance: plan.balance,
    plan: plan.fingerprint,
  };
  const mine = plan.shards[shard.index - 1];
  if (chatty && !ctx.values.list) {
    const by = plan.balance === "duration" ? "recorded durations" : "count (no history)";
    ctx.io.stderr.write(
      `shard ${shardLabel(shard)} (${shard.source}): ${mine.length} of ${options.trials} trials, balanced by ${by}, plan ${plan.fingerprint}\n`,
    );
  }
  return { trials: mine, options };
}

/** What a new run stores as its options (`StoredRunOptionsSchema`); the store removes anything that looks like a secret on top. */
function storedOptions(ctx: RunContext, selection: Selection, shard: StoredShard | undefined): StoredRunOptionsInput {
  const { values, settings } = ctx;
  const { agents, commandAgents, failed } = selection;
  return {
    paths: selection.paths,
    agentOptions: storable(selection.agentValues),
    ...(failed || hasTaskFilter(values)
      ? {
          selection: {
            grep: values.grep,
            grepInvert: values["grep-invert"],
            taskTags: values["task-tag"],
            failedIn: failed?.runId,
          },
        }
      : {}),
    repeat: values.repeat,
    concurrency: settings.concurrency,
    agents: agents.map(redactConfig),
    agentNames: agents.flatMap((a) => (a.name !== undefined ? [a.name] : [])),
    unnamedAgents: selection.unnamedAgents,
    ...(commandAgents.length ? { commandAgents: commandAgents.map((c) => c.stored) } : {}),
    config: resolvedConfig(ctx),
    taskParts: selection.tasks.map((t) => ({ task: t.id, parts: taskPartHashes(t) })),
    ...(shard ? { shard } : {}),
    ...(selection.pack ? { pack: storedPack(selection.pack) } : {}),
    ...(selection.notPlayed?.length ? { notPlayed: selection.notPlayed } : {}),
    ...(agents.some((a) => a.name !== undefined) ? { agentProtocols: agentProtocolRecords(ctx.config, agents) } : {}),
  };
}

/**
 * The configuration the run ran with: the config file it read and every option's value and
 * source (flag, config, default). Per-invocation switches are left out (a key never is an
 * option: only its variable's name).
 */
function resolvedConfig({ config, values, sources }: RunContext): NonNullable<StoredRunOptionsInput["config"]> {
  const skip = new Set(["json", "resume", "config", "list", "quiet"]);
  const all = new Map<string, unknown>(Object.entries(values));
  const options = Object.fromEntries(
    Object.entries(sources).flatMap(([name, source]) => {
      if (source === undefined || skip.has(name)) return [];
      const given = all.get(name);
      const value = name === "base-url" && typeof given === "string" ? withoutUrlCredentials(given) : given;
      return [[name, { value, source }]];
    }),
  );
  return { file: config.file, options, ...(config.data.prices ? { prices: config.data.prices } : {}) };
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** `--list`: the planned trials, one a line, in the order they would start. */
function listText(trials: PlannedTrial[], shard: string | null): string {
  const rows = [
    ["task", "agent", "repeat", "shard"],
    ...trials.map((t) => [t.task.id, t.agent.label, String(t.repeat), shard ?? "1/1"]),
  ];
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i]!.length)));
  const lines = rows.map((r) => r.map((cell, i) => (i < 3 ? cell.padEnd(widths[i]!) : cell)).join("  "));
  const tasks = new Set(trials.map((t) => t.task.id)).size;
  const agents = new Set(trials.map((t) => t.agent.label)).size;
  return `${lines.join("\n")}\n${plural(trials.length, "trial")} (${plural(tasks, "task")}, ${plural(agents, "agent")}${shard ? `, shard ${shard}` : ""}); nothing was run\n`;
}

function listJson(trials: PlannedTrial[], shard: string | null) {
  return trials.map((t) => ({
    task: t.task.id,
    title: t.task.title,
    agent: t.agent.label,
    repeat: t.repeat,
    shard: shard ?? "1/1",
  }));
}
