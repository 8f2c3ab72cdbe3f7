/**
 * One trial of an agent that brings its own loop (kind `command`): umpire prepares everything a
 * trial has (fixture session, guarded context, workspace), starts the user's command in its own
 * process group with the trial's own browser endpoint, follows the steps it reports, enforces
 * the deadline and the caps, and then judges and stores the trial like any other
 * (`concludeTrial`). The command's output is untrusted input throughout.
 */
import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser } from "playwright";
import { failureLine } from "../errors.js";
import { MAX_AGENT_EVENTS, LineBuffer, parseAgentEventLine, parseAgentResult, type AgentEnvelope } from "./agent-events.js";
import { TrialEnvironment } from "./environment.js";
import { emptyLoopOutcome, messageOf, type LoopOutcome, type PlayedTurn } from "./loop.js";
import { blockedRequestLog, concludeTrial, type TrialDeps, type TrialOutcome, type TrialSpec } from "./trial.js";
import { createTrialLog } from "./trial-log.js";
import { launchTrialBrowser, type TrialBrowser } from "./trial-browser.js";

/** The command agent as the runner needs it (resolved from the config file's `agents:`). */
export interface CommandAgentSpec {
  name: string;
  /** argv: the program and its arguments; no shell. */
  command: string[];
  /** Absolute working folder. */
  cwd: string;
  /** Extra environment variables for the command (values never stored). */
  env: Record<string, string>;
}

/** How long a command gets between SIGTERM and SIGKILL of its process group. */
export const KILL_GRACE_MS = 2_000;
const POLL_MS = 200;
const LOG_CAP = 256 * 1024;

export type ExternalTrialDeps = Pick<TrialDeps, "target" | "fixtureSiteUrl" | "board" | "env" | "signal" | "onTurn" | "movedAside">;

