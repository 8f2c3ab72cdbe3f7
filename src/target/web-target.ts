/**
 * A declared target (the `targets:` section of umpire.config.yaml): any web app. Started by its
 * start command (optional), reset per trial by HTTP or by a command (each given the trial id, the
 * workspace folder and the target URL), read for effects over HTTP when it has an effects source,
 * and marked by selector, role + name or its own test ids.
 */
import { createServer } from "node:net";
import path from "node:path";
import type { Effect } from "../checks/types.js";
import { runCommand } from "../checks/run-command.js";
import { failureLine } from "../errors.js";
import type { TargetDecl } from "../task/target-decl.js";
import { substituteTrialVars, substituteTrialVarsDeep, type TrialVars } from "../task/trial-vars.js";
import { browserSeed } from "./browser-seed.js";
import { withEnvSecrets } from "./env-secrets.js";
import { restoreSeed } from "./restore-seed.js";
import { startAppProcess, type AppProcess } from "./app-process.js";
import { TargetResetError, type Target, type TrialTarget } from "./contract.js";
import { readTargetVersion } from "./target-version.js";

export interface WebTargetOptions {
  name: string;
  decl: TargetDecl;
  /** Folder the config file is in: start/reset cwd resolve against it. */
  configDir: string;
  /** Where the start command's output goes (a file per target). */
  logDir: string;
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
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
function describeUrl(urlOrPath: string, baseUrl: string, port: string): string {
  const url = substituteTrialVars(urlOrPath, { PORT: port, TARGET_URL: baseUrl });
  return url.startsWith("/") ? `${baseUrl}${url}` : url;
}

export async function startWebTarget(options: WebTargetOptions): Promise<Target> {
  const { name, decl } = options;
  const port = decl.baseUrl.includes("${PORT}") ? String(await freePort()) : "";
  const baseUrl = decl.baseUrl.replace(/\$\{PORT\}/g, port).replace(/\/$/, "");
  const base = new URL(baseUrl);
  const origins = [...new Set([base.origin, ...decl.allowedOrigins.map((o) => new URL(o.replace(/\$\{PORT\}/g, port)).origin)])];
  let app: AppProcess | undefined;
  const startVars: TrialVars = { PORT: port, TARGET_URL: baseUrl };
  const launch = async (start: NonNullable<TargetDecl["start"]>): Promise<AppProcess> =>
    startAppProcess({
      name,
      command: typeof start.command === "string" ? substituteTrialVars(start.command, startVars) : start.command.map((c) => substituteTrialVars(c, startVars)),
      cwd: path.resolve(options.configDir, start.cwd ?? "."),
      env: { ...options.env, ...start.env, ...(port ? { PORT: port } : {}), TARGET_URL: baseUrl },
      readyUrl: new URL(substituteTrialVars(start.readyUrl ?? "/", startVars), `${baseUrl}/`).toString(),
      readyTimeoutMs: start.readyTimeoutSeconds * 1000,
      logFile: path.join(options.logDir, `target-${name}.log`),
      signal: options.signal,
    });
  if (decl.start) app = await launch(decl.start);
  /** Stops the app, runs `between` (a restore), starts it again; a start that fails is the trial's environment error. */
  const restart = async (between: () => Promise<void> = async () => {}): Promise<void> => {
    await app?.stop();
    app = undefined;
    await between();
    if (!decl.start) return;
    try {
      app = await launch(decl.start);
    } catch (error) {
      throw new TargetResetError(`target ${name}: the app did not start again after the reset: ${(error as Error).message}`);
    }
  };
  const resolveUrl = (urlOrPath: string, vars: TrialVars) => new URL(substituteTrialVars(urlOrPath, vars), `${baseUrl}/`).toString();

  const varsOf = (trialId: string, workspaceDir: string): TrialVars => ({ TRIAL_ID: trialId, WORKSPACE: workspaceDir, TARGET_URL: baseUrl, PORT: port || base.port });
  const reset = async ({ trialId, workspaceDir }: TrialTarget): Promise<void> => {
    const vars = varsOf(trialId, workspaceDir);
    const r = decl.reset;
    if (r.kind === "none") return;
    if (r.kind === "restart") return restart();
    if (r.kind === "restore") {
      const copy = () => restoreSeed(path.resolve(options.configDir, r.from), path.resolve(options.configDir, r.to), name);
      return (r.restart ?? decl.start !== undefined) ? restart(copy) : copy();
    }
    if (r.kind === "http") {
      const url = resolveUrl(r.url, vars);
      const headers: Record<string, string> = { "x-umpire-trial": trialId };
      for (const [k, v] of Object.entries(r.headers)) headers[k] = withEnvSecrets(substituteTrialVars(v, vars), options.env, `target ${name} reset`);
      const body = r.body === undefined ? JSON.stringify({ trialId, workspace: workspaceDir, targetUrl: baseUrl }) : typeof r.body === "string" ? substituteTrialVars(r.body, vars) : JSON.stringify(substituteTrialVarsDeep(r.body, vars));
      if (r.method !== "GET") headers["content-type"] ??= "application/json";
      let status: number;
      let text = "";
      try {
        const res = await fetch(url, { method: r.method, headers, body: r.method === "GET" ? undefined : body, signal: AbortSignal.timeout(r.timeoutSeconds * 1000) });
        status = res.status;
        text = await res.text().catch(() => "");
      } catch (e) {
        throw new TargetResetError(`target ${name}: the reset ${r.method} ${url} failed: ${e instanceof Error ? e.message : String(e)}`);
      }
      if (status < 200 || status > 299) throw new TargetResetError(`target ${name}: the reset ${r.method} ${url} answered ${status}${text ? `: ${text.slice(0, 200)}` : ""}`);
      return;
    }
    const outcome = await runCommand(r.command, {
      cwd: path.resolve(options.configDir, r.cwd ?? "."),
      env: { ...options.env, ...r.env, TRIAL_ID: trialId, WORKSPACE: workspaceDir, TARGET_URL: baseUrl, ...(port ? { PORT: port } : {}) },
      timeoutMs: r.timeoutSeconds * 1000,
    });
    const shown = typeof r.command === "string" ? r.command : r.command.join(" ");
    if (outcome.error) throw new TargetResetError(`target ${name}: the reset command \`${shown}\` could not start: ${outcome.error}`);
    if (outcome.timedOut) throw new TargetResetError(`target ${name}: the reset command \`${shown}\` ran past ${r.timeoutSeconds} s and was stopped`);
    if (outcome.code !== 0) throw new TargetResetError(`target ${name}: the reset command \`${shown}\` exited with ${outcome.code ?? outcome.signal}: ${failureLine(outcome.stderr || outcome.stdout) ?? "(no output)"}`);
  };

  return {
    name,
    baseUrl,
    origins,
    isolated: decl.isolated,
    capacity: decl.capacity,
    hasEffects: decl.effects !== undefined,
    // The trial id stays a placeholder: the source is the same for every trial of the target.
    effectsSource: decl.effects ? `target ${name}'s effects source GET ${describeUrl(decl.effects.url, baseUrl, port)}` : null,
    fixture: false,
    dialogs: decl.dialogs,
    async prepareTrial(trial) {
      await reset(trial);
      if (!decl.context) return { cookies: [] };
      return browserSeed(decl.context, { vars: varsOf(trial.trialId, trial.workspaceDir), base, configDir: options.configDir, env: options.env, where: `target ${name} context` });
    },
    async effects(trialId) {
      if (!decl.effects) return [];
      const url = resolveUrl(decl.effects.url, { TRIAL_ID: trialId, TARGET_URL: baseUrl, PORT: port || base.port });
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(decl.effects.headers)) headers[k] = withEnvSecrets(v, options.env, `target ${name} effects`);
      const res = await fetch(url, { headers, signal: AbortSignal.timeout(15_000) });
      if (!res.ok) throw new Error(`target ${name}: the effects source ${url} answered ${res.status}`);
      const body = (await res.json()) as unknown;
      if (!Array.isArray(body)) throw new Error(`target ${name}: the effects source ${url} did not return a JSON list of {type, at, detail}`);
      return body.filter((e): e is Effect => !!e && typeof e === "object" && typeof (e as Effect).type === "string").map((e) => ({ type: e.type, at: e.at, detail: e.detail ?? {} }));
    },
    async recordEffect() {
      // The app keeps its own log (if any); write_note's file is judged by file checks.
    },
    async endTrial() {},
    markSpec(task) {
      return { declared: { ...decl.marks, ...task.marks }, testIdAttribute: decl.testIdAttribute };
    },
    ...(decl.version
      ? { version: () => readTargetVersion(decl.version!, { name, baseUrl, configDir: options.configDir, env: options.env }) }
      : {}),
    async close() {
      await app?.stop();
    },
  };
}
