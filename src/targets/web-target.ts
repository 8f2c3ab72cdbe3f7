/**
 * A declared target (the `targets:` section of umpire.config.yaml): any web app. Started by its
 * start command (optional), reset per trial by HTTP or by a command (each given the trial id, the
 * workspace folder and the target URL), read for effects over HTTP when it has an effects source,
 * and marked by selector, role + name or its own test ids.
 */
import { mkdirSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import type { Effect } from "../checks/types.js";
import { runCommand } from "../checks/run-command.js";
import { failureLine, messageOf } from "../errors.js";
import type { ResetDecl, TargetDecl } from "../task/target-decl.js";
import { substituteTrialVars, substituteTrialVarsDeep, type TrialVars } from "../task/trial-vars.js";
import { browserSeed } from "./browser-seed.js";
import { withEnvSecrets } from "./env-secrets.js";
import { restoreSeed } from "./restore-seed.js";
import { startAppProcess, type AppProcess } from "./app-process.js";
import { TargetResetError, type InstanceLease, type Target, type TrialTarget } from "./contract.js";
import { InstancePool } from "./instance-pool.js";
import { autoInstances } from "./pool-size.js";
import { readTargetVersion } from "./target-version.js";
import { concurrencyCeiling, type ConcurrencyPolicy } from "../vocabulary.js";

export interface WebTargetOptions {
  name: string;
  decl: TargetDecl;
  /** Folder the config file is in: start/reset cwd resolve against it. */
  configDir: string;
  /** Where the start command's output goes (a file per target). */
  logDir: string;
  env: NodeJS.ProcessEnv;
  /** The run's concurrency policy: its ceiling is what `instances: auto` never exceeds. */
  concurrency?: ConcurrencyPolicy;
  signal?: AbortSignal;
  /** Told of a start that goes on with a doubt (readyUrl answered 4xx: app-process.ts). */
  onNotice?: (message: string) => void;
}

/** A free TCP port on loopback, for baseUrl's ${PORT}. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A declared URL as a person reads it: made absolute, ${TRIAL_ID} left as written (URL() would escape it). */
function describeUrl(urlOrPath: string, baseUrl: string, vars: TrialVars): string {
  const url = substituteTrialVars(urlOrPath, { ...vars, TARGET_URL: baseUrl });
  return url.startsWith("/") ? `${baseUrl}${url}` : url;
}

/** `target X's effects source GET <url>`, the URL filled in with `vars`; null without a source. */
function effectsSourceOf(name: string, decl: TargetDecl, baseUrl: string, vars: TrialVars): string | null {
  return decl.effects ? `target ${name}'s effects source GET ${describeUrl(decl.effects.url, baseUrl, vars)}` : null;
}

/** One trial's variables on an instance: its own, the trial id, and the workspace remembered from its reset. */
function trialVars(inst: Instance, workspaces: ReadonlyMap<string, string>, id: string): TrialVars {
  return { ...inst.vars, TRIAL_ID: id, WORKSPACE: workspaces.get(id) ?? "" };
}

/** One copy of the app: its port, URL, folder, process, and why it must be restarted before its next trial. */
interface Instance {
  index: number;
  baseUrl: string;
  base: URL;
  origins: string[];
  /** PORT, TARGET_URL, INSTANCE, INSTANCE_DIR of this copy. */
  vars: TrialVars;
  app?: AppProcess;
  broken: string | null;
}

/** Starts one copy of the app (its own port, folder and log), when the target has a start command. */
async function launchInstance(options: WebTargetOptions, inst: Instance, pooled: boolean): Promise<void> {
  const { name, decl } = options;
  const start = decl.start;
  if (!start) return;
  const fill = (text: string) => substituteTrialVars(text, inst.vars);
  const { PORT, TARGET_URL, INSTANCE, INSTANCE_DIR } = inst.vars;
  inst.app = await startAppProcess({
    name: pooled ? `${name} (instance ${inst.index})` : name,
    command: typeof start.command === "string" ? fill(start.command) : start.command.map(fill),
    cwd: path.resolve(options.configDir, start.cwd ?? "."),
    env: {
      ...options.env,
      ...Object.fromEntries(Object.entries(start.env).map(([k, v]) => [k, fill(v)])),
      ...(PORT ? { PORT } : {}),
      TARGET_URL,
      INSTANCE,
      INSTANCE_DIR,
    },
    readyUrl: new URL(fill(start.readyUrl ?? "/"), `${inst.baseUrl}/`).toString(),
    readyTimeoutMs: start.readyTimeoutSeconds * 1000,
    logFile: path.join(options.logDir, pooled ? `target-${name}-${inst.index}.log` : `target-${name}.log`),
    signal: options.signal,
    ...(options.onNotice ? { onNotice: options.onNotice } : {}),
  });
}

/**
 * Starts the first copy, sizes the pool (`instances: auto` from the first copy's memory and the run's
 * concurrency) and starts the rest; a copy that fails to start stops the others.
 */
async function startInstances(
  options: WebTargetOptions,
  makeInstance: (index: number) => Promise<Instance>,
  launch: (inst: Instance) => Promise<void>,
): Promise<{ instances: Instance[]; sizedBy?: string; memoryBytes?: number }> {
  const { decl } = options;
  const instances: Instance[] = [];
  try {
    instances.push(await makeInstance(0));
    await launch(instances[0]!);
    const memoryBytes = instances[0]!.app?.memoryBytes();
    let size = decl.instances === "auto" ? 1 : decl.instances;
    let sizedBy: string | undefined;
    if (decl.instances === "auto")
      ({ size, sizedBy } = autoInstances(
        options.concurrency ? concurrencyCeiling(options.concurrency) : 1,
        memoryBytes,
      ));
    const rest = await Promise.all(Array.from({ length: size - 1 }, (_, i) => makeInstance(i + 1)));
    instances.push(...rest);
    await Promise.all(rest.map(launch));
    return { instances, sizedBy, memoryBytes };
  } catch (error) {
    await Promise.all(instances.map((i) => i.app?.stop()));
    throw error;
  }
}

/** Copy `index` of the app: its port (a free one for `${PORT}`), URLs, origins and its own folder. */
async function newInstance(options: WebTargetOptions, index: number): Promise<Instance> {
  const { name, decl } = options;
  const port = decl.baseUrl.includes("${PORT}") ? String(await freePort()) : "";
  const baseUrl = decl.baseUrl.replace(/\$\{PORT\}/g, port).replace(/\/$/, "");
  const base = new URL(baseUrl);
  const origins = [
    ...new Set([base.origin, ...decl.allowedOrigins.map((o) => new URL(o.replace(/\$\{PORT\}/g, port)).origin)]),
  ];
  const dir = path.join(options.logDir, "instances", `${name}-${index}`);
  mkdirSync(dir, { recursive: true });
  const vars = { PORT: port || base.port, TARGET_URL: baseUrl, INSTANCE: String(index), INSTANCE_DIR: dir };
  return { index, baseUrl, base, origins, vars, broken: null };
}

export async function startWebTarget(options: WebTargetOptions): Promise<Target> {
  const { name, decl } = options;
  const pooled = decl.instances !== 1;
  const makeInstance = (index: number) => newInstance(options, index);
  const launch = (inst: Instance) => launchInstance(options, inst, pooled);
  /** Stops the app, runs `between` (a restore), starts it again; a start that fails is the trial's environment error. */
  const restart = async (inst: Instance, between: () => Promise<void> = async () => {}): Promise<void> => {
    await inst.app?.stop();
    inst.app = undefined;
    await between();
    try {
      await launch(inst);
    } catch (error) {
      throw new TargetResetError(
        `target ${name}${pooled ? ` instance ${inst.index}` : ""}: the app did not start again: ${messageOf(error)}`,
      );
    }
  };

  const { instances, sizedBy, memoryBytes } = await startInstances(options, makeInstance, launch);
  const stopAll = () => Promise.all(instances.map((i) => i.app?.stop()));
  const pool = new InstancePool(instances.length, !decl.isolated);
  const reset = (inst: Instance, trial: TrialTarget) => resetInstance(options, inst, trial, restart);
  // The effects log is read after the trial by its id alone: its ${WORKSPACE} is remembered from the reset.
  const workspaces = new Map<string, string>();
  const view = (inst: Instance): Target => ({
    name,
    baseUrl: inst.baseUrl,
    origins: inst.origins,
    vars: inst.vars,
    isolated: decl.isolated,
    capacity: decl.capacity,
    hasEffects: decl.effects !== undefined,
    // Here the trial id stays a placeholder; effectsSourceFor names one trial's request.
    effectsSource: effectsSourceOf(name, decl, inst.baseUrl, { PORT: inst.vars.PORT ?? "" }),
    effectsSourceFor: (trialId: string) =>
      effectsSourceOf(name, decl, inst.baseUrl, trialVars(inst, workspaces, trialId)),
    fixture: false,
    dialogs: decl.dialogs,
    async prepareTrial(trial) {
      const started = performance.now();
      workspaces.set(trial.trialId, trial.workspaceDir);
      try {
        // A copy that died since its last trial, or whose reset failed, starts again first.
        const died = inst.app?.died();
        if (inst.broken || died) await restart(inst);
        inst.broken = null;
        await reset(inst, trial);
      } catch (error) {
        inst.broken = messageOf(error);
        throw error;
      } finally {
        pool.recordReset(performance.now() - started);
      }
      const resetMs = performance.now() - started;
      if (!decl.context) return { cookies: [], resetMs };
      const seed = await browserSeed(decl.context, {
        vars: { ...inst.vars, TRIAL_ID: trial.trialId, WORKSPACE: trial.workspaceDir },
        base: inst.base,
        configDir: options.configDir,
        env: options.env,
        where: `target ${name} context`,
      });
      return { ...seed, resetMs };
    },
    instanceFault() {
      const died = inst.app?.died();
      if (!died) return null;
      inst.broken = died;
      return `target ${name}${pooled ? ` instance ${inst.index}` : ""}: the app ${died} during the trial (restarted before the next trial; its output is in ${inst.app!.logFile})`;
    },
    async effects(trialId) {
      if (!decl.effects) return [];
      return readEffects(options, decl.effects, trialVars(inst, workspaces, trialId), inst.baseUrl);
    },
    async recordEffect() {
      // The app keeps its own log (if any); write_note's file is judged by file checks.
    },
    endTrial: async (trialId) => void workspaces.delete(trialId),
    markSpec(task) {
      return { declared: { ...decl.marks, ...task.marks }, testIdAttribute: decl.testIdAttribute };
    },
    ...(decl.version
      ? {
          version: () =>
            readTargetVersion(decl.version!, {
              name,
              baseUrl: inst.baseUrl,
              vars: inst.vars,
              configDir: options.configDir,
              env: options.env,
            }),
        }
      : {}),
    async close() {
      await stopAll();
    },
  });
  return {
    ...view(instances[0]!),
    async lease(signal): Promise<InstanceLease> {
      const lease = await pool.lease(signal);
      return {
        target: view(instances[lease.instance]!),
        instance: lease.instance,
        waitedMs: lease.waitedMs,
        playing: lease.playing,
        release: lease.release,
      };
    },
    poolReport: () => ({
      target: name,
      isolated: decl.isolated,
      ...pool.report(),
      ...(sizedBy ? { sizedBy } : {}),
      ...(memoryBytes ? { memoryBytes } : {}),
    }),
  };
}

const resolveUrl = (urlOrPath: string, vars: TrialVars, baseUrl: string) =>
  new URL(substituteTrialVars(urlOrPath, vars), `${baseUrl}/`).toString();

/** The trial's effects log: URL and header values with the trial variables filled in (a namespaced app's log is per trial). */
async function readEffects(
  options: WebTargetOptions,
  effects: NonNullable<TargetDecl["effects"]>,
  vars: TrialVars,
  baseUrl: string,
): Promise<Effect[]> {
  const { name } = options;
  const url = resolveUrl(effects.url, vars, baseUrl);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(effects.headers))
    headers[k] = withEnvSecrets(substituteTrialVars(v, vars), options.env, `target ${name} effects`);
  const res = await fetch(url, { headers, signal: AbortSignal.timeout(15_000) });
  if (!res.ok) throw new Error(`target ${name}: the effects source ${url} answered ${res.status}`);
  const body = (await res.json()) as unknown;
  if (!Array.isArray(body))
    throw new Error(`target ${name}: the effects source ${url} did not return a JSON list of {type, at, detail}`);
  return body
    .filter((e): e is Effect => !!e && typeof e === "object" && typeof (e as Effect).type === "string")
    .map((e) => ({ type: e.type, at: e.at, detail: e.detail ?? {} }));
}

