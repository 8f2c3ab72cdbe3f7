/**
 * The control API, on its own port (its own origin): sessions, reset, effects, notes and the
 * latest layout report. Only the harness may use it: every request needs the control token,
 * and anything that looks like a browser request (Origin or Sec-Fetch-Site) is refused.
 */
import { timingSafeEqual } from "node:crypto";
import express, { type NextFunction, type Request, type Response } from "express";
import { CONTROL_TOKEN_HEADER } from "../client.js";
import { clearNotes, listNotes } from "../notes.js";
import { isEffectType, FIXTURE_EFFECT_TYPES } from "../scenarios.js";
import {
  recordEffect,
  SessionConflictError,
  sessionInfo,
  SessionInputError,
  type CreateSessionInput,
  type Session,
  type SessionStore,
} from "../sessions.js";
import { SESSION_COOKIE } from "../site/server.js";
import { messageOf } from "../../src/errors.js";

function tokenMatches(given: string | undefined, expected: Buffer): boolean {
  if (!given) return false;
  const actual = Buffer.from(given);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** Builds the control API's express app. */
export function createControlApp(sessions: SessionStore, token: string): express.Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  const expected = Buffer.from(token);

  // Browser-shaped requests first: a page must not even learn whether its token guess was right.
  app.use((req: Request, res: Response, next: NextFunction) => {
    if (req.headers.origin !== undefined || req.headers["sec-fetch-site"] !== undefined) {
      res
        .status(403)
        .json({ error: "the control API refuses browser requests (Origin or Sec-Fetch-Site header present)" });
      return;
    }
    const given = req.headers[CONTROL_TOKEN_HEADER];
    if (!tokenMatches(typeof given === "string" ? given : undefined, expected)) {
      res.status(401).json({ error: `missing or wrong ${CONTROL_TOKEN_HEADER} header` });
      return;
    }
    next();
  });
  app.use(express.json({ limit: "1mb" }));

  const withSession =
    (handler: (session: Session, req: Request, res: Response) => unknown) => async (req: Request, res: Response) => {
      const id = String(req.params.id);
      const session = sessions.get(id);
      if (!session) {
        res.status(404).json({ error: `no session '${id}'` });
        return;
      }
      await handler(session, req, res);
    };

  app.get("/sessions", (_req, res) => {
    res.json(sessions.list().map((s) => ({ id: s.id, scenario: s.scenario, createdAt: s.createdAt })));
  });

  app.post("/sessions", (req, res) => {
    const body = (req.body ?? {}) as CreateSessionInput;
    try {
      const session = sessions.create({
        id: body.id,
        scenario: body.scenario,
        workspace: body.workspace,
        seed: body.seed,
      });
      res.status(201).json({ id: session.id, cookie: { name: SESSION_COOKIE, value: session.secret } });
    } catch (error) {
      if (error instanceof SessionInputError) res.status(400).json({ error: error.message });
      else if (error instanceof SessionConflictError) res.status(409).json({ error: error.message });
      else throw error;
    }
  });

  app.get(
    "/sessions/:id",
    withSession((session, _req, res) => res.json(sessionInfo(session))),
  );

  app.post(
    "/sessions/:id/reset",
    withSession(async (session, req, res) => {
      const scenario = (req.body as Record<string, unknown> | undefined)?.scenario;
      try {
        sessions.reset(session, typeof scenario === "string" ? scenario : undefined);
      } catch (error) {
        if (error instanceof SessionInputError) {
          res.status(400).json({ error: error.message });
          return;
        }
        throw error;
      }
      await clearNotes(session.workspace);
      res.json(sessionInfo(session));
    }),
  );

  app.delete("/sessions/:id", (req, res) => {
    const id = String(req.params.id);
    if (!sessions.delete(id)) {
      res.status(404).json({ error: `no session '${id}'` });
      return;
    }
    res.status(204).end();
  });

  app.get(
    "/sessions/:id/effects",
    withSession((session, _req, res) => res.json(session.effects)),
  );

  app.post(
    "/sessions/:id/effects",
    withSession((session, req, res) => {
      const { type, detail } = (req.body ?? {}) as Record<string, unknown>;
      if (!isEffectType(type)) {
        res.status(400).json({ error: `type: expected one of ${FIXTURE_EFFECT_TYPES.join(", ")}` });
        return;
      }
      if (detail !== undefined && (typeof detail !== "object" || detail === null || Array.isArray(detail))) {
        res.status(400).json({ error: "detail: expected an object, e.g. {name: 'BB-042.md', via: 'write_note'}" });
        return;
      }
      res.status(201).json(recordEffect(session, type, (detail ?? {}) as Record<string, unknown>));
    }),
  );

  app.get(
    "/sessions/:id/notes",
    withSession(async (session, _req, res) => res.json(await listNotes(session.workspace))),
  );

  app.get(
    "/sessions/:id/layout",
    withSession((session, _req, res) => res.json(session.layout)),
  );

  app.use((req, res) => {
    res.status(404).json({ error: `no control endpoint ${req.method} ${req.path}` });
  });

  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    // body-parser errors carry their own 4xx status (bad JSON, too large).
    const status = (error as { status?: number }).status;
    const code = typeof status === "number" && status >= 400 && status < 500 ? status : 500;
    res.status(code).json({ error: `fixture control: ${messageOf(error)}` });
  });

  return app;
}