export async function runExternalTrial(spec: TrialSpec, folder: string, agent: CommandAgentSpec, deps: ExternalTrialDeps): Promise<TrialOutcome> {
  const started = performance.now();
  const log = createTrialLog(folder);
  const workspaceDir = join(folder, "workspace");
  const agentDir = join(folder, "agent");
  mkdirSync(agentDir, { recursive: true });
  log.emit("AgentStartedEvent", {
    trial: spec.id,
    task: spec.task.id,
    agent: spec.agentLabel,
    repeat: spec.repeat,
    kind: "command",
    command: agent.command,
    ...(deps.movedAside ? { previousFolderMovedTo: deps.movedAside } : {}),
  });
  const blocked = blockedRequestLog(log);
  let trialBrowser: TrialBrowser | undefined;
  let browser: Browser | undefined;
  let env: TrialEnvironment | undefined;
  let loop: LoopOutcome;
  let error: string | null = null;
  try {
    trialBrowser = await launchTrialBrowser();
    browser = await chromium.connectOverCDP(trialBrowser.umpireEndpoint);
    env = await TrialEnvironment.open({ browser, task: spec.task, trialId: spec.id, workspaceDir, target: deps.target, fixtureSiteUrl: deps.fixtureSiteUrl, board: deps.board, onBlockedRequest: blocked.record });
    const cdp = await browser.newBrowserCDPSession();
    const { browserContextIds } = (await cdp.send("Target.getBrowserContexts")) as { browserContextIds: string[] };
    await cdp.detach().catch(() => undefined);
    // The trial's browser holds exactly one context of umpire's making: the guarded one.
    trialBrowser.setTrialContext(browserContextIds[0]!);
    loop = await superviseCommand(spec, agent, { env, log, agentDir, workspaceDir, endpoint: trialBrowser.agentEndpoint, signal: deps.signal, onTurn: deps.onTurn });
    for (const refused of trialBrowser.refused) {
      log.step("error_event", { error: `umpire refused the agent's ${refused.method}: ${refused.reason}`, origin: "cdp_guard", tool_req: null });
    }
  } catch (e) {
    error = messageOf(e);
    log.emit("AgentErrorEvent", { error, trace: e instanceof Error ? (e.stack ?? "") : "", info: {} });
    loop = emptyLoopOutcome("environment_error", error);
  }
  try {
    return await concludeTrial(spec, folder, { target: deps.target, board: deps.board, env: deps.env, signal: deps.signal, log, trialEnv: env, loop, error, started, repetition: {}, blocked });
  } finally {
    await browser?.close().catch(() => undefined);
    await trialBrowser?.close().catch(() => undefined);
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
}

async function superviseCommand(spec: TrialSpec, agent: CommandAgentSpec, s: Supervision): Promise<LoopOutcome> {
  const { task } = spec;
  const out = emptyLoopOutcome("answered", "");
  const resultFile = join(s.agentDir, "result.json");
  const eventsFile = join(s.agentDir, "events.jsonl");
  writeFileSync(eventsFile, "");
  const startUrl = new URL(task.start.path, `${s.env.options.target.baseUrl}/`).toString();
  const limits = { turns: task.limits.turns, actions: task.limits.actions, seconds: task.limits.seconds, tokens: task.limits.tokens };
  const trialInfo = {
    trialId: spec.id,
    taskId: task.id,
    instruction: task.instruction,
    startUrl,
    workspace: s.workspaceDir,
    limits,
    tools: task.tools,
    allowedOrigins: [...s.env.origins],
    viewport: task.viewport,
    cdpUrl: s.endpoint,
    resultFile,
    eventsFile,
  };
  const trialFile = join(s.agentDir, "trial.json");
  writeFileSync(trialFile, `${JSON.stringify(trialInfo, null, 2)}\n`);
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    ...agent.env,
    UMPIRE_TRIAL_FILE: trialFile,
    UMPIRE_TRIAL_ID: spec.id,
    UMPIRE_TASK_ID: task.id,
    UMPIRE_INSTRUCTION: task.instruction,
    UMPIRE_START_URL: startUrl,
    UMPIRE_WORKSPACE: s.workspaceDir,
    UMPIRE_LIMITS: JSON.stringify(limits),
    UMPIRE_CDP_URL: s.endpoint,
    UMPIRE_RESULT_FILE: resultFile,
    UMPIRE_EVENTS_FILE: eventsFile,
  };

  const stop = (reason: LoopOutcome["stopReason"], detail: string) => {
    if (stopped) return;
    stopped = { reason, detail };
  };
  let stopped: { reason: LoopOutcome["stopReason"]; detail: string } | null = null;
  const began = performance.now();
  let child;
  try {
    // Its own process group (detached): the deadline ends the command and everything it started.
    child = spawn(agent.command[0]!, agent.command.slice(1), { cwd: agent.cwd, env: childEnv, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  } catch (e) {
    out.stopReason = "agent_crashed";
    out.stopDetail = `could not start ${agent.command[0]}: ${messageOf(e)}`;
    return out;
  }
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
    child.once("error", (e) => resolve({ code: null, signal: null, spawnError: messageOf(e) }));
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
      const status = ["success", "rejected", "failed", "skipped"].includes(String(result.status)) ? (String(result.status) as "success") : "success";
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
    else if (performance.now() >= deadline) stop("timeout", `time limit of ${task.limits.seconds} s reached; the agent's process group was ended`);
    if (stopped && !exited) break;
  }
  // Always end the group: a command that exited may have left children behind.
  await killGroup();
  const ended = (await exit) as { code: number | null; signal: NodeJS.Signals | null; spawnError?: string };
  await drain(true);
  if (events > MAX_AGENT_EVENTS) s.log.step("error_event", { error: `${events - MAX_AGENT_EVENTS} agent events past ${MAX_AGENT_EVENTS} were not merged`, origin: "external_agent_output", tool_req: null });
  flushTurn();
  out.timing.executorMs = performance.now() - began;
  // The final screen, whatever happened.
  await screenshot();

  const result = existsSync(resultFile) ? parseAgentResult(readFileSync(resultFile, "utf8")) : null;
  if (result?.ok) {
    out.answer = result.result.answer ?? null;
    if (result.result.usage) {
      const u = result.result.usage;
      out.usage = { inputTokens: u.inputTokens, outputTokens: u.outputTokens, reasoningTokens: u.reasoningTokens ?? 0, cachedTokens: u.cachedTokens ?? 0, reported: true };
    }
    s.log.step("answer_event", { answer: out.answer ?? "", outcome: result.result.outcome ?? null, origin: "external_agent" });
  }
  const forced = stopped as { reason: LoopOutcome["stopReason"]; detail: string } | null;
  if (forced) {
    out.stopReason = forced.reason;
    out.stopDetail = forced.detail;
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
  s.log.step("flow_event", { flow: "stop", origin: "external_agent", reason: out.stopReason, detail: out.stopDetail, exit_code: ended.code, signal: ended.signal });
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
