/**
 * Brings a run's files into the report folder: every screenshot once (hard-linked when the
 * report is on the same file system as the run, copied otherwise), each trial's events.jsonl
 * and note files (the final answer is read from the store, not from the log). Missing files are
 * reported as missing (null hrefs), never fatal: a report of a moved run still opens.
 */
import { closeSync, copyFileSync, fstatSync, linkSync, mkdirSync, openSync, readdirSync, readSync } from "node:fs";
import { createHash } from "node:crypto";
import { basename, extname, join, resolve } from "node:path";
import type { TrialRecord } from "../../store/records.js";
import type { NoteFile } from "./view-model.js";
import { TRACE_FILE } from "../../vocabulary.js";

/** Note extensions Chromium shows as text when opened from disk; anything else gets `.txt` appended. */
const TEXT_EXTENSIONS = new Set([".md", ".txt", ".json", ".jsonl", ".log"]);
/** How much of a note the trial page shows inline. */
const NOTE_PREVIEW_BYTES = 64 * 1024;
/** Screenshot files named by their content hash (trial-log.ts) can be shared between trials. */
const HASH_NAME = /^[0-9a-f]{8,64}\.(png|jpe?g|webp)$/i;

export interface FileStats {
  screenshots: number;
  linked: number;
  copied: number;
  missing: number;
}

export interface TrialFiles {
  eventsHref: string | null;
  notes: NoteFile[];
  /** The trial's Playwright trace (`--trace`), when it kept one. */
  traceHref: string | null;
}

const codeOf = (error: unknown) => (error as NodeJS.ErrnoException | null)?.code;

/**
 * Hard-links `from` to `to`, or copies it when a link is not possible (other device, no
 * permission). False when `from` does not exist: no separate existence check per file.
 */
function linkOrCopy(from: string, to: string, stats: FileStats): boolean {
  try {
    linkSync(from, to);
    stats.linked += 1;
    return true;
  } catch (error) {
    if (codeOf(error) === "ENOENT") return false;
  }
  try {
    copyFileSync(from, to);
    stats.copied += 1;
    return true;
  } catch (error) {
    if (codeOf(error) === "ENOENT") return false;
    throw error;
  }
}

function readHead(path: string, bytes: number): { text: string; size: number } {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    const buffer = Buffer.alloc(Math.min(size, bytes));
    readSync(fd, buffer, 0, buffer.length, 0);
    return { text: buffer.toString("utf8"), size };
  } finally {
    closeSync(fd);
  }
}

/** A note's file name in the report: the stored name's safe characters, shown as text by the browser. */
export function reportNoteName(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9._-]/g, "_").replace(/^\.+/, "_") || "note";
  return TEXT_EXTENSIONS.has(extname(safe).toLowerCase()) ? safe : `${safe}.txt`;
}

export class ReportFiles {
  readonly stats: FileStats = { screenshots: 0, linked: 0, copied: 0, missing: 0 };
  /** Source path -> href (null when missing), so a screenshot is placed once. */
  private readonly placed = new Map<string, string | null>();
  /** File names already in screens/. */
  private readonly names = new Set<string>();
  private readonly screensDir: string;

  constructor(
    /** The run folder that stored paths are relative to; null when the run recorded none. */
    private readonly runFolder: string | null,
    private readonly outDir: string,
  ) {
    this.screensDir = join(outDir, "screens");
    mkdirSync(this.screensDir, { recursive: true });
    mkdirSync(join(outDir, "files"), { recursive: true });
  }

  /** Places a screenshot (path as stored: relative to the run folder) once; returns its href or null. */
  screenshot(stored: string): string | null {
    if (!this.runFolder) return null;
    const source = resolve(this.runFolder, stored);
    const known = this.placed.get(source);
    if (known !== undefined) return known;
    const name = HASH_NAME.test(basename(source))
      ? basename(source)
      : `${createHash("sha256").update(source).digest("hex").slice(0, 20)}${extname(source).toLowerCase() || ".png"}`;
    let href: string | null = `screens/${name}`;
    // Content-hash names: the same name is the same picture, already placed by another trial.
    if (!this.names.has(name)) {
      if (linkOrCopy(source, join(this.screensDir, name), this.stats)) {
        this.names.add(name);
        this.stats.screenshots += 1;
      } else {
        href = null;
        this.stats.missing += 1;
      }
    }
    this.placed.set(source, href);
    return href;
  }

  /** Screenshot paths relative to the trial folder (stuck evidence) placed like any other. */
  trialScreenshot(trial: TrialRecord, relative: string): string | null {
    if (!this.runFolder || !trial.folder) return null;
    return this.screenshot(join(trial.folder, relative));
  }

  /** Copies a trial's events.jsonl and notes into `files/<seq>/`. */
  trialFiles(trial: TrialRecord): TrialFiles {
    if (!this.runFolder || !trial.folder) return { eventsHref: null, notes: [], traceHref: null };
    const folder = resolve(this.runFolder, trial.folder);
    const targetDir = join(this.outDir, "files", String(trial.seq));
    mkdirSync(targetDir, { recursive: false });
    const events = join(folder, "events.jsonl");
    const eventsHref = linkOrCopy(events, join(targetDir, "events.jsonl"), this.stats)
      ? `files/${trial.seq}/events.jsonl`
      : null;
    const notes = this.copyNotes(trial.seq, join(folder, "workspace", "notes"), join(targetDir, "notes"));
    // Only trials run with --trace (and, with retain-on-failure, only those that did not pass) have one.
    const trace = join(targetDir, TRACE_FILE);
    const traceHref = linkOrCopy(join(folder, TRACE_FILE), trace, this.stats)
      ? `files/${trial.seq}/${TRACE_FILE}`
      : null;
    return { eventsHref, notes, traceHref };
  }

  private copyNotes(seq: number, from: string, to: string): NoteFile[] {
    let entries;
    try {
      entries = readdirSync(from, { withFileTypes: true });
    } catch {
      return []; // no notes folder: the agent wrote none
    }
    const names = entries
      .filter((e) => e.isFile())
      .map((e) => e.name)
      .sort();
    if (names.length) mkdirSync(to);
    const taken = new Set<string>();
    return names.map((name, i) => {
      const source = join(from, name);
      let target = reportNoteName(name);
      if (taken.has(target)) target = `${i}-${target}`;
      taken.add(target);
      // Copied, not linked: a note is small, and the copy must not change if the workspace does.
      copyFileSync(source, join(to, target));
      const { text, size } = readHead(source, NOTE_PREVIEW_BYTES);
      return { name, href: `files/${seq}/notes/${target}`, text, truncated: size > NOTE_PREVIEW_BYTES, bytes: size };
    });
  }
}
