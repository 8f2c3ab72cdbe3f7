/**
 * The layout report a page posts about itself (see docs/ARCHITECTURE.md, "Layout"): where the
 * marked elements are, in CSS pixels relative to the viewport, and which regions move.
 */
import type { Box, MarkGeometry, PageView } from "../src/browser/page-geometry.js";

/** A `data-mark` element's place and state, measured by umpire's in-page geometry (page-geometry.ts). */
export interface LayoutMark extends MarkGeometry {
  name: string;
}

export interface LayoutReport extends PageView {
  marks: LayoutMark[];
  /** Boxes of the moving regions (clock, caret, spinner), to be masked when comparing pixels. */
  volatile: Box[];
  /** Increases with every report of a session, across page loads. */
  seq: number;
  /** Set by the server when stored (ISO time). */
  receivedAt: string;
}

const MAX_MARKS = 2_000;

function isFiniteNumber(v: unknown): v is number {
  return typeof v === "number" && Number.isFinite(v);
}

function box(raw: unknown, where: string): Box {
  const b = raw as Record<string, unknown> | null;
  if (!b || typeof b !== "object") throw new Error(`${where}: expected an object with x, y, width, height`);
  for (const key of ["x", "y", "width", "height"] as const) {
    if (!isFiniteNumber(b[key])) throw new Error(`${where}.${key}: expected a finite number`);
  }
  return { x: b.x as number, y: b.y as number, width: b.width as number, height: b.height as number };
}

/** Checks a posted report's shape and copies only the known fields; throws naming the bad field. */
export function parseLayoutReport(raw: unknown, receivedAt: Date): LayoutReport {
  const r = raw as Record<string, unknown> | null;
  if (!r || typeof r !== "object") throw new Error("layout report: expected a JSON object");
  if (!isFiniteNumber(r.seq)) throw new Error("layout report.seq: expected a number");
  if (!Array.isArray(r.marks) || r.marks.length > MAX_MARKS)
    throw new Error(`layout report.marks: expected an array of at most ${MAX_MARKS}`);
  if (!Array.isArray(r.volatile) || r.volatile.length > MAX_MARKS)
    throw new Error("layout report.volatile: expected an array");
  const viewport = r.viewport as Record<string, unknown> | undefined;
  const scroll = r.scroll as Record<string, unknown> | undefined;
  if (!viewport || !isFiniteNumber(viewport.width) || !isFiniteNumber(viewport.height))
    throw new Error("layout report.viewport: expected {width, height}");
  if (!scroll || !isFiniteNumber(scroll.x) || !isFiniteNumber(scroll.y))
    throw new Error("layout report.scroll: expected {x, y}");
  const marks = r.marks.map((m, i): LayoutMark => {
    const mark = m as Record<string, unknown>;
    if (typeof mark?.name !== "string") throw new Error(`layout report.marks[${i}].name: expected a string`);
    return {
      name: mark.name,
      ...box(m, `layout report.marks[${i}]`),
      visible: mark.visible === true,
      covered: mark.covered === true,
    };
  });
  return {
    url: String(r.url ?? ""),
    path: String(r.path ?? ""),
    title: String(r.title ?? ""),
    viewport: { width: viewport.width as number, height: viewport.height as number },
    scroll: { x: scroll.x as number, y: scroll.y as number },
    devicePixelRatio: isFiniteNumber(r.devicePixelRatio) ? r.devicePixelRatio : 1,
    marks,
    volatile: r.volatile.map((v, i) => box(v, `layout report.volatile[${i}]`)),
    seq: r.seq,
    receivedAt: receivedAt.toISOString(),
  };
}