/** The declared reset of one kind: `ResetDecl` narrowed to it. */
type ResetOf<K extends ResetDecl["kind"]> = Extract<ResetDecl, { kind: K }>;

/**
 * The declared reset on one instance, given the trial id, its workspace and the instance's variables.
 * One case per reset kind: a kind added to `ResetDecl` does not compile until it has one here.
 */
async function resetInstance(
  options: WebTargetOptions,
  inst: Instance,
  trial: TrialTarget,
  restart: (inst: Instance, between?: () => Promise<void>) => Promise<void>,
): Promise<void> {
  const { name, decl } = options;
  const r = decl.reset;
  switch (r.kind) {
    case "none":
      return;
    case "restart":
      return restart(inst);
    case "restore": {
      const at = (p: string) => path.resolve(options.configDir, substituteTrialVars(p, inst.vars));
      const copy = () => restoreSeed(at(r.from), at(r.to), name);
      return (r.restart ?? decl.start !== undefined) ? restart(inst, copy) : copy();
    }
    case "http":
      return httpReset(options, inst, trial, r);
    case "command":
      return commandReset(options, inst, trial, r);
    default: {
      const unknown: never = r;
      throw new Error(`target ${name}: unknown reset kind ${JSON.stringify(unknown)}`);
    }
  }
}

