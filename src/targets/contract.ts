/**
 * The target contract: what the runner needs from the web app under test, whatever it is. The
 * fixture site is one implementation (fixture-target.ts), a declared app another (web-target.ts).
 * docs/ARCHITECTURE.md ("Target contract") describes it.
 */
import type { Task } from "../task/schema.js";
import type { DialogPolicy } from "../task/target-decl.js";
import type { Effect } from "../checks/types.js";
import type { MarkSpec } from "./marks.js";
import type { TrialVars } from "../task/trial-vars.js";
import type { PoolReport } from "./instance-pool.js";

export interface TrialTarget {
  trialId: string;
  workspaceDir: string;
  task: Task;
  /** The trial's repeat number (from 1); a target that seeds episodes derives the seed from it (replayable). */
  repeat?: number;
}

export interface TargetCookie {
  name: string;
  value: string;
  domain: string;
  path: string;
  expires?: number;
  httpOnly?: boolean;
  secure?: boolean;
  sameSite?: "Strict" | "Lax" | "None";
}

/** Storage items for one origin. */
export interface OriginStorage {
  origin: string;
  items: Record<string, string>;
}

/**
 * What a trial's browser context starts with so the target knows the trial (its session cookie, a
 * tenant header, storage seeds): the target's `context:` declaration with the trial variables filled in.
 */
export interface TrialBrowserSeed {
  /** How long the target's reset took (ms), stored with the trial. */
  resetMs?: number;
  cookies: TargetCookie[];
  headers?: Record<string, string>;
  localStorage?: OriginStorage[];
  sessionStorage?: OriginStorage[];
  /** Scripts run in every document of the trial before the page's own (a benchmark's episode capture). */
  initScripts?: string[];
  /** What the target decided for this trial (e.g. `{seed}`): said in the trial log and stored with the trial. */
  facts?: Record<string, unknown>;
}

/** The trial variables (src/task/trial-vars.ts) of one trial on a target. */
export function trialVarsOf(
  target: Pick<Target, "baseUrl" | "vars">,
  trial: { trialId: string; workspaceDir: string },
): TrialVars {
  const own = { PORT: new URL(target.baseUrl).port, INSTANCE: "0", ...target.vars };
  return { ...own, TRIAL_ID: trial.trialId, WORKSPACE: trial.workspaceDir, TARGET_URL: target.baseUrl };
}

/** One instance of a pooled target, lent to one trial (and its retries) until released. */
export interface InstanceLease {
  /** The target as this instance is: its base URL, origins, reset, effects. */
  target: Target;
  instance: number;
  /** How long the trial waited for a free instance. */
  waitedMs: number;
  /** The trial starts playing (it got its run slot); the returned function says it stopped. For the pool's "peak at once". */
  playing?(): () => void;
  release(): void;
}

/** A per-trial reset or session that failed: the trial ends as `environment_error`, never the agent's fault. */
export class TargetResetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TargetResetError";
  }
}

export interface Target {
  readonly name: string;
  /** Where the browsers reach the app, without a trailing slash. */
  readonly baseUrl: string;
  /** Origins the agent's browser may reach when a task allows "target" (the base URL's and the declared ones). */
  readonly origins: readonly string[];
  /** false: trials share the app's state, so the scheduler runs this target's trials one at a time. */
  readonly isolated: boolean;
  /** Most trials at once (undefined: no limit of its own). */
  readonly capacity?: number;
  /** Whether effects checks can be judged on this target. */
  readonly hasEffects: boolean;
  /** Where the effects log is read, as results name it (e.g. "target stock's effects source GET http://…/effects"); null without one. */
  readonly effectsSource: string | null;
  /** The same for one trial: the URL as it was requested (its TRIAL_ID filled in), not its template. */
  effectsSourceFor?(trialId: string): string | null;
  /** True for the fixture site (its pages report their own layout; its vocabulary applies). */
  readonly fixture: boolean;
  /** Who answers native dialogs on this target unless the task says (undefined: the agent). */
  readonly dialogs?: DialogPolicy;
  /** The target's own trial variables (PORT, INSTANCE, INSTANCE_DIR of the instance), for checks and start paths. */
  readonly vars?: TrialVars;
  /** A target run on a pool of instances: lends one to a trial, waiting while every instance is taken. */
  lease?(signal: AbortSignal): Promise<InstanceLease>;
  /** Why the instance became unusable during the trial (its process died), else null: the trial is then `error`. */
  instanceFault?(trialId: string): string | null;
  /** What the pool did, for the run summary. */
  poolReport?(): PoolReport;
  /** Prepares the app for one trial (fixture session, or the declared reset) and says what the trial's browser context starts with. Throws TargetResetError. */
  prepareTrial(trial: TrialTarget): Promise<TrialBrowserSeed>;
  /** The trial's effects log; [] when the target has none. */
  effects(trialId: string): Promise<Effect[]>;
  /** Records an effect of the harness's own tools (write_note); a no-op where the target keeps no log. */
  recordEffect(trialId: string, type: "note_saved" | "note_overwritten", detail: Record<string, string>): Promise<void>;
  /** Frees what prepareTrial made. Never throws. */
  endTrial(trialId: string): Promise<void>;
  /** The marks the runner resolves in the page for this task; null when the pages report their own layout (the fixture). */
  markSpec(task: Task): MarkSpec | null;
  /** Stops what the target started for the run. */
  close(): Promise<void>;
  /** The app's version as its declared `version` source gives it (stored with the run's environment); absent without one. */
  version?(): Promise<string>;
}

/** The origin strings a task may reach on its target ("target", "fixture" or explicit origins). */
export function originsForTask(task: Task, target: Target, fixtureSiteUrl?: string): Set<string> {
  const out = new Set<string>();
  for (const entry of task.permissions.allowedOrigins) {
    if (entry === "target") target.origins.forEach((o) => out.add(o));
    else if (entry === "fixture") {
      const url = fixtureSiteUrl ?? (target.fixture ? target.baseUrl : undefined);
      if (url) out.add(new URL(url).origin);
    } else {
      try {
        out.add(new URL(entry).origin);
      } catch {
        // the sandbox branch validates allowedOrigins at load time; an unparsable one allows nothing
      }
    }
  }
  return out;
}
