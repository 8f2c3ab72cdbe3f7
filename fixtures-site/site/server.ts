/**
 * The fixture website (the agent's side): pages, the page script, the in-page actions and the
 * read-only JSON API. Every page belongs to the session named by the `umpire_session` cookie.
 */
import { readFileSync } from "node:fs";
import express, { type NextFunction, type Request, type Response } from "express";
import { pageGeometryScript } from "../../src/browser/page-geometry.js";
import { getMatch, matchSummaryJson } from "../data/matches.js";
import { parseLayoutReport } from "../layout-report.js";
import { MAX_NOTE_BYTES, NoteNameError, writeNote } from "../notes.js";
import { applyCookieChoice, recordEffect, type CookieChoice, type Session, type SessionStore } from "../sessions.js";
import { noSessionPage, PAGE_SCRIPT_PATH, renderShell } from "./html.js";
import { renderHome } from "./pages/home.js";
import { renderMatchMain, renderMatchPage, renderMissingMatch } from "./pages/match.js";
import { renderNativeDialogs } from "./pages/native-dialogs.js";
import { renderNotesPage } from "./pages/notes.js";
import { renderScorecard } from "./pages/scorecard.js";
import { renderSearch } from "./pages/search.js";
import { messageOf } from "../../src/errors.js";

export const SESSION_COOKIE = "umpire_session";

export interface SiteTimings {
  /** slow-save: how long after the write the page acknowledges it (the contract says 8 s). */
  slowSaveMs: number;
  /** lazy: how long the spinner shows before the scorecard loads. */
  lazyMs: number;
  /** cookie-reappear: how long the dialog stays away after the first dismissal. */
  reappearMs: number;
}

export const DEFAULT_TIMINGS: SiteTimings = { slowSaveMs: 8_000, lazyMs: 1_500, reappearMs: 400 };

/** The page script, after umpire's in-page geometry (the same code that resolves marks on any target). */
const PAGE_SCRIPT = `${pageGeometryScript()}\n${readFileSync(new URL("./browser/page.js", import.meta.url), "utf8")}`;

/** The value of one cookie in a Cookie header, without a cookie-parser dependency. */
function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      const raw = part.slice(eq + 1).trim();
      try {
        return decodeURIComponent(raw);
      } catch {
        return raw; // a malformed %-escape is simply not a session id
      }
    }
  }
  return undefined;
}

/** The request's session; set by requireSession. */
function sessionOf(res: Response): Session {
  return res.locals.session as Session;
}