/** An `http` reset: the declared request, the trial's variables filled in; anything but 2xx fails it. */
async function httpReset(
  options: WebTargetOptions,
  inst: Instance,
  { trialId, workspaceDir }: TrialTarget,
  r: ResetOf<"http">,
): Promise<void> {
  const { name } = options;
  const vars: TrialVars = { ...inst.vars, TRIAL_ID: trialId, WORKSPACE: workspaceDir };
  const baseUrl = inst.baseUrl;
  const url = resolveUrl(r.url, vars, baseUrl);
  const headers: Record<string, string> = { "x-umpire-trial": trialId };
  for (const [k, v] of Object.entries(r.headers))
    headers[k] = withEnvSecrets(substituteTrialVars(v, vars), options.env, `target ${name} reset`);
  const body =
    r.body === undefined
      ? JSON.stringify({ trialId, workspace: workspaceDir, targetUrl: baseUrl })
      : typeof r.body === "string"
        ? substituteTrialVars(r.body, vars)
        : JSON.stringify(substituteTrialVarsDeep(r.body, vars));
  if (r.method !== "GET") headers["content-type"] ??= "application/json";
  let status: number;
  let text = "";
  try {
    const res = await fetch(url, {
      method: r.method,
      headers,
      body: r.method === "GET" ? undefined : body,
      signal: AbortSignal.timeout(r.timeoutSeconds * 1000),
    });
    status = res.status;
    text = await res.text().catch(() => "");
  } catch (e) {
    throw new TargetResetError(`target ${name}: the reset ${r.method} ${url} failed: ${messageOf(e)}`);
  }
  if (status < 200 || status > 299)
    throw new TargetResetError(
      `target ${name}: the reset ${r.method} ${url} answered ${status}${text ? `: ${text.slice(0, 200)}` : ""}`,
    );
}

