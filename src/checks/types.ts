/**
 * The checks contract (docs/ARCHITECTURE.md, "Checks contract"): what a check is given, and
 * what it hands back. Checks read the world a trial left behind (workspace files, the fixture's
 * effects log, a fresh look at the page, the final answer), never the conversation.
 */
import type { Page } from "playwright";
import type { CheckKind, CheckSpec, EffectType } from "../task/schema.js";
import type { Confidence } from "../vocabulary.js";
import type { CommandOutcome } from "./run-command.js";

/** One entry of the fixture's effects log (`GET /sessions/:id/effects`). */
export interface Effect {
  type: EffectType | string;
  /** ISO timestamp (or epoch ms) of when the fixture recorded it. */
  at: string | number;
  detail: Record<string, unknown>;
}

/**
 * A fresh view of the application, supplied by the runner.
 * - `current()` returns the trial's page as the loop left it (the check must not close it).
 * - `open(path)` opens a NEW page at `path` on the fixture site, in the trial's browser context
 *   (same session cookie), and waits for its `load` event. The caller owns that page and closes it.
 * - With `judgedIn` set (a command agent's trial), both are fresh loads in another context, which
 *   `judgedIn` describes for the evidence; that context's owner closes its pages.
 */
/**
 * What an episode capture (a benchmark pack's init script, installed before the page's own scripts)
 * recorded in the trial's page: the first finished episode, and the writes it refused. Read by the
 * `episode` check through `PageProbe.episode`.
 */
export interface EpisodeRecord {
  /** Whether an episode finished (the environment set its done flag). */
  done: boolean;
  /** The first finished episode's reward without time penalty; null when none finished. */
  rawReward: number | null;
  /** The same reward with the environment's time penalty; null when none finished. */
  reward: number | null;
  /** The environment's reason, when it gave one ("timed out"). */
  reason: string | null;
  /** Writes of the reward globals that the page's own code did not make (an agent's script), up to 20. */
  refused: { name: string; value: string; stack: string }[];
}

export interface PageProbe {
  current(): Promise<Page>;
  /**
   * The episode capture's record in the trial's OWN page (never a fresh load: the episode lives in that
   * document); null when the page has no capture. Absent on probes that cannot read it.
   */
  episode?(): Promise<EpisodeRecord | null>;
  open(path: string): Promise<Page>;
  /** Where the pages are loaded when it is not the trial's own context (evidence). */
  judgedIn?: string;
  /**
   * Whether a page at `url` belongs to the task (http(s) on one of its allowed origins). A page
   * check judges only such pages: a `data:` page the agent made up must not pass a URL or selector check.
   */
  isTaskPage(url: string): boolean;
  /**
   * Told the page a page check judged, just before it lets go of it, so the trial can keep the
   * page's DOM as evidence for re-judging (src/checks/evidence-recorder.ts). Optional: a probe
   * that keeps no evidence leaves it out.
   */
  judged?(key: string, page: Page): Promise<void>;
}

/**
 * How checks reach the world outside the browser (http and command checks). The trial records what
 * came back (evidence-recorder.ts); `umpire rejudge` answers from that record instead (evidence-replay.ts).
 */
export interface CheckIo {
  fetch(url: string, init: RequestInit & { method: string }): Promise<Response>;
  runCommand(
    command: string | readonly string[],
    options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number },
  ): Promise<CommandOutcome>;
}

/** The trial's target as checks see it: where relative URLs resolve, and which origins they may reach. */
export interface TargetView {
  name: string;
  /** e.g. http://127.0.0.1:41233 */
  baseUrl: string;
  /** The instance's own trial variables (PORT, INSTANCE, INSTANCE_DIR) when the target has them. */
  vars?: Readonly<Partial<Record<"PORT" | "INSTANCE" | "INSTANCE_DIR", string>>>;
  isAllowedUrl(url: string): boolean;
}

/** The trial's browser context after the loop: its storage, read by `storage` checks. */
export interface StorageProbe {
  /** localStorage (per origin) and cookies of the trial's context. */
  state(): Promise<{
    cookies: { name: string; value: string; domain: string; path: string }[];
    origins: { origin: string; localStorage: { name: string; value: string }[] }[];
  }>;
  /** sessionStorage of an origin, read from a page of the trial that is on it; null when none is. */
  sessionStorage(origin: string): Promise<Record<string, string> | null>;
}

/** Everything a check may look at. Deliberately no conversation, no model output but the answer. */
export interface CheckContext {
  /** The trial's workspace folder (absolute). File checks never read outside it. */
  workspaceDir: string;
  /** The fixture session's effects log, read after the loop ended. */
  effects: Effect[];
  /** The agent's final answer, or null when it never answered. */
  answer: string | null;
  /** Absent when the trial had no browser; a page check then cannot be judged (verdict `error`). */
  page?: PageProbe;
  /** The trial's id (the trial variable TRIAL_ID). */
  trialId?: string;
  /** The task file, which relative module and cwd paths of checks resolve against. */
  taskFile?: string;
  target?: TargetView;
  storage?: StorageProbe;
  /** Where ${env:NAME} in check headers is read (the CLI's environment); values never reach evidence. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Where http and command checks send their requests; absent means the real network and processes. */
  io?: CheckIo;
}

/** How a check knows what it reports: a shared word, see src/vocabulary.ts. */

/** JSON-serialisable evidence: the excerpt read, the effects listed, the page text seen. */
export type Evidence = { [key: string]: unknown };

/** One check's judgement, as stored and reported. */
export interface CheckResult {
  kind: CheckKind | string;
  name: string;
  required: boolean;
  pass: boolean;
  /** A sentence a person can act on, e.g. "notes/BB-042.md names BB-024". */
  reason: string;
  evidence: Evidence;
  confidence: Confidence;
  /** Wall time the check took, in milliseconds. */
  ms: number;
  /**
   * Set when the check could not judge at all (its handler threw: a browser that died, a fixture
   * that stopped answering, a page check without a page). A crashed required check makes the
   * verdict `error`, because the trial was not judged; it says nothing about the agent.
   */
  crashed?: true;
}

/** What a handler decides; the registry adds kind, name, required, confidence and timing. */
export interface Judgement {
  pass: boolean;
  reason: string;
  evidence: Evidence;
}

/** One check kind's implementation. */
export interface Handler<S extends CheckSpec> {
  confidence: Confidence;
  /** The name shown when the spec gives none, e.g. "file notes/BB-042.md". */
  defaultName(spec: S): string;
  /** Judges the spec against the context. Throws only when the check cannot be judged at all. */
  judge(spec: S, ctx: CheckContext): Promise<Judgement>;
}

/** Thrown by a handler when the world could not be looked at (not the agent's fault). */
export class CheckUnjudgeableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CheckUnjudgeableError";
  }
}
