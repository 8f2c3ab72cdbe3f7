/**
 * Whether a click aimed at a mark landed on it. The reference model grounds a gold or negative step
 * on a mark and clicks its centre; if the page moved between the picture and the click (a list that
 * arrived late, a tray still sliding), the click lands on something else and the step did not do what
 * it says. So, for a model that reads the marks (the reference model: the same switch as the layout
 * flush), the executor reads, just before the click, which marks hold the element under the point (the
 * element, or an ancestor, or the control of a label hit; names as the geometry knows them: remembered
 * marks of any target, `data-mark` on the fixture) and says so in the action's message. `umpire try`,
 * the self-test and the trial log read that message: a step addressed to mark M whose click landed on
 * no element of M "missed its mark" (not ✓; the probe is not exercised). A click on M where something
 * covers it (a cookie banner over Save, which the layout reports as covered and the picture shows) lands
 * on the cover as a person's would: that step was played as written (the fixture's "keeps clicking the
 * covered Save" negatives are such steps).
 */
import type { Page } from "playwright";
import type { GeometryWindow } from "../../browser/page-geometry.js";

/** What lay under a click point. */
export interface MarkHit {
  /** The marks holding the element under the point, innermost first. */
  marks: string[];
  /** The element under the point, for a person ("button#save", "div.sidebar \"Nodes\""). */
  under: string;
  /**
   * The aimed mark, when it lies under the point beneath the element hit: the picture showed it covered
   * (a cookie banner over Save) and the click landed on the cover, as a person's would. Played as written.
   */
  covered?: string;
}

/** Which marks hold the element at the point (CSS px, viewport-relative); null when the page could not say. */
export async function readMarkHit(
  page: Page,
  point: { x: number; y: number },
  aimed: string | null,
): Promise<MarkHit | null> {
  return page
    .evaluate(
      ({ x, y, aimed }) => {
        const geometry = (window as unknown as GeometryWindow).__umpireGeometry;
        const top = document.elementFromPoint(x, y);
        if (!top) return { marks: [], under: "nothing (outside the page)" };
        const marks: string[] = [];
        const add = (el: Element | null | undefined) => {
          const name = el ? (geometry ? geometry.markOf(el) : el.getAttribute("data-mark")) : null;
          if (name && !marks.includes(name)) marks.push(name);
        };
        for (let el: Element | null = top; el; el = el.parentElement) {
          add(el);
          // A click on a label reaches its control.
          if (el instanceof HTMLLabelElement) add(el.control);
        }
        const id = top.id ? `#${top.id}` : "";
        const cls =
          typeof top.className === "string" && top.className.trim() ? `.${top.className.trim().split(/\s+/)[0]}` : "";
        // Page text, into a message the model and a terminal read: short, one line, no control characters.
        const text = (top.textContent ?? "")
          .replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ")
          .trim()
          .replace(/\s+/g, " ")
          .slice(0, 30);
        const under = `${top.tagName.toLowerCase()}${id}${cls}${text ? ` "${text}"` : ""}`;
        // Not hit, but its box holds the point: something lies over it (boxes, not the hit-test stack,
        // which skips the inert page under a modal).
        const el = aimed && !marks.includes(aimed) && geometry ? geometry.markElement(aimed) : null;
        const r = el?.getBoundingClientRect();
        const covered = r && r.width > 0 && r.height > 0 && x >= r.left && x <= r.right && y >= r.top && y <= r.bottom;
        return covered && aimed ? { marks, under, covered: aimed } : { marks, under };
      },
      { ...point, aimed },
    )
    .catch(() => null);
}

/** The mark a reference-model click names in its `element` argument ("the name field element [name-field] on /"). */
export function aimedMark(element: unknown): string | null {
  if (typeof element !== "string") return null;
  const found = /\[([A-Za-z0-9_.:-]+)\](?!.*\[[A-Za-z0-9_.:-]+\])/.exec(element);
  return found ? found[1]! : null;
}

/** The words the action's message carries: " onto mark a (inside b)", and "; it missed its mark m" when it did. */
export function hitClause(hit: MarkHit, aimed: string | null): string {
  const onto =
    hit.marks.length === 0
      ? ` onto no mark (under the point: ${hit.under})`
      : ` onto mark ${hit.marks[0]}${hit.marks.length > 1 ? ` (inside ${hit.marks.slice(1).join(", ")})` : ""}`;
  if (hit.covered) return `${onto}, ${COVERS} ${hit.covered}`;
  const missed = aimed !== null && !hit.marks.includes(aimed) ? `; it ${MISSED} ${aimed}` : "";
  return onto + missed;
}

const MISSED = "missed its mark";
const COVERS = "which covers its mark";
const COVERED = /, which covers its mark ([A-Za-z0-9_.:-]+)/;
const ONTO = / onto (?:no mark|mark ([A-Za-z0-9_.:-]+)(?: \(inside ([^)]*)\))?)/;

/** The marks an action's message says its click landed on; null when the message does not say (not read). */
export function marksHit(message: string): string[] | null {
  const found = ONTO.exec(message);
  if (!found) return null;
  // The mark under a cover the click landed on counts as reached: the picture showed it covered.
  const covered = COVERED.exec(message)?.[1];
  const marks = found[1] ? [found[1], ...(found[2] ? found[2].split(", ") : [])] : [];
  return covered ? [...marks, covered] : marks;
}

/** "missed its mark name-field: click sent at ... onto mark sidebar", or null when the click landed on `mark` (or nobody knows). */
export function missedMark(mark: string | null | undefined, message: string): string | null {
  if (!mark) return null;
  const hits = marksHit(message);
  if (hits === null || hits.includes(mark)) return null;
  // The executor's own "; it missed its mark m" is said once, up front.
  return `${MISSED} ${mark}: ${message.replace(`; it ${MISSED} ${mark}`, "")}`;
}
