/**
 * Marks on any site: resolves a target's declared marks (CSS selector, or ARIA role + accessible
 * name) and the app's own test ids into the same layout report the fixture site's pages send,
 * so the reference model grounds gold steps on any app exactly as on the fixture.
 *
 * Boxes are CSS pixels relative to the viewport (device scale factor does not change them; the
 * model scales by the screenshot it was sent). `visible` and `covered` are the fixture's rules,
 * from the same in-page code (page-geometry.ts). Elements with no size at all (display: none) are
 * left out, so a gold step waits for them instead of clicking nowhere. Each element found is
 * remembered under its mark name in the page, so the repetition guard can name a cover by its mark.
 */
import type { Page } from "playwright";
import type { MarkDecl } from "../task/target-decl.js";
import {
  pageGeometryScript,
  type ElementGeometry,
  type GeometryWindow,
  type MarkGeometry,
  type PageView,
} from "../browser/page-geometry.js";

export interface ResolvedMark extends MarkGeometry {
  name: string;
  /** How the mark was found: "selector", "role", "testid". */
  source: "selector" | "role" | "testid";
}

/** The layout report shape the reference model reads (src/sim/grounding.ts PageLayout). */
export interface ResolvedLayout extends PageView {
  marks: ResolvedMark[];
  seq: number;
}

export interface MarkSpec {
  declared: Readonly<Record<string, MarkDecl>>;
  testIdAttribute: string;
}

/*
 * The functions below are serialised into the page by Playwright, so they only call the page's
 * own geometry (window.__umpireGeometry, installed by the trial context's init script; evaluated
 * here when a page lacks it) and keep their own code to inline arrows.
 */
let seq = 0;

type Found = ElementGeometry & { name: string; source: ResolvedMark["source"] };

/** Resolves every mark on the page as it is now. Never throws: a page mid-navigation gives what it can. */
export async function resolveMarks(page: Page, spec: MarkSpec): Promise<ResolvedLayout> {
  const selectors = Object.entries(spec.declared).filter(
    (e): e is [string, { selector: string }] => "selector" in e[1],
  );
  const roles = Object.entries(spec.declared).filter(
    (e): e is [string, { role: string; name?: string; exact: boolean }] => "role" in e[1],
  );
  const args = {
    selectors: selectors.map(([n, d]) => [n, d.selector] as [string, string]),
    attr: spec.testIdAttribute,
  };
  const read = () =>
    page.evaluate(({ selectors, attr }) => {
      const geometry = (window as unknown as GeometryWindow).__umpireGeometry;
      if (!geometry) return "no geometry" as const;
      geometry.forgetMarks();
      const picked: { name: string; source: "selector" | "testid"; el: Element }[] = [];
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
        geometry.rememberMark(el, name);
        return { name, source, ...geometry.describe(el) };
      });
      return { ...geometry.view(), marks };
    }, args);
  let base = await read().catch(() => null);
  if (base === "no geometry") {
    await page.evaluate(pageGeometryScript()).catch(() => undefined);
    base = await read().catch(() => null);
  }
  const seen = base === "no geometry" ? null : base;
  const viewport = page.viewportSize() ?? { width: 0, height: 0 };
  const layout: ResolvedLayout = {
    url: seen?.url ?? page.url(),
    path: seen?.path ?? "",
    title: seen?.title ?? "",
    viewport: seen?.viewport ?? viewport,
    scroll: seen?.scroll ?? { x: 0, y: 0 },
    devicePixelRatio: seen?.devicePixelRatio ?? 1,
    marks: [],
    seq: ++seq,
  };
  const found = new Map<string, Found>();
  for (const m of (seen?.marks ?? []) as Found[]) if (!found.has(m.name)) found.set(m.name, m);
  for (const [name, decl] of roles) {
    const locator = page.getByRole(
      decl.role as Parameters<Page["getByRole"]>[0],
      decl.name === undefined ? {} : { name: decl.name, exact: decl.exact },
    );
    const described = await locator
      .evaluateAll((els, name) => {
        const geometry = (window as unknown as GeometryWindow).__umpireGeometry;
        if (!geometry) return null;
        const all = els.map((el) => ({ el, ...geometry.describe(el) }));
        // The first one a person could see, else the first.
        const chosen = all.find((d) => d.sized) ?? all[0];
        if (!chosen) return null;
        geometry.rememberMark(chosen.el, name);
        const { el: _el, ...box } = chosen;
        return box;
      }, name)
      .catch(() => null);
    if (described) found.set(name, { name, source: "role", ...described });
  }
  // Declared names win over test ids of the same name (selectors were listed first above).
  layout.marks = [...found.values()].filter((m) => m.sized).map(({ sized: _sized, ...m }) => m);
  return layout;
}