/** A `command` reset: the declared command with the trial's variables in its environment; a non-zero exit fails it. */
async function commandReset(
  options: WebTargetOptions,
  inst: Instance,
  { trialId, workspaceDir }: TrialTarget,
  r: ResetOf<"command">,
): Promise<void> {
  const { name } = options;
  const { PORT, INSTANCE, INSTANCE_DIR } = inst.vars;
  const outcome = await runCommand(r.command, {
    cwd: path.resolve(options.configDir, r.cwd ?? "."),
    env: {
      ...options.env,
      ...r.env,
      TRIAL_ID: trialId,
      WORKSPACE: workspaceDir,
      TARGET_URL: inst.baseUrl,
      ...(PORT ? { PORT } : {}),
      INSTANCE: INSTANCE!,
      INSTANCE_DIR: INSTANCE_DIR!,
    },
    timeoutMs: r.timeoutSeconds * 1000,
  });
  const shown = typeof r.command === "string" ? r.command : r.command.join(" ");
  if (outcome.error)
    throw new TargetResetError(`target ${name}: the reset command \`${shown}\` could not start: ${outcome.error}`);
  if (outcome.timedOut)
    throw new TargetResetError(
      `target ${name}: the reset command \`${shown}\` ran past ${r.timeoutSeconds} s and was stopped`,
    );
  if (outcome.code !== 0)
    throw new TargetResetError(
      `target ${name}: the reset command \`${shown}\` exited with ${outcome.code ?? outcome.signal}: ${failureLine(outcome.stderr || outcome.stdout) ?? "(no output)"}`,
    );
}
