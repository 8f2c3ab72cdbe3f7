/**
 * The in-page element geometry, written once: where an element is, whether a person could see it,
 * and whether something covers it; the page's view (URL, viewport, scroll); what lies under a
 * click (the control a cover hides, and the cover's name). Three places run it in the page:
 * - the fixture site's page script, which is served with this script in front of it;
 * - the marks of any other target (marks.ts), through an init script in every trial context;
 * - the repetition guard, which names a covered control and its cover for the stuck report.
 *
 * It runs in the page, so it cannot call Node code: `pageGeometry` is serialised with
 * Function.prototype.toString and must use no name from outside its own body (types excepted).
 * It installs itself once per document as a read-only `window.__umpireGeometry`; code that
 * Playwright serialises reaches it there.
 *
 * Rules (the fixture's, for every target): sizes are CSS pixels relative to the viewport, rounded
 * to 1/100; `visible` = has a size, intersects the viewport and passes checkVisibility()
 * (visibility and opacity); `covered` = the element at the centre of its visible part is neither
 * the element, inside it, nor one of its labels.
 */

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A mark's place and state; the `name` is added by whoever knows it (data-mark, selector, role, test id). */
export interface MarkGeometry extends Box {
  /** Intersects the viewport, has a size and is not display:none / visibility:hidden / opacity:0. */
  visible: boolean;
  /** elementFromPoint at the centre of its visible part is neither the element nor inside it. */
  covered: boolean;
}

/** MarkGeometry plus whether a person could see it anywhere (a size and not hidden), scrolled or not. */
export interface ElementGeometry extends MarkGeometry {
  sized: boolean;
}

/** The page as a layout report states it. */
export interface PageView {
  url: string;
  /** pathname + search + hash. */
  path: string;
  title: string;
  viewport: { width: number; height: number };
  scroll: { x: number; y: number };
  devicePixelRatio: number;
}

/** What lies under one click point (CSS px, viewport-relative). */
export interface PointInfo {
  /** The `data-effect` of the clicked element or an ancestor (the fixture's consequential controls). */
  effect: string | null;
  /** "Save" stayed covered by "cookie-dialog": the control under the point and what covers it. */
  covered: { control: string; by: string } | null;
}

export interface PageGeometry {
  describe(el: Element): ElementGeometry;
  view(): PageView;
  /** Forgets the mark names remembered so far (each resolution of the marks starts afresh). */
  forgetMarks(): void;
  /** Remembers an element's mark name (marks found by selector, role or test id carry no attribute). */
  rememberMark(el: Element, name: string): void;
  /** The element's mark name: remembered, else its data-mark (the fixture's pages); null when none. */
  markOf(el: Element): string | null;
  /** The element a mark name names: the one remembered under it, else the first with that data-mark. */
  markElement(name: string): Element | null;
  pointInfo(x: number, y: number): PointInfo;
}

export const PAGE_GEOMETRY_GLOBAL = "__umpireGeometry";

/** `window` as the in-page callers see it once the script ran. */
export interface GeometryWindow {
  __umpireGeometry?: PageGeometry;
}