function sendPage(res: Response, status: number, html: string): void {
  res.status(status).set({ "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).send(html);
}

function page(
  res: Response,
  status: number,
  parts: { title: string; main: string; overlays?: string; inert?: boolean },
): void {
  const session = sessionOf(res);
  session.pageLoads += 1;
  sendPage(
    res,
    status,
    renderShell({
      title: parts.title,
      pageNumber: session.pageLoads,
      main: parts.main,
      overlays: parts.overlays,
      mainInert: parts.inert,
    }),
  );
}

function badRequest(res: Response, message: string): void {
  res.status(400).json({ error: message });
}

/** Builds the site's express app over a session store. */
export function createSiteApp(sessions: SessionStore, timings: SiteTimings = DEFAULT_TIMINGS): express.Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);

  // Session-free: the script, the favicon and the read-only API (the same for every session).
  app.get(PAGE_SCRIPT_PATH, (_req, res) => {
    res.set({ "content-type": "text/javascript; charset=utf-8", "cache-control": "no-cache" }).send(PAGE_SCRIPT);
  });
  app.get("/favicon.ico", (_req, res) => {
    res.status(204).end();
  });
  app.get("/api/matches/:id", (req, res) => {
    const match = getMatch(req.params.id);
    if (!match) {
      res.status(404).json({ error: `no match with id ${req.params.id}` });
      return;
    }
    res.json(matchSummaryJson(match));
  });

  const requireSession = (req: Request, res: Response, next: NextFunction) => {
    const secret = cookieValue(req.headers.cookie, SESSION_COOKIE);
    const session = secret ? sessions.bySecret(secret) : undefined;
    if (!session) {
      if (req.method === "GET") sendPage(res, 401, noSessionPage());
      else
        res.status(401).json({
          error: `no live fixture session: send the ${SESSION_COOKIE} cookie of a session created through the control API`,
        });
      return;
    }
    res.locals.session = session;
    next();
  };
  app.use(requireSession);
  const json = express.json({ limit: "1mb" });

  app.get("/", (_req, res) => {
    page(res, 200, { title: "Bat & Ball League", main: renderHome() });
  });

  app.get("/search", (req, res) => {
    const q = typeof req.query.q === "string" ? req.query.q : "";
    page(res, 200, renderSearch(q, sessionOf(res).deletedMatches));
  });

  app.get("/match/:id", (req, res) => {
    const match = getMatch(req.params.id);
    if (!match) {
      page(res, 404, renderMissingMatch(req.params.id));
      return;
    }
    page(res, 200, renderMatchPage(match, sessionOf(res), { lazyMs: timings.lazyMs }));
  });

  // The lazy scenario's scorecard, fetched by the page after its spinner.
  app.get("/__fragment/match/:id", (req, res) => {
    const match = getMatch(req.params.id);
    if (!match) {
      res.status(404).type("text/plain").send(`no match ${req.params.id}`);
      return;
    }
    res.set({ "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).send(renderScorecard(match));
  });

  app.get("/dialogs", (_req, res) => {
    page(res, 200, renderNativeDialogs());
  });

  app.get("/notes", (req, res) => {
    const match = typeof req.query.match === "string" ? req.query.match : undefined;
    page(res, 200, renderNotesPage(match, sessionOf(res)));
  });

  app.post("/__layout", json, (req, res) => {
    const session = sessionOf(res);
    let report;
    try {
      report = parseLayoutReport(req.body, new Date());
    } catch (error) {
      badRequest(res, messageOf(error));
      return;
    }
    // A report older than the stored one (a late post from a page already left) is ignored.
    if (!session.layout || report.seq >= session.layout.seq) session.layout = report;
    res.status(204).end();
  });

  app.post("/__notes", json, async (req, res) => {
    const session = sessionOf(res);
    const { name, body, match } = (req.body ?? {}) as Record<string, unknown>;
    if (typeof name !== "string" || typeof body !== "string") {
      badRequest(res, "expected JSON {name: string, body: string, match?: string}");
      return;
    }
    if (Buffer.byteLength(body) > MAX_NOTE_BYTES) {
      badRequest(res, `note body is larger than ${MAX_NOTE_BYTES} bytes`);
      return;
    }
    let saved;
    try {
      saved = await writeNote(session.workspace, name, body);
    } catch (error) {
      if (error instanceof NoteNameError) {
        badRequest(res, error.message);
        return;
      }
      throw error;
    }
    const detail: Record<string, unknown> = { name: saved.name };
    if (typeof match === "string" && match) detail.match = match;
    if (saved.overwritten) recordEffect(session, "note_overwritten", detail);
    recordEffect(session, "note_saved", detail);
    const ackDelayMs = session.scenario === "slow-save" ? timings.slowSaveMs : 0;
    res.json({ name: saved.name, path: saved.path, overwritten: saved.overwritten, ackDelayMs });
  });

  app.post("/__delete", json, (req, res) => {
    const session = sessionOf(res);
    const id = (req.body as Record<string, unknown> | undefined)?.id;
    const match = typeof id === "string" ? getMatch(id) : undefined;
    if (!match) {
      res.status(404).json({ error: `no match with id ${String(id)}` });
      return;
    }
    if (!session.deletedMatches.has(match.id)) {
      session.deletedMatches.add(match.id);
      recordEffect(session, "match_deleted", { id: match.id });
    }
    res.json({ deleted: match.id, mainHtml: renderMatchMain(match, session, { lazyMs: timings.lazyMs }) });
  });

  app.post("/__cookie", json, (req, res) => {
    const choice = (req.body as Record<string, unknown> | undefined)?.choice;
    if (choice !== "reject" && choice !== "accept" && choice !== "escape") {
      badRequest(res, "expected JSON {choice: 'reject' | 'accept' | 'escape'}");
      return;
    }
    const outcome = applyCookieChoice(sessionOf(res), choice as CookieChoice);
    res.json({ ...outcome, reappearMs: timings.reappearMs });
  });

  app.use((_req, res) => {
    page(res, 404, {
      title: "Not found · Bat & Ball League",
      main: `<a class="back" data-mark="back-home" href="/">← Home</a><h1>Page not found</h1>`,
    });
  });

  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    // body-parser errors carry their own 4xx status (bad JSON, too large).
    const status = (error as { status?: number }).status;
    const code = typeof status === "number" && status >= 400 && status < 500 ? status : 500;
    res.status(code).json({ error: `fixture site: ${messageOf(error)}` });
  });

  return app;
}
