/**
 * The frame every report page shares: a strict Content-Security-Policy, the stylesheet, and
 * the page's scripts as separate files. Verified in Chromium: under file:// `'self'` matches
 * files of the report folder, so the scripts run while inline scripts, inline event handlers
 * and inline styles (including anything injected through model output) are refused.
 */
import { html, type Raw } from "./escape.js";
import { assetHref, type Root } from "./layout.js";

/**
 * Nothing is allowed by default; images, the stylesheet and the scripts come only from the
 * report's own files. No network (connect-src, font-src, frame-src fall back to 'none'), no
 * `<base>` rewriting, no form submissions.
 */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; img-src 'self'; style-src 'self'; script-src 'self'; base-uri 'none'; form-action 'none'";

export interface PageOptions {
  title: string;
  /** From this page back to the report folder. */
  root: Root;
  /** Script files in `assets/` (loaded with `defer`). */
  scripts?: string[];
  bodyClass?: string;
  body: Raw;
}

/** A complete HTML document. */
export function pageHtml(options: PageOptions): string {
  const scripts = (options.scripts ?? []).map(
    (name) => html`<script src="${assetHref(name, options.root)}" defer></script>`,
  );
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="umpire">
<title>${options.title}</title>
<link rel="stylesheet" href="${assetHref("report.css", options.root)}">
${scripts}
</head>
<body class="${options.bodyClass ?? ""}">
${options.body}
</body>
</html>
`.markup;
}
