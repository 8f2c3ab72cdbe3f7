/**
 * Mask regions: where the screen moves on its own (clock, caret, spinner) and must be ignored
 * when asking "did anything change?".
 *
 * Sources arrive in CSS pixels relative to the viewport: the fixture's `volatile` boxes from
 * its layout report, task masks written as `{box}`, boxes the runner resolved from task
 * `{selector}` masks, and boxes an agent config adds. Comparison happens in the screenshot's
 * own pixel frame, so they are scaled (devicePixelRatio, or image size / viewport size),
 * padded by a couple of pixels (anti-aliased edges and sub-pixel layout bleed past the box)
 * and clipped to the image.
 */

/** An axis-aligned rectangle: top-left corner and size. */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface ImageFrame {
  /** The screenshot's size in image pixels. */
  image: { width: number; height: number };
  /**
   * The CSS viewport the screenshot shows. When given, the scale is image size / viewport
   * size per axis (this also covers screenshots resized after capture).
   */
  viewport?: { width: number; height: number };
  /** Image pixels per CSS pixel when `viewport` is not given (default 1). */
  devicePixelRatio?: number;
  /** Image pixels added on every side of each box (default 2). */
  padding?: number;
}

/** Where a CSS box came from; used only in error messages. */
export type MaskSource = "fixture volatile region" | "task repetition.masks" | "selector mask" | "agent config mask";

/** The CSS-pixel boxes that apply to one capture, grouped by where they came from. */
export interface CssMaskSources {
  /** The fixture layout report's `volatile` boxes. */
  volatile?: readonly Box[];
  /** The `box` of each task `repetition.masks` entry that has one. */
  taskBoxes?: readonly Box[];
  /** Boxes the runner resolved from task `{selector}` masks on the current page. */
  selectorBoxes?: readonly Box[];
}

/**
 * Converts CSS-pixel boxes to image-pixel boxes: scaled, padded outward to whole pixels and
 * clipped to the image. Boxes entirely outside the image are dropped.
 */
export function cssBoxesToImageBoxes(
  boxes: readonly Box[],
  frame: ImageFrame,
  source: MaskSource = "task repetition.masks",
): Box[] {
  const { scaleX, scaleY } = frameScale(frame);
  const padding = frame.padding ?? 2;
  const { width: imageWidth, height: imageHeight } = frame.image;
  const out: Box[] = [];
  boxes.forEach((box, index) => {
    assertBox(box, `${source}[${index}]`);
    const left = Math.max(0, Math.floor(box.x * scaleX - padding));
    const top = Math.max(0, Math.floor(box.y * scaleY - padding));
    const right = Math.min(imageWidth, Math.ceil((box.x + box.width) * scaleX + padding));
    const bottom = Math.min(imageHeight, Math.ceil((box.y + box.height) * scaleY + padding));
    if (right > left && bottom > top) out.push({ x: left, y: top, width: right - left, height: bottom - top });
  });
  return out;
}

/** All mask sources of one capture, converted to image pixels (see cssBoxesToImageBoxes). */
export function maskBoxesForCapture(sources: CssMaskSources, frame: ImageFrame): Box[] {
  return [
    ...cssBoxesToImageBoxes(sources.volatile ?? [], frame, "fixture volatile region"),
    ...cssBoxesToImageBoxes(sources.taskBoxes ?? [], frame, "task repetition.masks"),
    ...cssBoxesToImageBoxes(sources.selectorBoxes ?? [], frame, "selector mask"),
  ];
}

/** Splits task `repetition.masks` into the boxes it states and the selectors the runner must resolve. */
export function splitTaskMasks(masks: ReadonlyArray<{ selector: string } | { box: Box }>): {
  boxes: Box[];
  selectors: string[];
} {
  const boxes: Box[] = [];
  const selectors: string[] = [];
  for (const mask of masks) {
    if ("box" in mask) boxes.push(mask.box);
    else selectors.push(mask.selector);
  }
  return { boxes, selectors };
}

function frameScale(frame: ImageFrame): { scaleX: number; scaleY: number } {
  const { image, viewport } = frame;
  if (!(image.width > 0 && image.height > 0)) {
    throw new Error(`mask conversion: image size ${image.width}x${image.height} is not positive`);
  }
  if (viewport) {
    if (!(viewport.width > 0 && viewport.height > 0)) {
      throw new Error(
        `mask conversion: viewport ${viewport.width}x${viewport.height} is not positive; pass the page's CSS viewport`,
      );
    }
    return { scaleX: image.width / viewport.width, scaleY: image.height / viewport.height };
  }
  const ratio = frame.devicePixelRatio ?? 1;
  if (!(ratio > 0)) throw new Error(`mask conversion: devicePixelRatio ${ratio} must be a positive number`);
  return { scaleX: ratio, scaleY: ratio };
}

function assertBox(box: Box, where: string): void {
  const finite = [box.x, box.y, box.width, box.height].every(Number.isFinite);
  if (!finite || box.width < 0 || box.height < 0) {
    throw new Error(
      `${where}: mask box ${JSON.stringify(box)} needs finite x, y and non-negative width, height (CSS pixels)`,
    );
  }
}
