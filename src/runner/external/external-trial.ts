/**
 * One trial of an agent that brings its own loop (kind `command`): umpire prepares everything a
 * trial has (fixture session, guarded context, workspace), starts the user's command in its own
 * process group with the trial's own browser endpoint, follows the steps it reports, enforces
 * the deadline and the caps, and then judges and stores the trial like any other
 * (`concludeTrial`). The command's output is untrusted input throughout.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import type { Browser } from "playwright";
import { chromium } from "../../browser/playwright.js";
import { browserScratchDir, processTempDir } from "../../browser/scratch.js";
import { failureLine, firstLineOf, isStorageFault, storageError } from "../../errors.js";
import { readAgentFile, writeOwnFile } from "./agent-files.js";
import { removeAgentExtras, watchAgentFolder } from "./agent-folder-cap.js";
import { MAX_RESULT_BYTES, parseAgentResult } from "./agent-events.js";
import { StepFollower } from "./agent-steps.js";
import { openCommandLogs, sleep, watchCommand, type CommandExit } from "./command-process.js";
import { TrialEnvironment } from "../trial/environment.js";
import { originsForTask } from "../../targets/contract.js";
import { emptyLoopOutcome, type LoopOutcome, type PlayedTurn } from "../trial/loop.js";
import {
  abandonTrial,
  blockedRequestLog,
  concludeTrial,
  logTrialStarted,
  environmentOptions,
  logEnvironmentFacts,
  withPageInstruction,
  type TrialDeps,
  type TrialOutcome,
  type TrialSpec,
} from "../trial/trial.js";
import { createTrialLog, type TrialLog } from "../trial/trial-log.js";
import { launchTrialBrowser, type TrialBrowser } from "./trial-browser.js";
import { startTrialModelProxy, type TrialModelProxy } from "./trial-model-proxy.js";

import {
  agentEnvironment,
  sandboxInitScript,
  openEgress,
  sandboxArgv,
  sandboxIdentity,
  type Egress,
} from "./agent-sandbox.js";
import {
  blockedOnTheWay,
  DEFAULT_AGENT_LIMITS,
  giveToSandboxUid,
  holdAgentLimits,
  takeBackFromSandboxUid,
  type HeldLimits,
} from "./agent-limits.js";
import type { CommandAgentSpec } from "./command-agent.js";

/** How often umpire reads the events file and checks the deadline while the command runs. */
const POLL_MS = 200;

export type ExternalTrialDeps = Pick<
  TrialDeps,
  "target" | "fixtureSiteUrl" | "board" | "env" | "signal" | "onTurn" | "movedAside" | "trace"
>;

/** The trial browser's guards, wired to the trial log: CDP refusals as errors, network refusals as blocked requests. */
function guardTrialBrowser(
  trialBrowser: TrialBrowser,
  log: TrialLog,
  blocked: ReturnType<typeof blockedRequestLog>,
  origins: Iterable<string>,
): void {
  trialBrowser.onRefusal((refusal) => {
    const verb = refusal.action === "refused" ? "refused the agent's" : "rewrote the agent's";
    log.step("error_event", {
      error: `umpire ${verb} ${refusal.method}: ${refusal.reason}`,
      origin: "cdp_guard",
      tool_req: null,
      guard: refusal,
    });
  });
  // The browser's network reaches the task's origins only; what its proxy refuses is logged like a blocked request.
  trialBrowser.allowOrigins(origins);
  trialBrowser.onNetworkRefusal((refused) =>
    blocked.record({
      url: refused.url,
      method: refused.method,
      resourceType: refused.method === "CONNECT" ? "tunnel" : "other",
      navigation: false,
      frameUrl: "",
    }),
  );
}

