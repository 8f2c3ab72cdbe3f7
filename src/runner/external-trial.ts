/**
 * One trial of an agent that brings its own loop (kind `command`): umpire prepares everything a
 * trial has (fixture session, guarded context, workspace), starts the user's command in its own
 * process group with the trial's own browser endpoint, follows the steps it reports, enforces
 * the deadline and the caps, and then judges and stores the trial like any other
 * (`concludeTrial`). The command's output is untrusted input throughout.
 */
import { traceSpecFor } from "./trial-trace.js";
import { spawn } from "node:child_process";
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import type { Readable } from "node:stream";
import { chromium, type Browser } from "playwright";
import { failureLine, firstLineOf } from "../errors.js";
import { MAX_AGENT_EVENTS, LineBuffer, parseAgentEventLine, parseAgentResult, type AgentEnvelope } from "./agent-events.js";
import { TrialEnvironment } from "./environment.js";
import { emptyLoopOutcome, type LoopOutcome, type PlayedTurn } from "./loop.js";
import { blockedRequestLog, concludeTrial, type TrialDeps, type TrialOutcome, type TrialSpec } from "./trial.js";
import { createTrialLog } from "./trial-log.js";
import { launchTrialBrowser, type TrialBrowser } from "./trial-browser.js";
import { startTrialModelProxy, type TrialModelProxy } from "./trial-model-proxy.js";
import { SANDBOX_READY_FD, agentEnvironment, openEgress, sandboxArgv, type Egress, type SandboxMode } from "./agent-sandbox.js";
import { ACTION_STATUSES } from "../vocabulary.js";

/** The command agent as the runner needs it (resolved from the config file's `agents:`). */
export interface CommandAgentSpec {
  name: string;
  /** argv: the program and its arguments; no shell. */
  command: string[];
  /** Absolute working folder. */
  cwd: string;
  /** Extra environment variables for the command (values never stored). */
  env: Record<string, string>;
  /** Names of umpire's environment variables the command also gets (never a key umpire holds). */
  passEnv: string[];
  /** Origins the agent's own code may reach from the sandbox (its model endpoints). */
  network: string[];
  /** How the command is contained: bubblewrap, or none (and why). */
  sandbox: SandboxMode;
  /** `modelProxy`: its model calls go through umpire (the CLI reads `apiKey` from `apiKeyEnv`); null: its own. */
  modelProxy?: { baseUrl: string; apiKeyEnv: string | null; apiKey?: string | null } | null;
}

/** How long a command gets between SIGTERM and SIGKILL of its process group. */
export const KILL_GRACE_MS = 2_000;
const POLL_MS = 200;
const LOG_CAP = 256 * 1024;

export type ExternalTrialDeps = Pick<TrialDeps, "target" | "fixtureSiteUrl" | "board" | "env" | "signal" | "onTurn" | "movedAside" | "trace">;

