/**
 * The `page` check: after the loop ends, a fresh look at the application, independent of what the
 * model saw. Its confidence is `observed`: the page shows what the application displays, which is
 * weaker than reading the saved artifact itself.
 *
 * Pages change on their own (a lazy scorecard, a dialog fading out), so the check watches for up
 * to PAGE_SETTLE_MS and passes only on a state that held for PAGE_STABLE_MS: a dialog that is
 * inserted a moment after load cannot slip through a `hidden` check on the first instant.
 */
import type { Page } from "playwright";
import type { z } from "zod";
import type { PageCheck } from "../task/schema.js";
import { clip } from "./evidence.js";
import { describeMatcher, findText } from "./text-match.js";
import { CheckUnjudgeableError, type CheckContext, type Handler, type Judgement } from "./types.js";
import { withVars } from "./vars.js";
import { messageOf } from "../errors.js";

export type PageCheckSpec = z.output<typeof PageCheck>;

/** Longest a page check waits for the page to show the declared state. */
export const PAGE_SETTLE_MS = 3_000;
/** How long a passing state must hold before the check accepts it. */
export const PAGE_STABLE_MS = 300;
const POLL_MS = 100;

interface PageObservation {
  url: string;
  pageText: string;
  /** Present when the spec names a selector. */
  element?: { count: number; visibleCount: number; text: string };
}

async function observe(page: Page, spec: PageCheckSpec): Promise<PageObservation> {
  const url = page.url();
  const pageText = await page.evaluate(() => document.body?.innerText ?? "");
  if (!spec.selector) return { url, pageText };
  // One atomic read of every match, so count, visibility and text describe the same instant.
  // Visible means what a person could see: a box with size, not visibility:hidden, not opacity 0.
  const elements = await page.locator(spec.selector).evaluateAll((els) =>
    els.map((el) => {
      const box = el.getBoundingClientRect();
      const seen =
        box.width > 0 &&
        box.height > 0 &&
        (typeof el.checkVisibility !== "function" ||
          el.checkVisibility({ opacityProperty: true, visibilityProperty: true }));
      return { visible: seen, text: (el as HTMLElement).innerText ?? el.textContent ?? "" };
    }),
  );
  const visible = elements.filter((e) => e.visible);
  const textOf = (visible.length > 0 ? visible : elements).map((e) => e.text).join("\n");
  return { url, pageText, element: { count: elements.length, visibleCount: visible.length, text: textOf } };
}

/** What is wrong with the observation, as phrases a person can act on; empty when it passes. */
function evaluate(obs: PageObservation, spec: PageCheckSpec, isTaskPage: (url: string) => boolean): string[] {
  const failures: string[] = [];
  // Judged first and alone: nothing on a page outside the task's origins counts, however it looks.
  if (!isTaskPage(obs.url))
    return [
      `the page is at ${clip(obs.url, 120)}, which is not on the task's origins, so it was not judged (page checks judge only the task's own pages)`,
    ];
  if (spec.url !== undefined && !findText(obs.url, spec.url, spec.normalize)) {
    failures.push(`the page is at ${obs.url}, which does not match ${describeMatcher(spec.url)}`);
  }
  const el = obs.element;
  const sel = spec.selector;
  // A selector with neither state nor text asks for the element to be visible.
  const state = spec.state ?? (sel && spec.text === undefined ? "visible" : undefined);
  if (el && sel && state) {
    if (state === "visible" && el.visibleCount === 0) {
      failures.push(el.count === 0 ? `${sel} is not on the page` : `${sel} is on the page but hidden`);
    } else if (state === "hidden" && el.visibleCount > 0) {
      failures.push(
        `${sel} is visible (${el.visibleCount} element${el.visibleCount === 1 ? "" : "s"}), expected hidden`,
      );
    } else if (state === "absent" && el.count > 0) {
      failures.push(
        `${sel} is on the page (${el.count} element${el.count === 1 ? "" : "s"}${el.visibleCount ? ", visible" : ", hidden"}), expected absent`,
      );
    }
  }
  if (spec.text !== undefined) {
    if (el && el.count === 0) {
      failures.push(`${sel} is not on the page, so its text cannot match ${describeMatcher(spec.text)}`);
    } else if (!findText(el ? el.text : obs.pageText, spec.text, spec.normalize)) {
      failures.push(`${sel ?? "the page"} text does not match ${describeMatcher(spec.text)}`);
    }
  }
  return failures;
}

