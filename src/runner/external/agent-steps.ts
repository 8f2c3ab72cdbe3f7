/**
 * Following the steps a command agent reports (docs/external-agents.md): its events file is read
 * as it grows, each line validated (`agent-events.ts`) and merged into the trial log, a screenshot
 * taken after each reported step, and the steps counted into turns and actions against the task's
 * limits. The lines are untrusted input: a refused one is logged, never fatal.
 */
import { isStorageFault } from "../../errors.js";
import { readAgentFile } from "./agent-files.js";
import type { TrialEnvironment } from "../trial/environment.js";
import { MAX_AGENT_EVENTS, LineBuffer, parseAgentEventLine, type AgentEnvelope } from "./agent-events.js";
import type { LoopOutcome, PlayedTurn } from "../trial/loop.js";
import { logObservation, type createTrialLog } from "../trial/trial-log.js";
import type { Task } from "../../task/schema.js";
import { ACTION_STATUSES } from "../../vocabulary.js";

/** Refused lines logged one by one; past this, they are only counted. */
const LOGGED_REFUSALS = 20;

/** What the follower writes to and reads from. */
export interface StepSinks {
  env: TrialEnvironment;
  log: ReturnType<typeof createTrialLog>;
  onTurn: (turn: PlayedTurn) => void;
  /** Called when a reported step goes past a limit of the task. */
  stop: (reason: LoopOutcome["stopReason"], detail: string) => void;
}

/** A turn made of the agent's own steps (no model call of umpire's). */
function externalTurn(idx: number, screenshot: string): PlayedTurn {
  return {
    idx,
    startedAt: new Date().toISOString(),
    outcome: "actions",
    finishReason: null,
    modelMs: 0,
    ttftMs: null,
    retries: 0,
    usage: { inputTokens: null, outputTokens: null, reasoningTokens: null, cachedTokens: null },
    note: null,
    thought: null,
    content: null,
    reasoning: null,
    screenshot,
    width: 0,
    height: 0,
    flags: { external: true },
    actions: [],
  };
}

export class StepFollower {
  private readonly reader: EventsReader;
  private events = 0;
  private refusedLines = 0;
  private turn: PlayedTurn | null = null;

  constructor(
    eventsFile: string,
    private readonly task: Task,
    private readonly out: LoopOutcome,
    private readonly sinks: StepSinks,
  ) {
    this.reader = new EventsReader(eventsFile);
  }

  /** Merges the lines appended since the last call; `final` also takes a last line without its newline. */
  async drain(final: boolean): Promise<void> {
    const { lines, refused } = await this.reader.read(final);
    if (refused) this.logError(`the events file was not read: ${refused}`);
    for (const line of lines) {
      this.events += 1;
      if (this.events > MAX_AGENT_EVENTS) continue;
      const parsed = parseAgentEventLine(line.text);
      if (!parsed.ok) {
        this.refusedLines += 1;
        if (this.refusedLines > LOGGED_REFUSALS) continue;
        this.logError(`agent event line ${line.number} refused: ${parsed.reason}`);
        continue;
      }
      await this.handle(parsed.event);
    }
  }

  /** After the last drain: says how many events were left out, and hands over the last turn. */
  finish(): void {
    const dropped = this.events - MAX_AGENT_EVENTS;
    if (dropped > 0) this.logError(`${dropped} agent events past ${MAX_AGENT_EVENTS} were not merged`);
    this.flushTurn();
  }

  /** Takes a screenshot into the trial log; null when the page is mid-navigation or closed. */
  async screenshot(): Promise<{ path: string; width: number; height: number } | null> {
    const { env, log } = this.sinks;
    try {
      const observation = await env.observe();
      this.out.timing.captureMs += observation.captureMs;
      const path = log.screenshot(observation.png, observation.sha256);
      this.out.lastScreenshot = path;
      logObservation(log, path, {
        url: env.page.url(),
        origin: "umpire",
        captured_at: observation.capturedAt,
        image_size: [observation.width, observation.height],
      });
      return { path, width: observation.width, height: observation.height };
    } catch (error) {
      // A screenshot umpire could not store (a full disk) is a storage fault, never a silent gap.
      if (isStorageFault(error)) throw error;
      return null; // the page was mid-navigation or closed: the next step or the end takes one
    }
  }

