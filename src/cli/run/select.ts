/**
 * Phase "select": opens the store and chooses what runs: the tasks (the paths given, filtered by
 * --grep/--task-tag) and the agents. `--resume` and `--last-failed` take both from the stored run
 * (`readStoredRun`, `restoreAgents`); its teardown closes the store.
 */
import { existsSync } from "node:fs";
import { CUSTOM_CHECK_RULES } from "../../checks/custom-rules.js";
import { projectTargets } from "../../config/project.js";
import { UmpireError } from "../../errors.js";
import { emptyStore, openStore } from "../../store/open.js";
import { runOptionsOf } from "../../store/run-options.js";
import type { Store } from "../../store/store.js";
import { loadTasksOrThrowAsync } from "../../task/loader.js";
import { runAllowsDrafts } from "./run-drafts.js";
import { failedPairs, filterTasks, nothingSelected, refuseSelfTestRun } from "./selection.js";
import { untilDecidedBaseline } from "./until-decided.js";
import { chooseAgents, restoreAgents, type AgentRequest, type StoredRun } from "./agents.js";
import { agentNotices, protocolNotes } from "./named-agents.js";
import { pairsToSkip, skipLine } from "./not-playable.js";
import { fromPhase, type RunContext, type Selection } from "./context.js";
import type { Phase } from "./phases.js";
import { configPackDir, packNotice, restorePack, selectPack, type SelectedPack } from "./pack.js";

export const selectPhase: Phase<RunContext> = {
  title: "select",
  async setup(ctx) {
    const { values, settings } = ctx;
    // A listing writes nothing: it reads what it needs (--resume, --last-failed, shard durations)
    // without creating or migrating the file.
    const needsRuns = Boolean(values.resume || settings.failedRef);
    ctx.store = values.list ? listingStore(settings.dbPath, needsRuns) : openStore(settings.dbPath);
    ctx.baselineId = untilDecidedBaseline(values, ctx.store);
    ctx.selection = values.resume ? await selectResumed(ctx, values.resume) : await selectNew(ctx);
  },
  teardown(ctx) {
    ctx.store?.close();
  },
};

/** A stored run with its options parsed once, here, for every reader of the run phases. */
export function readStoredRun(store: Store, ref: string, flag: string): StoredRun & { folder: string | null } {
  const run = refuseSelfTestRun(store.getRun(ref), flag);
  return { id: run.id, folder: run.folder, options: runOptionsOf(run) };
}

/** `--resume RUN`: the run's own tasks and agents (today's flags on top of its unnamed agent's options). */
async function selectResumed(ctx: RunContext, ref: string): Promise<Selection> {
  if (ctx.values.agent?.length) {
    throw new UmpireError(
      "usage",
      "--agent does not go with --resume",
      "--resume reruns the agents the run was started with",
    );
  }
  const stored = readStoredRun(fromPhase(ctx.store, "select"), ref, "--resume");
  const paths = stored.options.paths;
  const project = projectTargets(ctx.config, paths, ctx.io.cwd);
  const allowDrafts = runAllowsDrafts(ctx.values, ctx.sources, stored.options);
  const loadOptions = { cwd: ctx.io.cwd, targets: project.targets, allowDrafts };
  // A pack's run makes its tasks again from the checkout, as stored; else they are the run's task files.
  const pack = storedRunPack(ctx, stored, `umpire run --resume ${stored.id}`);
  const tasks = pack ? pack.pack.tasks : await loadTasksOrThrowAsync(paths, loadOptions, CUSTOM_CHECK_RULES, "run");
  const agents = restoreAgents(stored, "--resume", agentRequest(ctx));
  const resumed = { id: stored.id, folder: stored.folder, repeat: stored.options.repeat };
  return { tasks, project, paths, ...agents, resumed, ...(pack ? { pack } : {}) };
}