export async function runExternalTrial(
  spec: TrialSpec,
  folder: string,
  agent: CommandAgentSpec,
  deps: ExternalTrialDeps,
): Promise<TrialOutcome> {
  const started = performance.now();
  const log = createTrialLog(folder);
  const workspaceDir = join(folder, "workspace");
  const agentDir = join(folder, "agent");
  // The trial's token is in agent/trial.json: a folder only its owner may enter, a file only its owner may read.
  mkdirSync(agentDir, { recursive: true, mode: 0o700 });
  chmodSync(agentDir, 0o700);
  logTrialStarted(log, spec, deps, {
    kind: "command",
    command: agent.command,
    sandbox: agent.sandbox.kind,
    ...(agent.sandbox.kind === "none" ? { sandbox_none_reason: agent.sandbox.why } : {}),
  });
  const blocked = blockedRequestLog(log);
  let trialBrowser: TrialBrowser | undefined;
  let [browser, artifacts]: [Browser | undefined, string | undefined] = [undefined, undefined];
  let env: TrialEnvironment | undefined;
  let loop: LoopOutcome;
  let error: string | null = null;
  try {
    mkdirSync(join(workspaceDir, "downloads"), { recursive: true });
    trialBrowser = await launchTrialBrowser({ downloadsDir: join(workspaceDir, "downloads"), workspaceDir });
    guardTrialBrowser(trialBrowser, log, blocked, originsForTask(spec.task, deps.target, deps.fixtureSiteUrl));
    // Playwright's artifacts in this process's temp folder (a killed umpire's goes with it), not /tmp/playwright-artifacts-*.
    artifacts = processTempDir("artifacts-");
    browser = await chromium.connectOverCDP(trialBrowser.umpireEndpoint, { artifactsDir: artifacts });
    env = await TrialEnvironment.open({ ...environmentOptions(spec, folder, deps, blocked), browser });
    logEnvironmentFacts(log, env);
    const cdp = await browser.newBrowserCDPSession();
    const { browserContextIds } = (await cdp.send("Target.getBrowserContexts")) as { browserContextIds: string[] };
    await cdp.detach().catch(() => undefined);
    // The trial's browser holds exactly one context of umpire's making: the guarded one.
    trialBrowser.setTrialContext(browserContextIds[0]!);
    const gone = trialBrowser.gone;
    loop = await superviseCommand(withPageInstruction(spec, env), agent, {
      env,
      log,
      agentDir,
      workspaceDir,
      endpoint: trialBrowser.agentEndpoint,
      signal: deps.signal,
      onTurn: deps.onTurn,
      browserGone: gone,
    });
    // Whatever the agent left behind (a process outside the sandbox) no longer reaches the browser the checks use.
    trialBrowser.shutOutAgent();
  } catch (e) {
    if (isStorageFault(e)) {
      // umpire could not record the trial: no verdict at all (the scheduler leaves it for --resume).
      await abandonTrial(spec, deps, env);
      await browser?.close().catch(() => undefined);
      await trialBrowser?.close().catch(() => undefined);
      throw storageError(e, folder, "--out");
    }
    error = firstLineOf(e);
    log.emit("AgentErrorEvent", { error, trace: e instanceof Error ? (e.stack ?? "") : "", info: {} });
    loop = emptyLoopOutcome("environment_error", error);
  }
  try {
    return await concludeTrial(spec, folder, deps, {
      log,
      trialEnv: env,
      loop,
      error,
      started,
      repetition: {},
      blocked,
      driver: { external: true, sandboxed: agent.sandbox.kind === "bwrap" },
      // The command keeps its own time (supervise's deadline); the checks get their full limit.
      deadline: undefined,
    });
  } finally {
    await browser?.close().catch(() => undefined);
    await trialBrowser?.close().catch(() => undefined);
    if (artifacts) rmSync(artifacts, { recursive: true, force: true });
  }
}

/** The port inside the sandbox where the CONNECT proxy for declared remote endpoints listens. */
const SANDBOX_PROXY_PORT = 3128;

function destinationOf(origin: string): { host: string; port: number; loopback: boolean } {
  const url = new URL(origin);
  const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
  const host = url.hostname.replace(/^\[|\]$/g, "");
  return { host, port, loopback: host === "127.0.0.1" || host === "localhost" || host === "::1" };
}

/** The host:port destinations a sandboxed agent may reach: its trial's CDP relay and the endpoints its config's `network` declares. */
export function egressAllowList(network: readonly string[], relayEndpoint: string): Set<string> {
  const allowed = new Set([`127.0.0.1:${new URL(relayEndpoint).port}`]);
  for (const origin of network) {
    const d = destinationOf(origin);
    allowed.add(`${d.loopback ? "127.0.0.1" : d.host}:${d.port}`);
  }
  return allowed;
}

/** The trial's way out of the sandbox: its CDP relay and its declared endpoints, nothing else (each refusal logged). */
function openSandboxEgress(agent: CommandAgentSpec, s: Supervision): Promise<Egress> {
  const allowed = egressAllowList(agent.network, s.endpoint);
  return openEgress(allowed, (destination) => {
    s.log.step("error_event", {
      error: `umpire's sandbox refused the agent's connection to ${destination}`,
      origin: "sandbox_guard",
      tool_req: null,
    });
  });
}

