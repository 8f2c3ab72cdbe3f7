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
import { startAppProcess, type AppProcess } from "./app-process.js";
import { TargetResetError, type Target, type TrialTarget } from "./contract.js";

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

function substitute(text: string, vars: Record<string, string>): string {
  return text.replace(/\$\{(TRIAL_ID|WORKSPACE|TARGET_URL|PORT)\}/g, (whole, name: string) => vars[name] ?? whole);
}

function substituteDeep(value: unknown, vars: Record<string, string>): unknown {
  if (typeof value === "string") return substitute(value, vars);
  if (Array.isArray(value)) return value.map((v) => substituteDeep(v, vars));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substituteDeep(v, vars)]));
  return value;
}

function withEnvSecrets(text: string, env: NodeJS.ProcessEnv, where: string): string {
  return text.replace(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    const v = env[name];
    if (v === undefined) throw new TargetResetError(`${where}: the environment variable ${name} is not set`);
    return v;
  });
}

export async function startWebTarget(options: WebTargetOptions): Promise<Target> {
  const { name, decl } = options;
  const port = decl.baseUrl.includes("${PORT}") ? String(await freePort()) : "";
  const baseUrl = decl.baseUrl.replace(/\$\{PORT\}/g, port).replace(/\/$/, "");
  const base = new URL(baseUrl);
  const origins = [...new Set([base.origin, ...decl.allowedOrigins.map((o) => new URL(o.replace(/\$\{PORT\}/g, port)).origin)])];
  let app: AppProcess | undefined;
  if (decl.start) {
    const cwd = path.resolve(options.configDir, decl.start.cwd ?? ".");
    app = await startAppProcess({
      name,
      command: typeof decl.start.command === "string" ? substitute(decl.start.command, { PORT: port, TARGET_URL: baseUrl }) : decl.start.command.map((c) => substitute(c, { PORT: port, TARGET_URL: baseUrl })),
      cwd,
      env: { ...options.env, ...decl.start.env, ...(port ? { PORT: port } : {}), TARGET_URL: baseUrl },
      readyUrl: new URL(substitute(decl.start.readyUrl ?? "/", { PORT: port, TARGET_URL: baseUrl }), `${baseUrl}/`).toString(),
      readyTimeoutMs: decl.start.readyTimeoutSeconds * 1000,
      logFile: path.join(options.logDir, `target-${name}.log`),
      signal: options.signal,
    });
  }
  const resolveUrl = (urlOrPath: string, vars: Record<string, string>) => new URL(substitute(urlOrPath, vars), `${baseUrl}/`).toString();

  const reset = async ({ trialId, workspaceDir }: TrialTarget): Promise<void> => {
    const vars = { TRIAL_ID: trialId, WORKSPACE: workspaceDir, TARGET_URL: baseUrl, PORT: port };
    const r = decl.reset;
    if (r.kind === "none") return;
    if (r.kind === "http") {
      const url = resolveUrl(r.url, vars);
      const headers: Record<string, string> = { "x-umpire-trial": trialId };
      for (const [k, v] of Object.entries(r.headers)) headers[k] = withEnvSecrets(substitute(v, vars), options.env, `target ${name} reset`);
      const body = r.body === undefined ? JSON.stringify({ trialId, workspace: workspaceDir, targetUrl: baseUrl }) : typeof r.body === "string" ? substitute(r.body, vars) : JSON.stringify(substituteDeep(r.body, vars));
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
    fixture: false,
    async prepareTrial(trial) {
      await reset(trial);
      return { cookies: [] };
    },
    async effects(trialId) {
      if (!decl.effects) return [];
      const url = resolveUrl(decl.effects.url, { TRIAL_ID: trialId, TARGET_URL: baseUrl, PORT: port });
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
    async close() {
      await app?.stop();
    },
  };
}