export async function runExternalTrial(spec: TrialSpec, folder: string, agent: CommandAgentSpec, deps: ExternalTrialDeps): Promise<TrialOutcome> {
  const started = performance.now();
  const log = createTrialLog(folder);
  const workspaceDir = join(folder, "workspace");
  const agentDir = join(folder, "agent");
  // The trial's token is in agent/trial.json: a folder only its owner may enter, a file only its owner may read.
  mkdirSync(agentDir, { recursive: true, mode: 0o700 });
  chmodSync(agentDir, 0o700);
  log.emit("AgentStartedEvent", {
    trial: spec.id,
    task: spec.task.id,
    agent: spec.agentLabel,
    repeat: spec.repeat,
    kind: "command",
    command: agent.command,
    sandbox: agent.sandbox.kind,
    ...(agent.sandbox.kind === "none" ? { sandbox_none_reason: agent.sandbox.why } : {}),
    ...(deps.movedAside ? { previousFolderMovedTo: deps.movedAside } : {}),
  });
  const blocked = blockedRequestLog(log);
  let trialBrowser: TrialBrowser | undefined;
  let browser: Browser | undefined;
  let env: TrialEnvironment | undefined;
  let loop: LoopOutcome;
  let error: string | null = null;
  try {
    mkdirSync(join(workspaceDir, "downloads"), { recursive: true });
    trialBrowser = await launchTrialBrowser({ downloadsDir: join(workspaceDir, "downloads") });
    trialBrowser.onRefusal((refusal) => {
      const verb = refusal.action === "refused" ? "refused the agent's" : "rewrote the agent's";
      log.step("error_event", { error: `umpire ${verb} ${refusal.method}: ${refusal.reason}`, origin: "cdp_guard", tool_req: null, guard: refusal });
    });
    browser = await chromium.connectOverCDP(trialBrowser.umpireEndpoint);
    env = await TrialEnvironment.open({ browser, task: spec.task, trialId: spec.id, workspaceDir, target: deps.target, fixtureSiteUrl: deps.fixtureSiteUrl, board: deps.board, onBlockedRequest: blocked.record, trace: traceSpecFor(deps.trace, folder) });
    const cdp = await browser.newBrowserCDPSession();
    const { browserContextIds } = (await cdp.send("Target.getBrowserContexts")) as { browserContextIds: string[] };
    await cdp.detach().catch(() => undefined);
    // The trial's browser holds exactly one context of umpire's making: the guarded one.
    trialBrowser.setTrialContext(browserContextIds[0]!);
    const gone = trialBrowser.gone;
    loop = await superviseCommand(spec, agent, { env, log, agentDir, workspaceDir, endpoint: trialBrowser.agentEndpoint, signal: deps.signal, onTurn: deps.onTurn, browserGone: gone });
    // Whatever the agent left behind (a process outside the sandbox) no longer reaches the browser the checks use.
    trialBrowser.shutOutAgent();
  } catch (e) {
    error = firstLineOf(e);
    log.emit("AgentErrorEvent", { error, trace: e instanceof Error ? (e.stack ?? "") : "", info: {} });
    loop = emptyLoopOutcome("environment_error", error);
  }
  try {
    return await concludeTrial(spec, folder, { target: deps.target, board: deps.board, env: deps.env, signal: deps.signal, log, trialEnv: env, loop, error, started, repetition: {}, blocked, driver: { external: true, sandboxed: agent.sandbox.kind === "bwrap" } });
  } finally {
    await browser?.close().catch(() => undefined);
    await trialBrowser?.close().catch(() => undefined);
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
    s.log.step("error_event", { error: `umpire's sandbox refused the agent's connection to ${destination}`, origin: "sandbox_guard", tool_req: null });
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
  const proxy: Record<string, string> = remote ? { HTTPS_PROXY: `http://127.0.0.1:${SANDBOX_PROXY_PORT}`, https_proxy: `http://127.0.0.1:${SANDBOX_PROXY_PORT}`, NO_PROXY: "127.0.0.1,localhost", no_proxy: "127.0.0.1,localhost" } : {};
  const hide = agent.sandbox.kind === "bwrap" ? agent.sandbox.hide : [];
  return {
    command: agent.command,
    cwd: agent.cwd,
    agentDir: s.agentDir,
    hide: [...hide, dirname(s.agentDir), dirname(dirname(s.agentDir)), dirname(dirname(dirname(s.agentDir))), homedir()],
    env: { ...env, HOME: "/tmp/home", TMPDIR: "/tmp", ...proxy },
    egressSocket: egress.socket,
    forwards,
    proxyPort: remote ? SANDBOX_PROXY_PORT : 0,
  };
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

async function superviseCommand(spec: TrialSpec, agent: CommandAgentSpec, s: Supervision): Promise<LoopOutcome> {
  const { task } = spec;
  const out = emptyLoopOutcome("answered", "");
  const resultFile = join(s.agentDir, "result.json");
  const eventsFile = join(s.agentDir, "events.jsonl");
  writeFileSync(eventsFile, "");
  const startUrl = s.env.startUrl;
  const limits = { turns: task.limits.turns, actions: task.limits.actions, seconds: task.limits.seconds, tokens: task.limits.tokens };
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
  };
  // With modelProxy: the trial's proxy, reachable from the sandbox in place of the upstream.
  const upstream = agent.modelProxy ? { baseUrl: agent.modelProxy.baseUrl, apiKey: agent.modelProxy.apiKey ?? null } : null;
  const proxy = upstream ? await startTrialModelProxy(upstream, s.log, task.limits.tokens) : undefined;
  if (proxy) Object.assign(trialInfo, { modelBaseUrl: proxy.env.UMPIRE_MODEL_BASE_URL });
  const reach: CommandAgentSpec = proxy ? { ...agent, network: [...agent.network, proxy.origin] } : agent;
  const trialFile = join(s.agentDir, "trial.json");
  writeFileSync(trialFile, `${JSON.stringify(trialInfo, null, 2)}\n`, { mode: 0o600 });
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
  const childEnv = agentEnvironment(process.env, agent.passEnv, agent.env, contract);

  const stop = (reason: LoopOutcome["stopReason"], detail: string) => {
    if (stopped) return;
    stopped = { reason, detail };
  };
  let stopped: { reason: LoopOutcome["stopReason"]; detail: string } | null = null;
  const began = performance.now();
  let child;
  let egress: Egress | undefined;
  try {
    // Its own process group (detached): the deadline ends the command and everything it started.
    if (agent.sandbox.kind === "bwrap") {
      egress = await openSandboxEgress(reach, s);
      const argv = sandboxArgv(sandboxPlan(reach, s, childEnv, egress));
      const stdio = ["ignore", "pipe", "pipe", "pipe"] as const; // fd 3 = SANDBOX_READY_FD
      const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
      child = spawn(agent.sandbox.binary, argv, { cwd: agent.cwd, env, detached: true, stdio: [...stdio] });
    } else {
      child = spawn(agent.command[0]!, agent.command.slice(1), { cwd: agent.cwd, env: childEnv, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    }
  } catch (e) {
    await proxy?.finish(out, null);
    await egress?.close();
    // The sandbox's own program could not be started: the harness's failure, not the agent's.
    if (agent.sandbox.kind === "bwrap") return sandboxDidNotStart(out, agent.sandbox.binary, firstLineOf(e));
    out.stopReason = "agent_crashed";
    out.stopDetail = `could not start ${agent.command[0]}: ${firstLineOf(e)}`;
    return out;
  }
  const sandboxUp = agent.sandbox.kind === "bwrap" ? readySignal(child.stdio[SANDBOX_READY_FD] as Readable | null) : Promise.resolve(true);
  const pgid = child.pid;
  const capture = (name: string) => {
    let size = 0;
    const file = join(s.agentDir, name);
    writeFileSync(file, "");
    return (chunk: Buffer) => {
      if (size >= LOG_CAP) return;
      const part = chunk.subarray(0, LOG_CAP - size);
      size += part.length;
      writeFileSync(file, part, { flag: "a" });
    };
  };
  child.stdout!.on("data", capture("stdout.log"));
  let stderrTail = "";
  const stderrSink = capture("stderr.log");
  child.stderr!.on("data", (chunk: Buffer) => {
    stderrSink(chunk);
    stderrTail = (stderrTail + chunk.toString("utf8")).slice(-2_000);
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null; spawnError?: string }>((resolve) => {
    child.once("error", (e) => resolve({ code: null, signal: null, spawnError: firstLineOf(e) }));
    child.once("exit", (code, signal) => resolve({ code, signal }));
  });
  let exited: Awaited<typeof exit> | null = null;
  void exit.then((e) => (exited = e));

  const killGroup = async () => {
    if (pgid === undefined) return;
    signalGroup(pgid, "SIGTERM");
    const graceEnd = Date.now() + KILL_GRACE_MS;
    while (!exited && Date.now() < graceEnd) await sleep(50);
    signalGroup(pgid, "SIGKILL");
  };

  // Follow the events file: validate, merge into the trial log, screenshot after each reported step.
  const reader = new EventsReader(eventsFile);
  let events = 0;
  let refusedLines = 0;
  let turn: PlayedTurn | null = null;
  const flushTurn = () => {
    if (turn) s.onTurn(turn);
    turn = null;
  };
  const screenshot = async (): Promise<{ path: string; width: number; height: number } | null> => {
    try {
      const observation = await s.env.observe();
      out.timing.captureMs += observation.captureMs;
      const path = s.log.screenshot(observation.png, observation.sha256);
      out.lastScreenshot = path;
      s.log.step("observation_event", {
        type: "web",
        text: null,
        image: { type: "url", source: path, media_type: "image/png" },
        metadata: { url: s.env.page.url(), origin: "umpire", captured_at: observation.capturedAt, image_size: [observation.width, observation.height] },
      });
      return { path, width: observation.width, height: observation.height };
    } catch {
      return null; // the page is mid-navigation or closed; the next step or the end takes one
    }
  };
  const handle = async (event: AgentEnvelope) => {
    if (event.type === "MetricsUpdateEvent") {
      s.log.emit("MetricsUpdateEvent", { ...event.data, origin: "external_agent" });
      return;
    }
    const data = event.data;
    s.log.emit("AgentEvent", { ...data, origin_agent: "external", ...(event.timestamp ? { agent_timestamp: event.timestamp } : {}) });
    if (data.kind === "policy_event") {
      flushTurn();
      out.turns += 1;
      const shot = await screenshot();
      turn = {
        idx: out.turns,
        startedAt: new Date().toISOString(),
        outcome: "actions",
        finishReason: null,
        modelMs: 0,
        ttftMs: null,
        retries: 0,
        usage: { inputTokens: null, outputTokens: null, reasoningTokens: null, cachedTokens: null },
        note: null,
        thought: null,
        content: typeof data.content === "string" ? data.content : null,
        reasoning: typeof data.reasoning_content === "string" ? data.reasoning_content : null,
        screenshot: shot?.path ?? out.lastScreenshot ?? "",
        width: shot?.width ?? 0,
        height: shot?.height ?? 0,
        flags: { external: true },
        actions: [],
      };
      if (out.turns > task.limits.turns) stop("turn_limit", `the agent reported step ${out.turns} of ${task.limits.turns} allowed`);
    } else if (data.kind === "tool_result") {
      out.actions += 1;
      const result = (data.result ?? {}) as { status?: unknown; message?: unknown };
      const status = ACTION_STATUSES.find((known) => known === result.status) ?? "success";
      if (!turn) {
        out.turns += 1;
        turn = { idx: out.turns, startedAt: new Date().toISOString(), outcome: "actions", finishReason: null, modelMs: 0, ttftMs: null, retries: 0, usage: { inputTokens: null, outputTokens: null, reasoningTokens: null, cachedTokens: null }, note: null, thought: null, content: null, reasoning: null, screenshot: out.lastScreenshot ?? "", width: 0, height: 0, flags: { external: true }, actions: [] };
      }
      const shot = await screenshot();
      if (shot) {
        turn.screenshot = shot.path;
        turn.width = shot.width;
        turn.height = shot.height;
      }
      turn.actions.push({
        id: data.tool_req.id ?? `ext-${out.actions}`,
        tool: data.tool_req.tool_name,
        status,
        message: typeof result.message === "string" ? result.message.slice(0, 2_000) : "reported by the agent",
        ms: 0,
        idx: turn.actions.length,
        args: (data.tool_req.args ?? {}) as Record<string, unknown>,
      });
      if (out.actions > task.limits.actions) stop("action_limit", `the agent reported action ${out.actions} of ${task.limits.actions} allowed`);
    }
  };
  const drain = async (final: boolean) => {
    for (const line of reader.read(final)) {
      if (events >= MAX_AGENT_EVENTS) {
        events += 1;
        continue;
      }
      events += 1;
      const parsed = parseAgentEventLine(line.text);
      if (!parsed.ok) {
        refusedLines += 1;
        if (refusedLines <= 20) s.log.step("error_event", { error: `agent event line ${line.number} refused: ${parsed.reason}`, origin: "external_agent_output", tool_req: null });
        continue;
      }
      await handle(parsed.event);
    }
  };

  const deadline = began + task.limits.seconds * 1000;
  while (!exited) {
    await Promise.race([exit, sleep(POLL_MS)]);
    await drain(false);
    if (s.signal.aborted) stop("cancelled", "stopped by the user");
    else if (s.browserGone()) stop("environment_error", `${s.browserGone()}; the agent's process group was ended`);
    else if (proxy?.overBudget()) stop("token_budget", `${proxy.overBudget()}; the agent's process group was ended`);
    else if (performance.now() >= deadline) stop("timeout", `time limit of ${task.limits.seconds} s reached; the agent's process group was ended`);
    if (stopped && !exited) break;
  }
  // Always end the group: a command that exited may have left children behind.
  await killGroup();
  const ended = (await exit) as { code: number | null; signal: NodeJS.Signals | null; spawnError?: string };
  await egress?.close();
  await drain(true);
  if (events > MAX_AGENT_EVENTS) s.log.step("error_event", { error: `${events - MAX_AGENT_EVENTS} agent events past ${MAX_AGENT_EVENTS} were not merged`, origin: "external_agent_output", tool_req: null });
  flushTurn();
  out.timing.executorMs = performance.now() - began;
  // The final screen, whatever happened.
  await screenshot();

  const result = existsSync(resultFile) ? parseAgentResult(readFileSync(resultFile, "utf8")) : null;
  if (result?.ok) {
    out.answer = result.result.answer ?? null;
    if (result.result.usage && !proxy) {
      const u = result.result.usage;
      out.usage = { inputTokens: u.inputTokens, outputTokens: u.outputTokens, reasoningTokens: u.reasoningTokens ?? 0, cachedTokens: u.cachedTokens ?? 0, reported: true };
    }
    s.log.step("answer_event", { answer: out.answer ?? "", outcome: result.result.outcome ?? null, origin: "external_agent" });
  }
  const forced = stopped as { reason: LoopOutcome["stopReason"]; detail: string } | null;
  if (forced) {
    out.stopReason = forced.reason;
    out.stopDetail = forced.detail;
  } else if (agent.sandbox.kind === "bwrap" && (ended.spawnError !== undefined || !(await sandboxUp))) {
    sandboxDidNotStart(out, agent.sandbox.binary, ended.spawnError ?? (failureLine(stderrTail) || (ended.signal ? `killed by ${ended.signal}` : `exit code ${ended.code}`)));
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
  // The measured usage replaces the claimed one; a crash right after the model endpoint failed is the endpoint's.
  await proxy?.finish(out, result?.ok ? (result.result.usage ?? null) : null);
  s.log.step("flow_event", { flow: "stop", origin: "external_agent", reason: out.stopReason, detail: out.stopDetail, exit_code: ended.code, signal: ended.signal });
  return out;
}

/**
 * Whether the sandbox said it was up (sandbox-init.mjs writes one line on SANDBOX_READY_FD before
 * the agent's command starts): resolves once it did, or once the descriptor closed without it.
 */
function readySignal(stream: Readable | null): Promise<boolean> {
  if (!stream) return Promise.resolve(false);
  return new Promise((resolve) => {
    // A hang guard only: the descriptor closes when the sandbox exits, and the line comes first.
    setTimeout(() => resolve(false), 10_000).unref();
    stream.once("data", () => {
      resolve(true);
      stream.resume();
    });
    stream.once("close", () => resolve(false));
    stream.once("end", () => resolve(false));
    stream.once("error", () => resolve(false));
  });
}

/** A sandbox that never started (bwrap missing, namespaces refused): environment_error, the harness's failure. */
function sandboxDidNotStart(out: LoopOutcome, binary: string, why: string): LoopOutcome {
  out.stopReason = "environment_error";
  out.stopDetail = `the sandbox (bubblewrap, ${binary}) could not start, so the agent never ran: ${why}`;
  return out;
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Reads what the agent appended to its events file since the last read, as numbered lines. */
class EventsReader {
  private offset = 0;
  private line = 0;
  private readonly buffer = new LineBuffer();
  constructor(private readonly file: string) {}

  read(final: boolean): { number: number; text: string }[] {
    const lines: string[] = [];
    let fd: number;
    try {
      fd = openSync(this.file, "r");
    } catch {
      return [];
    }
    try {
      const chunk = Buffer.alloc(64 * 1024);
      for (;;) {
        const n = readSync(fd, chunk, 0, chunk.length, this.offset);
        if (n <= 0) break;
        this.offset += n;
        lines.push(...this.buffer.push(chunk.subarray(0, n).toString("utf8")));
        // Never more than 8 MB of events per trial: the rest is left unread.
        if (this.offset > 8 * 1024 * 1024) break;
      }
    } finally {
      closeSync(fd);
    }
    if (final) lines.push(...this.buffer.flush());
    return lines.map((text) => ({ number: ++this.line, text }));
  }
}
