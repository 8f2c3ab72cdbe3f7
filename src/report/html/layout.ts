/**
 * Where everything lives inside a report folder, and the links between its pages. Every href
 * is relative, so the folder can be moved, zipped or opened from disk (file://).
 *
 *   index.html            overview: summary, tasks x agent configs, the trials table
 *   compare.html          side by side: two trials aligned by turn (?a=<seq>&b=<seq>)
 *   trials/<seq>.html     one trial: header, checks, notes, the timeline of turns
 *   data/<seq>.js         one trial's rendered turns, loaded by compare.html on demand
 *   assets/               report.css, overview.js, compare.js (CSP forbids inline code)
 *   screens/<hash>.png    every screenshot once (hard-linked from the run folder when possible)
 *   files/<seq>/          events.jsonl, notes/ and trace.zip (--trace) copied from the trial folder
 *   divergence.html       with --baseline: where flipped tasks diverged, both runs side by side
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";

export const INDEX_PAGE = "index.html";
export const COMPARE_PAGE = "compare.html";
/** Written into every report folder so that regenerating may clear it and nothing else. */
export const REPORT_MARKER = ".umpire-report";
/** The folders (and pages) a report writes; regenerating removes exactly these. */
export const HISTORY_PAGE = "history.html";
/** Where flipped tasks diverged from a baseline run (`umpire report <run> --baseline <run>`). */
export const DIVERGENCE_PAGE = "divergence.html";
export const GENERATED_ENTRIES = [
  "trials",
  "data",
  "assets",
  "screens",
  "files",
  INDEX_PAGE,
  COMPARE_PAGE,
  HISTORY_PAGE,
  DIVERGENCE_PAGE,
] as const;

/** From a page in the report root ("") or in `trials/` ("../") back to the root. */
export type Root = "" | "../";

export function trialPageHref(seq: number, root: Root = ""): string {
  return `${root}trials/${seq}.html`;
}

export function trialDataHref(seq: number, root: Root = ""): string {
  return `${root}data/${seq}.js`;
}

/**
 * The side-by-side view of two trials of one run, relative to the report folder; `umpire
 * compare` joins it to the report's path (see `sideBySideUrl`).
 */
export function sideBySideHref(seqA: number, seqB: number, root: Root = ""): string {
  return `${root}${COMPARE_PAGE}?a=${seqA}&b=${seqB}`;
}

/** The side-by-side view as an absolute file:// URL, for printing in a terminal. */
export function sideBySideUrl(reportDir: string, seqA: number, seqB: number): string {
  const url = pathToFileURL(join(reportDir, COMPARE_PAGE));
  url.search = `?a=${seqA}&b=${seqB}`;
  return url.href;
}

export function assetHref(name: string, root: Root = ""): string {
  return `${root}assets/${name}`;
}
