/**
 * Per-trial fixture sessions: everything a session can change lives here, in memory, keyed by
 * session id. Creating one is a Map insert, so hundreds can exist side by side.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { isAbsolute } from "node:path";
import type { LayoutReport } from "./layout-report.js";
import {
  cookieVariantOf,
  isScenario,
  FIXTURE_SCENARIOS,
  type CookieVariant,
  type FixtureEffectType,
  type FixtureScenario,
} from "./scenarios.js";

export interface Effect {
  type: FixtureEffectType;
  /** ISO time the effect happened. */
  at: string;
  detail: Record<string, unknown>;
}

export type CookieChoice = "reject" | "accept" | "escape";

export interface CookieState {
  open: boolean;
  /** Dismissals that closed (or, in cookie-reappear, first hid) the dialog. */
  dismissals: number;
}

export interface Session {
  readonly id: string;
  /**
   * The session's cookie value: 32 random bytes, never the id. The id is the trial's (predictable,
   * printed, in folder names); a browser that could name another trial's session by its id could
   * delete its match and overwrite its note. Only the control API hands it out.
   */
  readonly secret: string;
  scenario: FixtureScenario;
  readonly workspace: string;
  readonly seed: number;
  readonly createdAt: string;
  effects: Effect[];
  deletedMatches: Set<string>;
  cookie: CookieState;
  layout: LayoutReport | null;
  /** Page loads so far; each page's layout seq starts above the previous page's. */
  pageLoads: number;
}

/** What the control API returns about a session. */
export interface SessionInfo {
  id: string;
  scenario: FixtureScenario;
  workspace: string;
  seed: number;
  createdAt: string;
  cookie: CookieState;
  deletedMatches: string[];
  effectCount: number;
  pageLoads: number;
}

export interface CreateSessionInput {
  id?: string;
  scenario?: string;
  workspace?: string;
  seed?: number;
}

/** A bad request to the session store; the message names the field and the fix. */
export class SessionInputError extends Error {}
export class SessionConflictError extends Error {}

/** Cookie-safe (RFC 6265) and path-safe: the id is both a cookie value and a URL segment. */
const SESSION_ID = /^[A-Za-z0-9._~:@+-]{1,200}$/;

function freshCookie(scenario: FixtureScenario): CookieState {
  return { open: cookieVariantOf(scenario) !== null, dismissals: 0 };
}

export class SessionStore {
  private readonly sessions = new Map<string, Session>();

  /** Validates and inserts a session; throws SessionInputError / SessionConflictError. */
  create(input: CreateSessionInput): Session {
    const scenario = input.scenario ?? "plain";
    if (!isScenario(scenario)) {
      throw new SessionInputError(`scenario: '${String(scenario)}' is not one of ${FIXTURE_SCENARIOS.join(", ")}`);
    }
    if (typeof input.workspace !== "string" || !isAbsolute(input.workspace)) {
      throw new SessionInputError(
        "workspace: required, an absolute path to the trial's workspace folder (notes go to <workspace>/notes/)",
      );
    }
    if (input.seed !== undefined && !Number.isInteger(input.seed))
      throw new SessionInputError("seed: expected an integer");
    const id = input.id ?? randomUUID();
    if (typeof id !== "string" || !SESSION_ID.test(id)) {
      throw new SessionInputError(
        `id: '${String(id)}' is not a usable session id; use 1-200 of A-Z a-z 0-9 . _ ~ : @ + -`,
      );
    }
    if (this.sessions.has(id))
      throw new SessionConflictError(`session '${id}' already exists; delete it first or use another id`);
    const session: Session = {
      id,
      secret: randomBytes(32).toString("base64url"),
      scenario,
      workspace: input.workspace,
      seed: input.seed ?? 1,
      createdAt: new Date().toISOString(),
      effects: [],
      deletedMatches: new Set(),
      cookie: freshCookie(scenario),
      layout: null,
      pageLoads: 0,
    };
    this.sessions.set(id, session);
    return session;
  }

  get(id: string): Session | undefined {
    return this.sessions.get(id);
  }

  /** The session whose cookie value is `secret` (what the site knows a browser by). */
  bySecret(secret: string): Session | undefined {
    for (const session of this.sessions.values()) if (session.secret === secret) return session;
    return undefined;
  }

  delete(id: string): boolean {
    return this.sessions.delete(id);
  }

  list(): Session[] {
    return [...this.sessions.values()];
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Back to the state of a fresh session (optionally in another scenario); notes are handled by the caller. */
  reset(session: Session, scenario?: string): void {
    if (scenario !== undefined) {
      if (!isScenario(scenario))
        throw new SessionInputError(`scenario: '${scenario}' is not one of ${FIXTURE_SCENARIOS.join(", ")}`);
      session.scenario = scenario;
    }
    session.effects = [];
    session.deletedMatches = new Set();
    session.cookie = freshCookie(session.scenario);
    session.layout = null;
  }
}

/** Appends an effect with the current time. */
export function recordEffect(session: Session, type: FixtureEffectType, detail: Record<string, unknown>): Effect {
  const effect: Effect = { type, at: new Date().toISOString(), detail };
  session.effects.push(effect);
  return effect;
}

export function sessionInfo(session: Session): SessionInfo {
  return {
    id: session.id,
    scenario: session.scenario,
    workspace: session.workspace,
    seed: session.seed,
    createdAt: session.createdAt,
    cookie: { ...session.cookie },
    deletedMatches: [...session.deletedMatches].sort(),
    effectCount: session.effects.length,
    pageLoads: session.pageLoads,
  };
}

export interface CookieOutcome {
  /** Whether the dialog is (still, or again) open. */
  open: boolean;
  /** cookie-reappear's first dismissal: hide now, show again shortly. */
  reappear: boolean;
  /** Whether the choice changed anything (and was recorded as an effect). */
  accepted: boolean;
}

function choiceCloses(variant: CookieVariant, choice: CookieChoice): boolean {
  if (variant === "escape") return true;
  if (variant === "reject") return choice === "reject";
  return choice !== "escape";
}

/**
 * Applies a cookie-dialog choice under the session's variant: cookie-escape closes on anything,
 * cookie-reject only on "Reject all", cookie-reappear on a click but comes back once.
 */
export function applyCookieChoice(session: Session, choice: CookieChoice): CookieOutcome {
  const variant = cookieVariantOf(session.scenario);
  if (!variant || !session.cookie.open || !choiceCloses(variant, choice)) {
    return { open: session.cookie.open, reappear: false, accepted: false };
  }
  session.cookie.dismissals += 1;
  recordEffect(session, "cookie_choice", { choice });
  const reappear = variant === "reappear" && session.cookie.dismissals === 1;
  session.cookie.open = reappear;
  return { open: session.cookie.open, reappear, accepted: true };
}
