/**
 * Grounding: turning a layout mark the fixture page reports (CSS pixels, relative to the
 * viewport) into the [0, 1000] coordinates Holo emits, relative to the screenshot in the
 * request. The screenshot may be larger than the viewport (device pixel ratio 2 gives a
 * 2560x1600 image of a 1280x800 viewport), so CSS pixels are scaled by image/viewport first and
 * then normalised by the image's own size.
 */

/** One element the page marks with `data-mark`, in CSS pixels relative to the viewport. */
export interface LayoutMark {
  name: string;
  x: number;
  y: number;
  width: number;
  height: number;
  visible?: boolean;
  covered?: boolean;
}

/** The page layout report (fixture site contract, `GET /sessions/:id/layout`). Only these fields are read. */
export interface PageLayout {
  url?: string;
  path?: string;
  title?: string;
  viewport: { width: number; height: number };
  scroll?: { x: number; y: number };
  devicePixelRatio?: number;
  marks: LayoutMark[];
  seq?: number;
}

/**
 * Where the reference model reads layouts: the fixture site's control client fits this shape
 * (`FixtureControlClient.layout(sessionId)`). A missing session or report may resolve to
 * null/undefined or reject; both mean "no layout".
 */
export interface LayoutSource {
  layout(sessionId: string): Promise<unknown>;
  /** The session's scenario, which tells apart tasks that share one instruction (the cookie variants). */
  getSession?(sessionId: string): Promise<{ scenario?: string }>;
}

/** Pixel size of the screenshot the coordinates refer to. */
export interface ScreenFrame {
  width: number;
  height: number;
}

export interface GroundedPoint {
  /** [0, 1000] integers, relative to the screenshot. */
  x: number;
  y: number;
  /** The same point in the screenshot's pixels. */
  pixel: { x: number; y: number };
  mark: LayoutMark;
  /** True when the centre fell outside the screenshot and was clamped to its edge. */
  clamped: boolean;
}

/** Centre of a mark in CSS pixels. */
export function markCentre(mark: Pick<LayoutMark, "x" | "y" | "width" | "height">): { x: number; y: number } {
  return { x: mark.x + mark.width / 2, y: mark.y + mark.height / 2 };
}

/** An image this much taller (height/width) than the viewport is a full-page capture, not a resized picture. */
const FULL_PAGE_RATIO = 1.25;

/**
 * Maps a CSS-pixel point to [0, 1000] in the screenshot's frame. Without a screenshot the
 * viewport itself is the frame.
 */
export function normalisePoint(
  css: { x: number; y: number },
  viewport: { width: number; height: number },
  frame: ScreenFrame = viewport,
): { x: number; y: number; pixel: { x: number; y: number }; clamped: boolean } {
  const scaleX = frame.width / viewport.width;
  // A picture of the viewport resized to a slightly other aspect ratio (smart_resize rounds each side to
  // its factor, e.g. for an agent's minPixels/maxPixels) is stretched, so each axis scales by itself; a
  // much taller image is a full-page capture, where the vertical scale is the width's.
  const stretched = frame.height / frame.width <= (viewport.height / viewport.width) * FULL_PAGE_RATIO;
  const scaleY = stretched ? frame.height / viewport.height : scaleX;
  const pixel = { x: css.x * scaleX, y: css.y * scaleY };
  const rawX = Math.round((pixel.x / frame.width) * 1000);
  const rawY = Math.round((pixel.y / frame.height) * 1000);
  const x = clamp(rawX);
  const y = clamp(rawY);
  return { x, y, pixel, clamped: x !== rawX || y !== rawY };
}

/** Grounds the named mark of a layout to its centre; null when the page has no such mark. */
export function groundMark(layout: PageLayout, name: string, frame?: ScreenFrame): GroundedPoint | null {
  const mark = layout.marks.find((m) => m.name === name);
  if (!mark) return null;
  const point = normalisePoint(markCentre(mark), layout.viewport, frame ?? layout.viewport);
  return { ...point, mark };
}

/** A human description of a mark, as a model would write the `element` argument. */
export function describeElement(mark: LayoutMark, layout: PageLayout): string {
  const words = mark.name.replace(/[-_]+/g, " ");
  const where = layout.path ? ` on ${layout.path}` : "";
  const state = mark.covered ? " (partly covered)" : "";
  return `the ${words} element [${mark.name}]${where}${state}`;
}

/** Narrows an unknown control-API answer to a usable layout, or null. */
export function asPageLayout(value: unknown): PageLayout | null {
  if (typeof value !== "object" || value === null) return null;
  const candidate = value as Partial<PageLayout>;
  const viewport = candidate.viewport;
  if (!viewport || !(viewport.width > 0) || !(viewport.height > 0) || !Array.isArray(candidate.marks)) return null;
  return candidate as PageLayout;
}

function clamp(value: number): number {
  return Math.min(1000, Math.max(0, value));
}