function sandboxPlan(agent: CommandAgentSpec, s: Supervision, env: Record<string, string>, egress: Egress) {
  const relayPort = Number(new URL(s.endpoint).port);
  const forwards = [{ port: relayPort, to: `127.0.0.1:${relayPort}` }];
  let remote = false;
  for (const origin of agent.network) {
    const d = destinationOf(origin);
    if (d.loopback) forwards.push({ port: d.port, to: `127.0.0.1:${d.port}` });
    else remote = true;
  }
  const proxy: Record<string, string> = remote
    ? {
        HTTPS_PROXY: `http://127.0.0.1:${SANDBOX_PROXY_PORT}`,
        https_proxy: `http://127.0.0.1:${SANDBOX_PROXY_PORT}`,
        NO_PROXY: "127.0.0.1,localhost",
        no_proxy: "127.0.0.1,localhost",
      }
    : {};
  const hide = agent.sandbox.kind === "bwrap" ? agent.sandbox.hide : [];
  return {
    command: agent.command,
    cwd: agent.cwd,
    agentDir: s.agentDir,
    hide: [
      ...hide,
      ...dotenvFiles(agent.cwd),
      dirname(s.agentDir),
      dirname(dirname(s.agentDir)),
      dirname(dirname(dirname(s.agentDir))),
      homedir(),
    ],
    env: { ...env, HOME: "/tmp/home", TMPDIR: "/tmp", ...proxy },
    egressSocket: egress.socket,
    forwards,
    proxyPort: remote ? SANDBOX_PROXY_PORT : 0,
    identity: agent.sandbox.kind === "bwrap" ? sandboxIdentity(agent.sandbox.binary) : undefined,
  };
}

/** `.env`, `.env.local`, ...: where a project keeps its secrets. */
const DOTENV = /^\.env(?:\.[\w.-]+)?$/;

/**
 * The dotenv files in the agent's folder and the folders above it (the project's, beside its config
 * file): hidden in the sandbox, which otherwise shows the system read-only, the project included.
 */
export function dotenvFiles(cwd: string): string[] {
  const found: string[] = [];
  for (let dir = cwd; ; dir = dirname(dir)) {
    try {
      for (const entry of readdirSync(dir, { withFileTypes: true }))
        if (DOTENV.test(entry.name) && !entry.isDirectory()) found.push(join(dir, entry.name));
    } catch {
      // an unreadable folder shows the agent nothing either
    }
    if (dirname(dir) === dir) return found;
  }
}

interface Supervision {
  env: TrialEnvironment;
  log: ReturnType<typeof createTrialLog>;
  agentDir: string;
  workspaceDir: string;
  endpoint: string;
  signal: AbortSignal;
  onTurn: (turn: PlayedTurn) => void;
  /** Why the trial's browser is gone, or null while it runs: the trial cannot go on without it. */
  browserGone: () => string | null;
}

/** The names of the contract's files and umpire's logs in the agent folder: kept when the folder is freed. */
const CONTRACT_NAMES = new Set(["result.json", "events.jsonl", "trial.json", "stdout.log", "stderr.log"]);

/** The files of the trial's contract with the command, in its agent folder (docs/external-agents.md). */
function contractFiles(agentDir: string) {
  return {
    resultFile: join(agentDir, "result.json"),
    eventsFile: join(agentDir, "events.jsonl"),
    trialFile: join(agentDir, "trial.json"),
  };
}

/**
 * Writes agent/trial.json (only its owner may read it: it holds the trial's CDP token) and gives
 * the command's environment: what it may see of umpire's, its own variables, and the contract's.
 */