/** The pack of a stored run, made again (and its settings said), or undefined for a run of task files. */
function storedRunPack(ctx: RunContext, stored: StoredRun, again: string): SelectedPack | undefined {
  if (!stored.options.pack) return undefined;
  // Only what the command line gives counts against the stored pack (--pack-split and --pack-seed have defaults).
  const given = Object.fromEntries(
    Object.entries(ctx.values).filter(([k]) => k.startsWith("pack") && ctx.sources[k] === "flag"),
  );
  const pack = restorePack(stored.options.pack, { id: stored.id, again }, given, ctx.io.env);
  if (!ctx.values.quiet) for (const line of packNotice(pack)) ctx.io.stderr.write(`umpire: ${line}\n`);
  return pack;
}

/**
 * A new run; with --last-failed, the earlier run's tasks and agents (today's flags on top),
 * narrowed later (plan phase) to what did not pass there.
 */
async function selectNew(ctx: RunContext): Promise<Selection> {
  const { values, positionals, io } = ctx;
  const store = fromPhase(ctx.store, "select");
  const failed = ctx.settings.failedRef ? failedPairs(store, ctx.settings.failedRef) : undefined;
  const earlier = failed ? readStoredRun(store, failed.runId, "--failed-in") : undefined;
  const paths = positionals.length || !earlier ? positionals : earlier.options.paths;
  const project = projectTargets(ctx.config, paths, io.cwd);
  const loadOptions = { cwd: io.cwd, targets: project.targets, allowDrafts: runAllowsDrafts(values, ctx.sources) };
  // A benchmark pack's environments are the tasks (its checkout, not task files); --last-failed of a pack's run without --pack makes its pack again.
  const again = values["failed-in"] ? `umpire run --failed-in ${values["failed-in"]}` : "umpire run --last-failed";
  const fromEarlier = earlier && !values.pack && !positionals.length ? storedRunPack(ctx, earlier, again) : undefined;
  const pack = fromEarlier ?? selectPack(values, positionals, io.env, configPackDir(ctx.config, io.cwd));
  if (pack && !fromEarlier && !values.quiet) for (const line of packNotice(pack)) io.stderr.write(`umpire: ${line}\n`);
  const allTasks = pack ? pack.pack.tasks : await loadTasksOrThrowAsync(paths, loadOptions, CUSTOM_CHECK_RULES, "run");
  const tasks = filterTasks(allTasks, values);
  if (tasks.length === 0) throw nothingSelected(allTasks, values);
  const restore = earlier && !values.agent?.length;
  const agents = restore ? restoreAgents(earlier, "--last-failed", agentRequest(ctx)) : chooseAgents(agentRequest(ctx));
  // A named agent whose protocol its entry does not write: the header says which it speaks, and why.
  if (!values.quiet) for (const line of protocolNotes(ctx.config, agents.agents)) io.stderr.write(`umpire: ${line}\n`);
  // A knob the file forces against the documented version: a warning, so shown under --quiet too.
  for (const line of agentNotices(ctx.config, agents.agents)) io.stderr.write(`umpire: ${line}\n`);
  // A task an agent's protocol cannot play: the run is refused, or (several agents) the pair left out and said.
  const notPlayed = pairsToSkip(tasks, agents.agents, agents.commandAgents.length);
  for (const pair of notPlayed) io.stderr.write(`${skipLine(pair)}\n`);
  return {
    tasks,
    project,
    paths,
    ...agents,
    ...(failed ? { failed } : {}),
    ...(pack ? { pack } : {}),
    ...(notPlayed.length ? { notPlayed } : {}),
  };
}

function agentRequest(ctx: RunContext): AgentRequest {
  const { values, sources, config, io, settings } = ctx;
  return { values, sources, config, cwd: io.cwd, env: io.env, loopDefaults: settings.loopDefaults };
}

/**
 * The store `--list` reads: the file as it is, never created or migrated (an older schema is
 * migrated in memory). With no file and nothing to read from one, an empty store stands in; a
 * listing that needs a stored run (--resume, --last-failed) gets the usual "no database" error.
 */
function listingStore(file: string, needsRuns: boolean): Store {
  if (!needsRuns && !existsSync(file)) return emptyStore(file);
  return openStore(file, { readonly: true, untouched: true });
}