/** Runs in the page (serialised): builds the geometry functions. Uses no outer name. */
function pageGeometry(): PageGeometry {
  const round = (n: number): number => Math.round(n * 100) / 100;
  let names = new WeakMap<Element, string>();
  let elements = new Map<string, Element>();
  const isHidden = (el: Element): boolean =>
    typeof el.checkVisibility === "function"
      ? !el.checkVisibility({ visibilityProperty: true, opacityProperty: true })
      : (el as HTMLElement).offsetParent === null && getComputedStyle(el).position !== "fixed";
  const markOf = (el: Element): string | null => names.get(el) ?? el.getAttribute("data-mark") ?? null;
  const describe = (el: Element): ElementGeometry => {
    const r = el.getBoundingClientRect();
    const vw = window.innerWidth;
    const vh = window.innerHeight;
    const hidden = isHidden(el);
    const inViewport = r.width > 0 && r.height > 0 && r.right > 0 && r.bottom > 0 && r.left < vw && r.top < vh;
    const visible = inViewport && !hidden;
    let covered = false;
    if (visible) {
      const hit = document.elementFromPoint(
        (Math.max(r.left, 0) + Math.min(r.right, vw)) / 2,
        (Math.max(r.top, 0) + Math.min(r.bottom, vh)) / 2,
      );
      // A click on an input's label reaches the input, so a label on top does not cover it.
      const labels = (el as HTMLInputElement).labels ? Array.from((el as HTMLInputElement).labels!) : [];
      covered = !(hit && (hit === el || el.contains(hit) || labels.some((l) => l === hit || l.contains(hit))));
    }
    return {
      x: round(r.left),
      y: round(r.top),
      width: round(r.width),
      height: round(r.height),
      visible,
      covered,
      sized: r.width > 0 && r.height > 0 && !hidden,
    };
  };
  // How far the search for a cover's name looks inside the element hit (a backdrop holds its dialog).
  const MAX_DESCENDANTS = 2_000;
  /** A cover's name: a mark on it or around it, else one inside it, else an accessible name, else its class or tag. */
  const coverName = (top: Element): string => {
    for (let el: Element | null = top; el; el = el.parentElement) {
      const name = markOf(el);
      if (name) return name;
    }
    const inside = top.querySelectorAll("*");
    for (let i = 0; i < inside.length && i < MAX_DESCENDANTS; i++) {
      const name = markOf(inside[i]!);
      if (name) return name;
    }
    const named = top.closest("[data-testid], [role=dialog], [role=alertdialog], dialog, [aria-label]");
    if (named)
      return (
        named.getAttribute("data-testid") ||
        named.getAttribute("aria-label") ||
        named.id ||
        named.getAttribute("role") ||
        named.tagName.toLowerCase()
      );
    return top.className && typeof top.className === "string" ? top.className : top.tagName.toLowerCase();
  };
  const interactive = "button, a, input, textarea, select, [role=button]";
  return {
    describe,
    view: () => ({
      url: location.href,
      path: location.pathname + location.search + location.hash,
      title: document.title,
      viewport: { width: window.innerWidth, height: window.innerHeight },
      scroll: { x: window.scrollX, y: window.scrollY },
      devicePixelRatio: window.devicePixelRatio || 1,
    }),
    forgetMarks: () => {
      names = new WeakMap();
      elements = new Map();
    },
    rememberMark: (el, name) => {
      if (!names.has(el)) names.set(el, name);
      if (!elements.has(name)) elements.set(name, el);
    },
    markOf,
    markElement: (name) =>
      elements.get(name) ??
      Array.from(document.querySelectorAll("[data-mark]")).find((el) => el.getAttribute("data-mark") === name) ??
      null,
    pointInfo: (px, py) => {
      const top = document.elementFromPoint(px, py);
      const effect = top?.closest("[data-effect]")?.getAttribute("data-effect") ?? null;
      if (!top || top.closest(interactive)) return { effect, covered: null };
      // A control whose box holds the point but which the hit test does not reach is covered.
      // Hit testing skips inert content under a modal, so look at boxes, not the hit-test stack.
      const control = Array.from(document.querySelectorAll(interactive)).find((el) => {
        const r = el.getBoundingClientRect();
        return (
          r.width > 0 &&
          r.height > 0 &&
          px >= r.left &&
          px <= r.right &&
          py >= r.top &&
          py <= r.bottom &&
          !el.contains(top) &&
          !top.contains(el)
        );
      });
      if (!control) return { effect, covered: null };
      return {
        effect,
        covered: {
          control: (control.getAttribute("aria-label") || control.textContent || "the control").trim().slice(0, 40),
          by: coverName(top),
        },
      };
    },
  };
}

/**
 * The script that installs the geometry in a document (once; a second run keeps the first).
 * tsx compiles with esbuild's keepNames, which wraps named inner functions in `__name(...)`, a
 * helper of the Node module that the page does not have; a local no-op stands in for it.
 */
export function pageGeometryScript(): string {
  return `(() => {
  const __name = (f) => f;
  if (Object.prototype.hasOwnProperty.call(window, ${JSON.stringify(PAGE_GEOMETRY_GLOBAL)})) return;
  Object.defineProperty(window, ${JSON.stringify(PAGE_GEOMETRY_GLOBAL)}, { value: Object.freeze((${pageGeometry.toString()})()) });
})();
`;
}
