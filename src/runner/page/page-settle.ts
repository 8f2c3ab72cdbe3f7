/**
 * The picture is taken of a page at rest. Before each capture the observation waits, in the page
 * evaluation it makes anyway (environment.ts readPage), until:
 * - every running finite animation and CSS transition has finished (`document.getAnimations()`), the
 *   way Playwright's actionability waits for an element to be "stable": a tray that slides in, a modal
 *   that fades in, an accordion that opens. A screenshot taken mid-slide shows a field ~250 px from where
 *   it ends, and a click aimed from it lands beside it. Infinite animations (spinners), paused ones and
 *   scroll-driven ones never end on their own and are not waited for; neither is one that would outlast
 *   the cap;
 * - the layout stands still for one frame, when the last frame the executor's settle wait saw moved it
 *   (a tray animated by script has no Animation object), and on the first observation.
 * Both are bounded (ANIMATION_WAIT_MS in all). With no animation running and no movement seen, it costs
 * no frame.
 * A page can start moving after the wait looked: a response the script reads a task later opens a tray
 * while the picture is taken. So after the capture the page is asked once more (`movedSinceWait`: a
 * finite animation running, or a control away from where the wait left it); when it moved, the
 * observation waits again and takes the picture again (environment.ts `holdPicture`).
 *
 * The code runs in the page: `pageSettle` is serialised into every trial document by an init script
 * (as page-geometry.ts is) and reached at `window.__umpireSettle`; it uses no name from outside its body.
 */

/** How long one observation waits, at most, for animations to finish and the layout to stand still. */
export const ANIMATION_WAIT_MS = 2_000;
/** How long the first observation waits, at most, for the start page's requests (a list fetched after `load`). */
export const FIRST_SETTLE_MS = 5_000;
export const PAGE_SETTLE_GLOBAL = "__umpireSettle";

import type { ResolvedLayout } from "../../targets/marks.js";

/** What the page's wait found (one observation). */
export interface AnimationWait {
  /** Finite animations and transitions waited for. */
  animations: number;
  /** Of those, still running when the wait ran out. */
  unfinished: number;
  /** Running ones not waited for: infinite (a spinner), or longer than the cap. */
  ignored: number;
  /** Whether the layout was checked for one still frame, and whether it stood still. */
  layout: "not checked" | "still" | "moving";
  waitedMs: number;
}

/** The settle of one observation, as the trial log records it (observation_event `metadata.settle`). */
export interface SettleOutcome extends AnimationWait {
  /** First observation only: the start page's requests in flight after `load` (ms waited, and whether they ended). */
  requests?: { waitedMs: number; settled: boolean };
  /** Times the picture was taken again because the marks moved during the capture (declared targets). */
  retaken?: number;
}

export interface PageSettle {
  /** Waits for running finite animations (and, if `stable`, one frame with no movement), at most `capMs`. */
  wait(capMs: number, stable: boolean): Promise<AnimationWait>;
  /** Whether the layout moved across one rendered frame (the executor's settle frame). */
  frameMoved(): Promise<boolean>;
  /**
   * After the capture: whether the page moved since the last `wait` ended (a finite animation now
   * running, or a control at another place), so the picture may show a moment between two rests.
   */
  movedSinceWait(capMs: number): boolean;
}

export interface SettleWindow {
  __umpireSettle?: PageSettle;
}

/** Runs in the page (serialised): builds the settle functions. Uses no outer name. */
function pageSettle(): PageSettle {
  const frame = () => new Promise<void>((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
  // Where the controls are: the boxes of what a person clicks, and the scroll (cheap: no frame, one layout).
  const CONTROLS = "a, button, input, textarea, select, label, [role], [data-mark], [data-testid], [tabindex]";
  const MAX_CONTROLS = 400;
  const signature = (): string => {
    const els = document.querySelectorAll(CONTROLS);
    const parts: string[] = [`${els.length}@${Math.round(window.scrollX)},${Math.round(window.scrollY)}`];
    for (let i = 0; i < els.length && i < MAX_CONTROLS; i++) {
      const r = els[i]!.getBoundingClientRect();
      parts.push(`${Math.round(r.x)},${Math.round(r.y)},${Math.round(r.width)},${Math.round(r.height)}`);
    }
    return parts.join(";");
  };
  /** Finite, running on the document's clock, and ending within `leftMs`; the rest counted as ignored. */
  const running = (leftMs: number): { waitable: Animation[]; ignored: number } => {
    const waitable: Animation[] = [];
    let ignored = 0;
    for (const a of document.getAnimations()) {
      if (a.playState !== "running" || a.timeline !== document.timeline) continue;
      const timing = a.effect?.getComputedTiming();
      const end = Number(timing?.endTime ?? Number.POSITIVE_INFINITY);
      const now = Number(a.currentTime ?? 0);
      const rate = Math.abs(a.playbackRate) || 1;
      const remaining = (end - now) / rate;
      if (!Number.isFinite(remaining) || remaining > leftMs) ignored++;
      else waitable.push(a);
    }
    return { waitable, ignored };
  };
  // The controls where the last wait left them: what the picture after it must still show.
  let atRest: string | undefined;
  return {
    async wait(capMs, stable) {
      const started = performance.now();
      const left = () => capMs - (performance.now() - started);
      const seen = new Set<Animation>();
      let ignored = 0;
      let unfinished = 0;
      // A finished transition may start the next one (a chain, a transitionend handler): look again after each.
      for (let round = 0; round < 20; round++) {
        const now = running(left());
        ignored = now.ignored;
        if (now.waitable.length === 0) break;
        for (const a of now.waitable) seen.add(a);
        const finished = Promise.all(now.waitable.map((a) => a.finished.catch(() => undefined)));
        await Promise.race([finished, new Promise((r) => setTimeout(r, Math.max(0, left())))]);
        if (left() <= 0) {
          unfinished = now.waitable.filter((a) => a.playState === "running").length;
          break;
        }
        await frame();
      }
      let layout: AnimationWait["layout"] = "not checked";
      if (stable && left() > 0) {
        layout = "moving";
        let before = signature();
        while (left() > 0) {
          await frame();
          const after = signature();
          if (after === before) {
            layout = "still";
            break;
          }
          before = after;
        }
      }
      atRest = signature();
      return { animations: seen.size, unfinished, ignored, layout, waitedMs: Math.round(performance.now() - started) };
    },
    movedSinceWait(capMs) {
      if (running(capMs).waitable.length > 0) return true;
      return atRest !== undefined && signature() !== atRest;
    },
    async frameMoved() {
      const before = signature();
      await frame();
      return signature() !== before;
    },
  };
}

/** The init script that installs the settle functions in a document (once; a second run keeps the first). */
export function pageSettleScript(): string {
  return `(() => {
  const __name = (f) => f;
  if (Object.prototype.hasOwnProperty.call(window, ${JSON.stringify(PAGE_SETTLE_GLOBAL)})) return;
  Object.defineProperty(window, ${JSON.stringify(PAGE_SETTLE_GLOBAL)}, { value: Object.freeze((${pageSettle.toString()})()) });
})();
`;
}

/** Whether two readings of the marks describe the same page at the same places (the `seq` of each read aside). */
export function sameMarks(a: ResolvedLayout, b: ResolvedLayout): boolean {
  const key = (l: ResolvedLayout) =>
    JSON.stringify([l.url, l.scroll, l.marks.map((m) => [m.name, m.x, m.y, m.width, m.height, m.visible, m.covered])]);
  return key(a) === key(b);
}