function writeContract(
  spec: TrialSpec,
  agent: CommandAgentSpec,
  s: Supervision,
  proxy: TrialModelProxy | undefined,
): Record<string, string> {
  const { task } = spec;
  const { resultFile, eventsFile, trialFile } = contractFiles(s.agentDir);
  const startUrl = s.env.startUrl;
  const limits = {
    turns: task.limits.turns,
    actions: task.limits.actions,
    seconds: task.limits.seconds,
    tokens: task.limits.tokens,
  };
  const sandboxed = agent.sandbox.kind === "bwrap";
  const trialInfo = {
    trialId: spec.id,
    taskId: task.id,
    instruction: task.instruction,
    startUrl,
    // In the sandbox the workspace is not there: what reaches it comes through the browser or the app.
    workspace: sandboxed ? null : s.workspaceDir,
    limits,
    tools: task.tools,
    allowedOrigins: [...s.env.origins],
    viewport: task.viewport,
    cdpUrl: s.endpoint,
    resultFile,
    eventsFile,
    sandbox: agent.sandbox.kind,
    ...(proxy ? { modelBaseUrl: proxy.env.UMPIRE_MODEL_BASE_URL } : {}),
  };
  writeOwnFile(trialFile, `${JSON.stringify(trialInfo, null, 2)}\n`);
  const contract: Record<string, string> = {
    UMPIRE_TRIAL_FILE: trialFile,
    UMPIRE_TRIAL_ID: spec.id,
    UMPIRE_TASK_ID: task.id,
    UMPIRE_INSTRUCTION: task.instruction,
    UMPIRE_START_URL: startUrl,
    ...(sandboxed ? {} : { UMPIRE_WORKSPACE: s.workspaceDir }),
    UMPIRE_LIMITS: JSON.stringify(limits),
    UMPIRE_CDP_URL: s.endpoint,
    UMPIRE_RESULT_FILE: resultFile,
    UMPIRE_EVENTS_FILE: eventsFile,
    UMPIRE_SANDBOX: agent.sandbox.kind,
    ...proxy?.env,
  };
  return agentEnvironment(process.env, agent.passEnv, agent.env, contract);
}

/** The command started in its own process group (detached), in the sandbox or not; `error` when it could not be. */
async function startCommand(
  agent: CommandAgentSpec,
  reach: CommandAgentSpec,
  s: Supervision,
  childEnv: Record<string, string>,
  limits: HeldLimits | undefined,
) {
  let egress: Egress | undefined;
  try {
    if (agent.sandbox.kind === "bwrap") {
      egress = await openSandboxEgress(reach, s);
      if (limits?.uid != null) {
        const { trialFile, eventsFile } = contractFiles(s.agentDir);
        giveToSandboxUid(limits.uid, [s.agentDir, trialFile, eventsFile, dirname(egress.socket), egress.socket]);
      }
      const plan = sandboxPlan(reach, s, childEnv, egress);
      // As a uid of its own, bubblewrap cannot even get to a place it was to hide behind a folder closed to others: nor can the agent.
      if (limits?.uid != null) plan.hide = plan.hide.filter((path) => blockedOnTheWay(path) === null);
      const argv = sandboxArgv(plan);
      const stdio = ["ignore", "pipe", "pipe", "pipe"] as const; // fd 3 = SANDBOX_READY_FD
      const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
      const run = limits ? limits.wrap(agent.sandbox.binary, argv) : { program: agent.sandbox.binary, argv };
      return {
        child: spawn(run.program, run.argv, { cwd: agent.cwd, env, detached: true, stdio: [...stdio] }),
        egress,
      };
    }
    return {
      child: spawn(agent.command[0]!, agent.command.slice(1), {
        cwd: agent.cwd,
        env: childEnv,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
      }),
    };
  } catch (error) {
    return { error, egress };
  }
}

/** Who stops the command first, and why (a later reason never replaces it). */
function firstStop() {
  let stopped: { reason: LoopOutcome["stopReason"]; detail: string } | null = null;
  return {
    stop: (reason: LoopOutcome["stopReason"], detail: string) => {
      stopped ??= { reason, detail };
    },
    stopped: () => stopped,
  };
}

async function superviseCommand(spec: TrialSpec, agent: CommandAgentSpec, s: Supervision): Promise<LoopOutcome> {
  const { resultFile, eventsFile } = contractFiles(s.agentDir);
  // Everything umpire writes in the agent's folder exists before the agent does (agent-files.ts).
  writeOwnFile(eventsFile, "");
  const logs = openCommandLogs(s.agentDir);
  try {
    return await supervise(spec, agent, s, { resultFile, eventsFile, logs });
  } finally {
    logs.close();
  }
}

