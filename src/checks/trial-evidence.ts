/**
 * The end state a trial's checks read, kept in the trial's folder (`evidence.json`) so that
 * `umpire rejudge` can run today's checks on it without the browser, the app or a model turn:
 * the pages' DOM (with their URL), browser storage, the effects log, the http checks' responses
 * and the command checks' output. Workspace files stay where the trial left them (`workspace/`).
 *
 * Bounded: each text is capped (a capped one is marked, and a re-judgement on it says so), and
 * secrets are scrubbed with the harness's registry (src/safety/secrets.ts) before it is written.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { scrubDeep } from "../safety/secrets.js";
import type { Effect, EpisodeRecord } from "./types.js";
import type { CommandOutcome } from "./run-command.js";

/** Bumped when a field changes meaning; a newer file is refused by name. */
export const EVIDENCE_VERSION = 1;
export const EVIDENCE_FILE = "evidence.json";

/** Caps per stored text: a page's HTML, an http body, a command's output. */
export const EVIDENCE_CAPS = { html: 1_000_000, body: 256_000, output: 256_000 } as const;

/** Response headers never kept (they carry credentials or session identity). */
export const DROPPED_HEADERS = new Set([
  "set-cookie",
  "authorization",
  "proxy-authorization",
  "cookie",
  "www-authenticate",
]);

export interface PageEvidence {
  url: string;
  /** The DOM as serialised when judged: scripts removed, stylesheets inlined, form values kept. */
  html: string;
  /** Whether the page was on the task's origins (only such pages can pass a page check). */
  taskPage: boolean;
  truncated: boolean;
}

export interface HttpEvidence {
  status: number;
  headers: Record<string, string>;
  body: string;
  truncated: boolean;
}

export type CommandEvidence = CommandOutcome & { truncated: boolean };

export interface StorageStateEvidence {
  cookies: { name: string; value: string; domain: string; path: string }[];
  origins: { origin: string; localStorage: { name: string; value: string }[] }[];
}

export interface TrialEvidence {
  version: number;
  recordedAt: string;
  target: { name: string; baseUrl: string; effectsSource: string | null };
  viewport: { width: number; height: number; deviceScaleFactor: number };
  answer: string | null;
  /** null when the trial did not read the effects log (no check or rule needed it). */
  effects: Effect[] | null;
  /** By page key (`pageKey` in page-check.ts): "current", "open /path". */
  pages: Record<string, PageEvidence>;
  storage: { state: StorageStateEvidence | null; sessionStorage: Record<string, Record<string, string> | null> };
  /** By request key (`requestKey`). */
  http: Record<string, HttpEvidence>;
  /** By command key (`commandKey`). */
  commands: Record<string, CommandEvidence>;
  /** The episode capture's record, when an episode check read it. */
  episode?: EpisodeRecord | null;
}

/** The identity of an http request: method, URL and (hashed, never kept) body. */
export function requestKey(method: string, url: string, bodyHash: string | null): string {
  return `${method.toUpperCase()} ${url}${bodyHash ? ` body:${bodyHash}` : ""}`;
}

/** The identity of a command: what runs and where. */
export function commandKey(command: string | readonly string[], cwd: string): string {
  return `${JSON.stringify(command)} in ${cwd}`;
}

/** `text` cut to `max` characters, and whether it was cut. */
export function capped(text: string, max: number): { text: string; truncated: boolean } {
  return text.length <= max ? { text, truncated: false } : { text: text.slice(0, max), truncated: true };
}

export function writeTrialEvidence(folder: string, evidence: TrialEvidence): void {
  writeFileSync(join(folder, EVIDENCE_FILE), JSON.stringify(scrubDeep(evidence)));
}

/** The stored evidence of the trial in `folder`; null when there is none (an older umpire, or no end state). */
export function readTrialEvidence(folder: string): TrialEvidence | null {
  const file = join(folder, EVIDENCE_FILE);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return null;
  }
  const parsed = JSON.parse(text) as TrialEvidence;
  if (typeof parsed.version !== "number" || parsed.version > EVIDENCE_VERSION) {
    throw new Error(
      `${file} has evidence version ${String(parsed.version)}; this umpire reads up to ${EVIDENCE_VERSION}`,
    );
  }
  return parsed;
}