  private logError(error: string): void {
    this.sinks.log.step("error_event", { error, origin: "external_agent_output", tool_req: null });
  }

  private flushTurn(): void {
    if (this.turn) this.sinks.onTurn(this.turn);
    this.turn = null;
  }

  private async handle(event: AgentEnvelope): Promise<void> {
    const { log } = this.sinks;
    if (event.type === "MetricsUpdateEvent") {
      log.emit("MetricsUpdateEvent", { ...event.data, origin: "external_agent" });
      return;
    }
    const data = event.data;
    const stamp = event.timestamp ? { agent_timestamp: event.timestamp } : {};
    log.emit("AgentEvent", { ...data, origin_agent: "external", ...stamp });
    if (data.kind === "policy_event") await this.startTurn(data);
    else if (data.kind === "tool_result") await this.addAction(data);
  }

  /** A policy event: the agent decided its next step, a new turn. */
  private async startTurn(data: Extract<AgentEnvelope["data"], { kind: "policy_event" }>): Promise<void> {
    const { out } = this;
    this.flushTurn();
    out.turns += 1;
    const shot = await this.screenshot();
    this.turn = {
      ...externalTurn(out.turns, shot?.path ?? out.lastScreenshot ?? ""),
      content: typeof data.content === "string" ? data.content : null,
      reasoning: typeof data.reasoning_content === "string" ? data.reasoning_content : null,
      width: shot?.width ?? 0,
      height: shot?.height ?? 0,
    };
    const { turns } = this.task.limits;
    if (out.turns > turns) this.sinks.stop("turn_limit", `the agent reported step ${out.turns} of ${turns} allowed`);
  }

  /** A tool result: one action of the current turn (a turn of its own when the agent reported no policy event). */
  private async addAction(data: Extract<AgentEnvelope["data"], { kind: "tool_result" }>): Promise<void> {
    const { out } = this;
    out.actions += 1;
    const result = (data.result ?? {}) as { status?: unknown; message?: unknown };
    const status = ACTION_STATUSES.find((known) => known === result.status) ?? "success";
    if (!this.turn) {
      out.turns += 1;
      this.turn = externalTurn(out.turns, out.lastScreenshot ?? "");
    }
    const turn = this.turn;
    const shot = await this.screenshot();
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
    const { actions } = this.task.limits;
    if (out.actions > actions)
      this.sinks.stop("action_limit", `the agent reported action ${out.actions} of ${actions} allowed`);
  }
}

/** Never more than this much of an events file is read per trial: the rest is left unread. */
const MAX_EVENTS_BYTES = 8 * 1024 * 1024;

/**
 * Reads what the agent appended to its events file since the last read, as numbered lines, never
 * through a link or from a pipe (agent-files.ts); a refusal is said once.
 */
class EventsReader {
  private offset = 0;
  private line = 0;
  private saidRefusal = false;
  private readonly buffer = new LineBuffer();
  constructor(private readonly file: string) {}

  async read(final: boolean): Promise<{ lines: { number: number; text: string }[]; refused?: string }> {
    const lines: string[] = [];
    let refused: string | undefined;
    if (this.offset < MAX_EVENTS_BYTES) {
      const got = await readAgentFile(this.file, this.offset, MAX_EVENTS_BYTES - this.offset);
      if (got.status === "read") {
        this.offset += got.bytes.length;
        lines.push(...this.buffer.push(got.bytes.toString("utf8")));
      } else if (got.status === "refused" && !this.saidRefusal) {
        this.saidRefusal = true;
        refused = got.reason;
      }
    }
    if (final) lines.push(...this.buffer.flush());
    return { lines: lines.map((text) => ({ number: ++this.line, text })), ...(refused ? { refused } : {}) };
  }
}