async function supervise(
  spec: TrialSpec,
  agent: CommandAgentSpec,
  s: Supervision,
  files: { resultFile: string; eventsFile: string; logs: ReturnType<typeof openCommandLogs> },
): Promise<LoopOutcome> {
  const { task } = spec;
  const out = emptyLoopOutcome("answered", "");
  const { resultFile, eventsFile, logs } = files;
  // With modelProxy: the trial's proxy, reachable from the sandbox in place of the upstream.
  const upstream = agent.modelProxy
    ? { baseUrl: agent.modelProxy.baseUrl, apiKey: agent.modelProxy.apiKey ?? null }
    : null;
  const proxy = upstream ? await startTrialModelProxy(upstream, s.log, task.limits.tokens) : undefined;
  const reach: CommandAgentSpec = proxy ? { ...agent, network: [...agent.network, proxy.origin] } : agent;
  const childEnv = writeContract(spec, agent, s, proxy);
  const stops = firstStop();
  const began = performance.now();
  const limits = agent.sandbox.kind === "bwrap" ? sandboxLimits(spec, agent, s) : undefined;
  const started = await startCommand(agent, reach, s, childEnv, limits);
  if (!started.child) {
    await proxy?.finish(out, null);
    await started.egress?.close();
    await limits?.release();
    if (limits?.uid != null) takeBackFromSandboxUid(s.agentDir);
    return cannotStart(out, agent, firstLineOf(started.error));
  }
  const command = watchCommand(started.child, logs, agent.sandbox.kind === "bwrap");
  // Follow the events file: validate, merge into the trial log, screenshot after each reported step.
  const steps = new StepFollower(eventsFile, task, out, { env: s.env, log: s.log, onTurn: s.onTurn, stop: stops.stop });
  const deadline = began + task.limits.seconds * 1000;
  const folder = watchAgentFolder(s.agentDir);
  let overFull: string | null = null;
  while (!command.exited()) {
    await Promise.race([command.exit, sleep(POLL_MS)]);
    await steps.drain(false);
    overFull = await folder.check();
    if (s.signal.aborted) stops.stop("cancelled", "stopped by the user");
    else if (overFull) stops.stop("agent_crashed", `${overFull}; the agent's process group was ended`);
    else if (s.browserGone())
      stops.stop("environment_error", `${s.browserGone()}; the agent's process group was ended`);
    else if (proxy?.overBudget())
      stops.stop("token_budget", `${proxy.overBudget()}; the agent's process group was ended`);
    else if (performance.now() >= deadline)
      stops.stop("timeout", `time limit of ${task.limits.seconds} s reached; the agent's process group was ended`);
    if (stops.stopped() && !command.exited()) break;
  }
  // Always end the group: a command that exited may have left children behind.
  await command.killGroup();
  const ended = await command.exit;
  await started.egress?.close();
  await limits?.release();
  if (limits?.uid != null) takeBackFromSandboxUid(s.agentDir);
  await steps.drain(true);
  steps.finish();
  if (overFull) await freeAgentFolder(s, overFull);
  out.timing.executorMs = performance.now() - began;
  // The final screen, whatever happened.
  await steps.screenshot();
  // umpire could not keep the agent's output (a full disk): a storage fault, not a silent gap.
  const lost = logs.failed();
  if (lost) throw storageError(lost.error, lost.path, "--out");
  const result = await readResult(resultFile, out, s, proxy !== undefined);
  await judgeEnding(out, agent, {
    forced: stops.stopped(),
    ended,
    result,
    sandboxUp: command.sandboxUp,
    stderrTail: command.stderrTail(),
  });
  // The measured usage replaces the claimed one; a crash right after the model endpoint failed is the endpoint's.
  await proxy?.finish(out, result?.ok ? (result.result.usage ?? null) : null);
  s.log.step("flow_event", {
    flow: "stop",
    origin: "external_agent",
    reason: out.stopReason,
    detail: out.stopDetail,
    exit_code: ended.code,
    signal: ended.signal,
  });
  return out;
}

/** The trial's process and memory bounds for its sandbox, made now and written in the trial log. */
function sandboxLimits(spec: TrialSpec, agent: CommandAgentSpec, s: Supervision): HeldLimits {
  const limits = holdAgentLimits(`${spec.id}-${randomBytes(4).toString("hex")}`, DEFAULT_AGENT_LIMITS, {
    // UMPIRE_AGENT_LIMITS=prlimit skips the cgroups (to see the fallback hold on a machine that has them).
    cgroups: process.env.UMPIRE_AGENT_LIMITS !== "prlimit",
    // What bubblewrap binds, as that uid: the agent's folder, node, the init script, the trial folder, the socket's folder.
    reach: [agent.cwd, sandboxInitScript(), process.execPath, dirname(s.agentDir), browserScratchDir()],
    bwrap: agent.sandbox.kind === "bwrap" ? agent.sandbox.binary : undefined,
  });
  s.log.step("flow_event", {
    flow: "sandbox_limits",
    origin: "sandbox",
    pids: limits.pids,
    memory_bytes: limits.memoryBytes,
    enforced_by: limits.how,
    ...(limits.uid !== null ? { uid: limits.uid } : {}),
    ...(limits.unenforced ? { unenforced: limits.unenforced } : {}),
  });
  return limits;
}

