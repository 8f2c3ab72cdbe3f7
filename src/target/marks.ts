/**
 * Marks on any site: resolves a target's declared marks (CSS selector, or ARIA role + accessible
 * name) and the app's own test ids into the same layout report the fixture site's pages send,
 * so the reference model grounds gold steps on any app exactly as on the fixture.
 *
 * Boxes are CSS pixels relative to the viewport (device scale factor does not change them; the
 * model scales by the screenshot it was sent). `visible` and `covered` follow the fixture's rules:
 * visible = has a size, intersects the viewport and passes checkVisibility(); covered = the element
 * at the centre of its visible part is neither the mark nor inside it. Elements with no size at
 * all (display: none) are left out, so a gold step waits for them instead of clicking nowhere.
 */
import type { Page } from "playwright";
import type { MarkDecl } from "../task/target-decl.js";

export interface ResolvedMark {
  name: string;
  x: number;
  y: number;
  width: number;
  height: number;
  visible: boolean;
  covered: boolean;
  /** How the mark was found: "selector", "role", "testid". */
  source: "selector" | "role" | "testid";
}

/** The layout report shape the reference model reads (src/sim/grounding.ts PageLayout). */
export interface ResolvedLayout {
  url: string;
  path: string;
  title: string;
  viewport: { width: number; height: number };
  scroll: { x: number; y: number };
  devicePixelRatio: number;
  marks: ResolvedMark[];
  seq: number;
}

export interface MarkSpec {
  declared: Readonly<Record<string, MarkDecl>>;
  testIdAttribute: string;
}

/*
 * The in-page code below is written as inline arrows on purpose: Playwright serialises only the
 * outer function, and an inner helper bound to a name is wrapped by the TypeScript loader (keepNames
 * adds a __name() call the page does not have);
 * eval would break on pages whose CSP forbids it. So the fixture's describeMark appears twice.
 */
let seq = 0;

/** Resolves every mark on the page as it is now. Never throws: a page mid-navigation gives what it can. */
export async function resolveMarks(page: Page, spec: MarkSpec): Promise<ResolvedLayout> {
  const selectors = Object.entries(spec.declared).filter((e): e is [string, { selector: string }] => "selector" in e[1]);
  const roles = Object.entries(spec.declared).filter((e): e is [string, { role: string; name?: string; exact: boolean }] => "role" in e[1]);
  const base = await page
    .evaluate(
      ({ selectors, attr }) => {
        const vw = window.innerWidth;
        const vh = window.innerHeight;
        const picked: { name: string; source: string; el: Element }[] = [];
        for (const [name, selector] of selectors) {
          let el: Element | null = null;
          try {
            el = document.querySelector(selector);
          } catch {
            el = null;
          }
          if (el) picked.push({ name, source: "selector", el });
        }
        for (const el of Array.from(document.querySelectorAll(`[${attr}]`))) {
          const name = el.getAttribute(attr) ?? "";
          if (name && /^[A-Za-z0-9_.:-]+$/.test(name)) picked.push({ name, source: "testid", el });
        }
        const marks = picked.map(({ name, source, el }) => {
          const r = el.getBoundingClientRect();
          const hidden = typeof el.checkVisibility === "function" ? !el.checkVisibility({ visibilityProperty: true, opacityProperty: true }) : (el as HTMLElement).offsetParent === null;
          const inViewport = r.width > 0 && r.height > 0 && r.right > 0 && r.bottom > 0 && r.left < vw && r.top < vh;
          const visible = inViewport && !hidden;
          let covered = false;
          if (visible) {
            const hit = document.elementFromPoint((Math.max(r.left, 0) + Math.min(r.right, vw)) / 2, (Math.max(r.top, 0) + Math.min(r.bottom, vh)) / 2);
            const labels = (el as HTMLInputElement).labels ? Array.from((el as HTMLInputElement).labels!) : [];
            covered = !(hit && (hit === el || el.contains(hit) || labels.some((l) => l === hit || l.contains(hit))));
          }
          return { name, source, x: Math.round(r.left * 100) / 100, y: Math.round(r.top * 100) / 100, width: Math.round(r.width * 100) / 100, height: Math.round(r.height * 100) / 100, visible, covered, sized: r.width > 0 && r.height > 0 && !hidden };
        });
        return {
          url: location.href,
          path: location.pathname + location.search + location.hash,
          title: document.title,
          viewport: { width: vw, height: vh },
          scroll: { x: window.scrollX, y: window.scrollY },
          devicePixelRatio: window.devicePixelRatio,
          marks,
        };
      },
      { selectors: selectors.map(([n, d]) => [n, d.selector] as [string, string]), attr: spec.testIdAttribute },
    )
    .catch(() => null);
  const viewport = page.viewportSize() ?? { width: 0, height: 0 };
  const layout: ResolvedLayout = {
    url: base?.url ?? page.url(),
    path: base?.path ?? "",
    title: base?.title ?? "",
    viewport: base?.viewport ?? viewport,
    scroll: base?.scroll ?? { x: 0, y: 0 },
    devicePixelRatio: base?.devicePixelRatio ?? 1,
    marks: [],
    seq: ++seq,
  };
  const found = new Map<string, ResolvedMark & { sized: boolean }>();
  for (const m of (base?.marks ?? []) as (ResolvedMark & { sized: boolean })[]) if (!found.has(m.name)) found.set(m.name, m);
  for (const [name, decl] of roles) {
    const locator = page.getByRole(decl.role as Parameters<Page["getByRole"]>[0], decl.name === undefined ? {} : { name: decl.name, exact: decl.exact });
    const all = await locator
      .evaluateAll((els) => {
        const vw = window.innerWidth;
        const vh = window.innerHeight;
        const described = els.map((el) => {
          const r = el.getBoundingClientRect();
          const hidden = typeof el.checkVisibility === "function" ? !el.checkVisibility({ visibilityProperty: true, opacityProperty: true }) : (el as HTMLElement).offsetParent === null;
          const inViewport = r.width > 0 && r.height > 0 && r.right > 0 && r.bottom > 0 && r.left < vw && r.top < vh;
          const visible = inViewport && !hidden;
          let covered = false;
          if (visible) {
            const hit = document.elementFromPoint((Math.max(r.left, 0) + Math.min(r.right, vw)) / 2, (Math.max(r.top, 0) + Math.min(r.bottom, vh)) / 2);
            const labels = (el as HTMLInputElement).labels ? Array.from((el as HTMLInputElement).labels!) : [];
            covered = !(hit && (hit === el || el.contains(hit) || labels.some((l) => l === hit || l.contains(hit))));
          }
          return { x: Math.round(r.left * 100) / 100, y: Math.round(r.top * 100) / 100, width: Math.round(r.width * 100) / 100, height: Math.round(r.height * 100) / 100, visible, covered, sized: r.width > 0 && r.height > 0 && !hidden };
        });
        // The first one a person could see, else the first.
        return described.find((d) => d.sized) ?? described[0] ?? null;
      })
      .catch(() => null);
    if (all) found.set(name, { name, source: "role", ...all });
  }
  // Declared names win over test ids of the same name (selectors were listed first above).
  layout.marks = [...found.values()].filter((m) => m.sized).map(({ sized: _sized, ...m }) => m);
  return layout;
}