/** Which page the check judged, in words: the trial's page as left, or a fresh one (and where). */
function pageJudged(spec: PageCheckSpec, probe: NonNullable<CheckContext["page"]>): string {
  if (probe.judgedIn) return `a fresh load of ${spec.open ?? "the trial's last URL"} in ${probe.judgedIn}`;
  return spec.open !== undefined ? `fresh page at ${spec.open}` : "the trial's page as left";
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Watches `page` until the spec holds steadily or PAGE_SETTLE_MS passes; returns the last look. */
async function watch(
  page: Page,
  spec: PageCheckSpec,
  isTaskPage: (url: string) => boolean,
): Promise<{ obs: PageObservation; failures: string[]; waitedMs: number }> {
  const start = Date.now();
  let heldSince: number | null = null;
  let lastError: unknown = null;
  let last: { obs: PageObservation; failures: string[] } | null = null;
  for (;;) {
    try {
      const obs = await observe(page, spec);
      last = { obs, failures: evaluate(obs, spec, isTaskPage) };
      lastError = null;
    } catch (e) {
      // A navigation in progress destroys the page's script context; look again shortly.
      if (page.isClosed()) throw new CheckUnjudgeableError("the page was closed before it could be checked");
      lastError = e;
    }
    const now = Date.now();
    if (last && last.failures.length === 0) {
      heldSince ??= now;
      if (now - heldSince >= PAGE_STABLE_MS) break;
    } else {
      heldSince = null;
    }
    if (now - start >= PAGE_SETTLE_MS) break;
    await sleep(POLL_MS);
  }
  if (!last)
    throw new CheckUnjudgeableError(
      `the page could not be read: ${lastError == null ? "unknown error" : messageOf(lastError)}`,
    );
  return { ...last, waitedMs: Date.now() - start };
}

async function judgePage(spec: PageCheckSpec, ctx: CheckContext): Promise<Judgement> {
  if (!ctx.page)
    throw new CheckUnjudgeableError("no browser page to look at (the trial gave the checks no page probe)");
  // The page is opened at the trial's own URL (`open: /lists/${TRIAL_ID}`), like every request a check sends.
  const opened = spec.open === undefined ? undefined : withVars(spec.open, ctx);
  const page = opened !== undefined ? await ctx.page.open(opened) : await ctx.page.current();
  try {
    const { obs, failures, waitedMs } = await watch(page, spec, (url) => ctx.page!.isTaskPage(url));
    // The page as judged, kept for re-judging (a failure to keep it never changes the judgement).
    await ctx.page.judged?.(pageKey({ open: opened }), page).catch(() => undefined);
    const evidence = {
      page: pageJudged(spec, ctx.page),
      // Which page was judged, and whether it was one of the task's own (only those can pass).
      url: clip(obs.url, 500),
      onTaskOrigin: ctx.page.isTaskPage(obs.url),
      ...(obs.element && spec.selector
        ? {
            selector: spec.selector,
            count: obs.element.count,
            visibleCount: obs.element.visibleCount,
            elementText: clip(obs.element.text, 1_000),
          }
        : {}),
      pageText: clip(obs.pageText),
      waitedMs,
    };
    if (failures.length > 0) return { pass: false, reason: failures.join("; "), evidence };
    const what = [
      spec.url !== undefined && "URL",
      spec.selector && (spec.state ?? "element"),
      spec.text !== undefined && "text",
    ]
      .filter(Boolean)
      .join(", ");
    return { pass: true, reason: `the page shows what was expected (${what || "loaded"})`, evidence };
  } finally {
    if (spec.open !== undefined) await page.close().catch(() => undefined);
  }
}

/** Which page a page check looks at: the trial's as left, or a fresh one at a path as opened (the evidence's key). */
export function pageKey(spec: Pick<PageCheckSpec, "open">): string {
  return spec.open === undefined ? "current" : `open ${spec.open}`;
}

export const pageCheck: Handler<PageCheckSpec> = {
  confidence: "observed",
  defaultName: (spec) =>
    [
      "page",
      spec.open ?? "(current)",
      spec.selector,
      spec.state,
      spec.text !== undefined ? `text ${describeMatcher(spec.text)}` : undefined,
    ]
      .filter(Boolean)
      .join(" "),
  judge: judgePage,
};