/** After an agent filled its folder past the cap: what it added beyond the contract's files is removed, and said. */
async function freeAgentFolder(s: Supervision, why: string): Promise<void> {
  const removed = await removeAgentExtras(s.agentDir, CONTRACT_NAMES);
  s.log.step("error_event", {
    error: `${why}: umpire removed the ${removed} entries it added beyond its contract's files, so the run has its space back`,
    origin: "agent_folder",
    tool_req: null,
  });
}

/** The command never started: the sandbox's failure is the harness's; the command's own program missing is the agent's. */
function cannotStart(out: LoopOutcome, agent: CommandAgentSpec, why: string): LoopOutcome {
  if (agent.sandbox.kind === "bwrap") return sandboxDidNotStart(out, agent.sandbox.binary, why);
  out.stopReason = "agent_crashed";
  out.stopDetail = `could not start ${agent.command[0]}: ${why}`;
  return out;
}

/** The result file as the agent left it: never through a link or from a pipe (agent-files.ts); null when absent. */
async function resultOf(resultFile: string): Promise<ReturnType<typeof parseAgentResult> | null> {
  const got = await readAgentFile(resultFile, 0, MAX_RESULT_BYTES + 1);
  if (got.status === "missing") return null;
  if (got.status === "refused") return { ok: false, reason: `the result file was not read: ${got.reason}` };
  return parseAgentResult(got.bytes.toString("utf8"));
}

/** The agent's result file, read into the outcome (its answer; its claimed usage unless the proxy measured it). */
async function readResult(
  resultFile: string,
  out: LoopOutcome,
  s: Supervision,
  measured: boolean,
): Promise<ReturnType<typeof parseAgentResult> | null> {
  const result = await resultOf(resultFile);
  if (result?.ok) {
    out.answer = result.result.answer ?? null;
    if (result.result.usage && !measured) {
      const u = result.result.usage;
      out.usage = {
        inputTokens: u.inputTokens,
        outputTokens: u.outputTokens,
        reasoningTokens: u.reasoningTokens ?? 0,
        cachedTokens: u.cachedTokens ?? 0,
        reported: true,
      };
    }
    s.log.step("answer_event", {
      answer: out.answer ?? "",
      outcome: result.result.outcome ?? null,
      origin: "external_agent",
    });
  }
  return result;
}

/** How the command ended, as the trial's stop reason: umpire's stop first, then a sandbox that never came up, then the command's own exit. */
async function judgeEnding(
  out: LoopOutcome,
  agent: CommandAgentSpec,
  how: {
    forced: { reason: LoopOutcome["stopReason"]; detail: string } | null;
    ended: CommandExit;
    result: ReturnType<typeof parseAgentResult> | null;
    sandboxUp: Promise<boolean>;
    stderrTail: string;
  },
): Promise<void> {
  const { forced, ended, result, stderrTail } = how;
  if (forced) {
    out.stopReason = forced.reason;
    out.stopDetail = forced.detail;
  } else if (agent.sandbox.kind === "bwrap" && (ended.spawnError !== undefined || !(await how.sandboxUp))) {
    sandboxDidNotStart(
      out,
      agent.sandbox.binary,
      ended.spawnError ??
        (failureLine(stderrTail) || (ended.signal ? `killed by ${ended.signal}` : `exit code ${ended.code}`)),
    );
  } else if (ended.spawnError) {
    out.stopReason = "agent_crashed";
    out.stopDetail = `could not start ${agent.command[0]}: ${ended.spawnError}`;
  } else if (ended.code !== 0) {
    out.stopReason = "agent_crashed";
    const how = ended.signal ? `was killed by ${ended.signal}` : `exited with code ${ended.code}`;
    const last = failureLine(stderrTail);
    out.stopDetail = `the command ${how}${last ? `: ${last}` : ""}`;
  } else if (!result) {
    out.stopReason = "agent_crashed";
    out.stopDetail = "the command exited 0 without writing its result file";
  } else if (!result.ok) {
    out.stopReason = "agent_crashed";
    out.stopDetail = `the command exited 0 but ${result.reason}`;
  }
}

/** A sandbox that never started (bwrap missing, namespaces refused): environment_error, the harness's failure. */
function sandboxDidNotStart(out: LoopOutcome, binary: string, why: string): LoopOutcome {
  out.stopReason = "environment_error";
  out.stopDetail = `the sandbox (bubblewrap, ${binary}) could not start, so the agent never ran: ${why}`;
  return out;
}
