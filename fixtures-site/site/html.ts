/**
 * HTML building blocks shared by every page: escaping, the page shell (header with the live
 * clock, the stylesheet, the page script) and the plain pages for missing sessions.
 */
import { SITE_CSS } from "./styles.js";

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Escapes text for HTML content and attribute values. */
export function esc(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** "2024-05-02" -> "2 May 2024". */
export function displayDate(iso: string): string {
  const [y, m, d] = iso.split("-").map(Number);
  return `${d} ${MONTHS[m - 1]} ${y}`;
}

/** The clock's text for a time: "14:03:09 UTC" (UTC, so no machine time zone leaks in). */
export function clockText(now: Date): string {
  return `${now.toISOString().slice(11, 19)} UTC`;
}

export const PAGE_SCRIPT_PATH = "/__umpire/page.js";

export interface ShellOptions {
  title: string;
  /** This page's number within its session: the layout seq of the page starts above it. */
  pageNumber: number;
  main: string;
  /** Whether <main> starts inert (a modal is open on load). */
  mainInert?: boolean;
  /** Markup after <main>: dialogs. */
  overlays?: string;
}

/** A complete page: header with the clock, <main>, overlays and the page script. */
export function renderShell(options: ShellOptions): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="umpire-page" content="${options.pageNumber}">
<title>${esc(options.title)}</title>
<link rel="icon" href="data:,">
<style>${SITE_CSS}</style>
</head>
<body>
<header class="site-header">
<a class="brand" href="/">Bat &amp; Ball League</a>
<nav><a href="/">Home</a><a href="/search?q=BB">All matches</a></nav>
<span class="clock" data-mark="clock" data-volatile>${clockText(new Date())}</span>
</header>
<main class="page"${options.mainInert ? " inert" : ""}>
${options.main}
</main>
${options.overlays ?? ""}
<script src="${PAGE_SCRIPT_PATH}"></script>
</body>
</html>`;
}

/** The plain page for a browser without a live session cookie (served with 401). */
export function noSessionPage(): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>No fixture session</title><link rel="icon" href="data:,"></head>
<body class="no-session" style="font-family:sans-serif;padding:40px"><h1>No fixture session</h1>
<p>This browser has no <code>umpire_session</code> cookie for a live session of the fixture site.
Create one through the control API (<code>POST /sessions</code>) and add its cookie to the browser context.</p></body></html>`;
}
