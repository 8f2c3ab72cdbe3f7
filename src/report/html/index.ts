/** The HTML report and trace viewer: its public surface. */
export { writeRunReport, defaultReportDir, type ReportOptions, type ReportResult } from "./writer.js";
export { sideBySideHref, sideBySideUrl, trialPageHref, INDEX_PAGE, COMPARE_PAGE } from "./layout.js";
export { escapeHtml, html, raw, type Raw } from "./escape.js";
export { CONTENT_SECURITY_POLICY } from "./page.js";
