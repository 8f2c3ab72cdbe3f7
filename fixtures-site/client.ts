/**
 * FixtureControlClient: the harness's (and the reference model's) handle on the fixture
 * site's control API. Uses the global fetch; every non-2xx answer becomes a
 * FixtureControlError that names the endpoint and carries the server's message.
 */
import type { Box } from "../src/browser/page-geometry.js";
import type { LayoutMark, LayoutReport } from "./layout-report.js";
import type { NoteFile } from "./notes.js";
import type { FixtureEffectType, FixtureScenario } from "./scenarios.js";
import type { CookieState, Effect, SessionInfo } from "./sessions.js";
import { messageOf } from "../src/errors.js";

export type {
  Box,
  CookieState,
  Effect,
  FixtureEffectType,
  FixtureScenario,
  LayoutMark,
  LayoutReport,
  NoteFile,
  SessionInfo,
};

/** The header that carries the control token on every request. */
export const CONTROL_TOKEN_HEADER = "x-umpire-control";

export interface CreateSessionOptions {
  /** The session id; the runner passes the trial id. Default: a random UUID. */
  id?: string;
  scenario: FixtureScenario;
  /** Absolute path of the trial's workspace; notes are written to <workspace>/notes/. */
  workspace: string;
  seed?: number;
}

export interface CreatedSession {
  id: string;
  /** The cookie to add to the trial's browser context for the site origin. */
  cookie: { name: string; value: string };
}

export interface SessionSummary {
  id: string;
  scenario: FixtureScenario;
  createdAt: string;
}

export class FixtureControlError extends Error {
  constructor(
    /** e.g. "POST /sessions". */
    readonly endpoint: string,
    /** HTTP status, or 0 when the control API could not be reached. */
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = "FixtureControlError";
  }
}

export class FixtureControlClient {
  readonly controlUrl: string;

  /**
   * @param controlUrl the control API's base URL, e.g. http://127.0.0.1:41234
   * @param token the control token printed by serve-fixtures / returned by startFixtureSite
   */
  constructor(
    controlUrl: string,
    private readonly token: string,
  ) {
    this.controlUrl = controlUrl.replace(/\/+$/, "");
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const endpoint = `${method} ${path}`;
    let res: globalThis.Response;
    try {
      res = await fetch(this.controlUrl + path, {
        method,
        headers: {
          [CONTROL_TOKEN_HEADER]: this.token,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      throw new FixtureControlError(
        endpoint,
        0,
        `fixture control ${endpoint} at ${this.controlUrl}: cannot connect (${messageOf(error)}); is the fixture site running?`,
      );
    }
    const text = await res.text();
    if (!res.ok) {
      let reason = text;
      try {
        reason = (JSON.parse(text) as { error?: string }).error ?? text;
      } catch {
        // not JSON: keep the raw text
      }
      throw new FixtureControlError(
        endpoint,
        res.status,
        `fixture control ${endpoint} failed with HTTP ${res.status}: ${reason || res.statusText}`,
      );
    }
    return (text ? JSON.parse(text) : undefined) as T;
  }

  private static path(id: string, rest = ""): string {
    return `/sessions/${encodeURIComponent(id)}${rest}`;
  }

  /** Creates a session; add the returned cookie to the browser context. */
  createSession(options: CreateSessionOptions): Promise<CreatedSession> {
    return this.call("POST", "/sessions", options);
  }

  listSessions(): Promise<SessionSummary[]> {
    return this.call("GET", "/sessions");
  }

  getSession(id: string): Promise<SessionInfo> {
    return this.call("GET", FixtureControlClient.path(id));
  }

  /** Back to a fresh state (effects, dialogs, deletions, layout cleared; notes folder emptied). */
  reset(id: string, options: { scenario?: FixtureScenario } = {}): Promise<SessionInfo> {
    return this.call("POST", FixtureControlClient.path(id, "/reset"), options);
  }

  /** Frees the session; its notes stay on disk. */
  async deleteSession(id: string): Promise<void> {
    await this.call("DELETE", FixtureControlClient.path(id));
  }

  effects(id: string): Promise<Effect[]> {
    return this.call("GET", FixtureControlClient.path(id, "/effects"));
  }

  /** Records an effect of the harness's own tools, e.g. write_note with detail {name, via: "write_note"}. */
  recordEffect(id: string, type: FixtureEffectType, detail: Record<string, unknown> = {}): Promise<Effect> {
    return this.call("POST", FixtureControlClient.path(id, "/effects"), { type, detail });
  }

  notes(id: string): Promise<NoteFile[]> {
    return this.call("GET", FixtureControlClient.path(id, "/notes"));
  }

  /** The latest layout report of the session's page, or null before any page reported. */
  layout(id: string): Promise<LayoutReport | null> {
    return this.call("GET", FixtureControlClient.path(id, "/layout"));
  }
}
