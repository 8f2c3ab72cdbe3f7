/**
 * Records what a trial's checks read while they read it: wraps the check context's page probe,
 * storage probe and io (http, commands) so each answer is kept as `TrialEvidence`
 * (trial-evidence.ts), which `umpire rejudge` replays (evidence-replay.ts). The checks themselves
 * run exactly as before: recording never changes a judgement, and a failure to record is silent.
 */
import { createHash } from "node:crypto";
import type { Page } from "playwright";
import { runCommand } from "./run-command.js";
import {
  capped,
  commandKey,
  DROPPED_HEADERS,
  EVIDENCE_CAPS,
  EVIDENCE_VERSION,
  requestKey,
  type TrialEvidence,
} from "./trial-evidence.js";
import type { CheckContext, CheckIo } from "./types.js";

/**
 * The page's DOM as a self-contained document: scripts (and noscript) removed, so a replay shows the
 * end state rather than what the app's code would make of it again; readable stylesheets inlined,
 * so visibility is judged with the same CSS; form values written into attributes.
 */
export async function snapshotHtml(page: Page): Promise<string> {
  return page.evaluate(() => {
    const live = document.documentElement;
    const root = live.cloneNode(true) as HTMLElement;
    const fields = live.querySelectorAll("input, textarea, select");
    const copies = root.querySelectorAll("input, textarea, select");
    fields.forEach((field, i) => {
      const copy = copies[i];
      if (!copy) return;
      if (field instanceof HTMLInputElement) {
        copy.setAttribute("value", field.value);
        if (field.checked) copy.setAttribute("checked", "");
        else copy.removeAttribute("checked");
      } else if (field instanceof HTMLTextAreaElement) copy.textContent = field.value;
    });
    const css = Array.from(document.styleSheets)
      .map((sheet) => {
        try {
          return Array.from(sheet.cssRules)
            .map((r) => r.cssText)
            .join("\n");
        } catch {
          return ""; // a cross-origin sheet cannot be read
        }
      })
      .join("\n");
    root.querySelectorAll('script, noscript, link[rel~="stylesheet"], style').forEach((n) => n.remove());
    const style = document.createElement("style");
    style.textContent = css;
    (root.querySelector("head") ?? root).prepend(style);
    return `<!DOCTYPE html>${root.outerHTML}`;
  });
}

export interface EvidenceRecorder {
  /** The context to run the checks with. */
  ctx: CheckContext;
  /** Keeps the answer and effects, and the trial's page if no check looked at it. */
  finish(extra: { effects: TrialEvidence["effects"] }): Promise<TrialEvidence>;
}

function headersOf(response: Response): Record<string, string> {
  const kept: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!DROPPED_HEADERS.has(name.toLowerCase())) kept[name] = value;
  });
  return kept;
}

function recordingIo(evidence: TrialEvidence): CheckIo {
  return {
    async fetch(url, init) {
      const response = await fetch(url, init);
      const body = await response.text();
      const kept = capped(body, EVIDENCE_CAPS.body);
      const hash =
        typeof init.body === "string" ? createHash("sha256").update(init.body).digest("hex").slice(0, 16) : null;
      evidence.http[requestKey(init.method, url, hash)] = {
        status: response.status,
        headers: headersOf(response),
        body: kept.text,
        truncated: kept.truncated,
      };
      // The body was consumed: hand the check an identical response.
      return new Response(body, { status: response.status, headers: response.headers });
    },
    async runCommand(command, options) {
      const outcome = await runCommand(command, options);
      const stdout = capped(outcome.stdout, EVIDENCE_CAPS.output);
      const stderr = capped(outcome.stderr, EVIDENCE_CAPS.output);
      evidence.commands[commandKey(command, options.cwd)] = {
        ...outcome,
        stdout: stdout.text,
        stderr: stderr.text,
        truncated: stdout.truncated || stderr.truncated,
      };
      return outcome;
    },
  };
}

/** Longest a page's DOM is waited for: a page whose script hangs must not hold up the trial's end. */
const SNAPSHOT_TIMEOUT_MS = 5_000;

async function keepPage(
  evidence: TrialEvidence,
  key: string,
  page: Page,
  isTaskPage: (url: string) => boolean,
): Promise<void> {
  const url = page.url();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("the page's DOM was not read in time")), SNAPSHOT_TIMEOUT_MS);
  });
  const dom = await Promise.race([snapshotHtml(page), late]).finally(() => clearTimeout(timer));
  const html = capped(dom, EVIDENCE_CAPS.html);
  evidence.pages[key] = { url, html: html.text, taskPage: isTaskPage(url), truncated: html.truncated };
}

/**
 * Wraps `ctx` so what its checks read is recorded. `viewport` is the trial's (a replay lays the
 * page out at the same size); `effectsSource` names where the effects log came from.
 */
export function recordEvidence(
  ctx: CheckContext,
  about: {
    viewport: TrialEvidence["viewport"];
    effectsSource: string | null;
    /** The trial's page as left, kept when no check looked at it (never a fresh load: that would ask the app again). */
    lastPage?: () => Page | undefined;
  },
): EvidenceRecorder {
  const evidence: TrialEvidence = {
    version: EVIDENCE_VERSION,
    recordedAt: new Date().toISOString(),
    target: { name: ctx.target?.name ?? "", baseUrl: ctx.target?.baseUrl ?? "", effectsSource: about.effectsSource },
    viewport: about.viewport,
    answer: ctx.answer,
    effects: null,
    pages: {},
    storage: { state: null, sessionStorage: {} },
    http: {},
    commands: {},
  };
  const probe = ctx.page;
  const storage = ctx.storage;
  const recorded: CheckContext = {
    ...ctx,
    io: recordingIo(evidence),
    ...(probe
      ? {
          page: {
            ...probe,
            judged: (key: string, page: Page) => keepPage(evidence, key, page, (url) => probe.isTaskPage(url)),
            ...(probe.episode
              ? {
                  episode: async () => {
                    const record = (await probe.episode?.()) ?? null;
                    evidence.episode = record;
                    return record;
                  },
                }
              : {}),
          },
        }
      : {}),
    ...(storage
      ? {
          storage: {
            async state() {
              const state = await storage.state();
              evidence.storage.state = state;
              return state;
            },
            async sessionStorage(origin: string) {
              const items = await storage.sessionStorage(origin);
              evidence.storage.sessionStorage[origin] = items;
              return items;
            },
          },
        }
      : {}),
  };
  return {
    ctx: recorded,
    async finish(extra) {
      evidence.effects = extra.effects;
      // The page as the trial left it, so a page check added later can be re-judged too.
      const last = about.lastPage?.();
      if (probe && last && !last.isClosed() && !evidence.pages.current) {
        try {
          await keepPage(evidence, "current", last, (url) => probe.isTaskPage(url));
        } catch {
          // The browser is gone: nothing to keep.
        }
      }
      if (storage && evidence.storage.state === null) evidence.storage.state = await storage.state().catch(() => null);
      return evidence;
    },
  };
}
