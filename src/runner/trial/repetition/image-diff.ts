/**
 * "Has the visible state changed?" between two captures, ignoring masked regions.
 *
 * Equal hashes mean equal images, so they short-circuit to "unchanged"; different hashes only
 * mean some bytes changed, so the pixels are decoded and compared. The comparison walks the
 * rows top-down, finds those whose unmasked bytes differ (a native memcmp per span), and hands
 * only those rows, with masked pixels blanked identically in both images, to pixelmatch, which
 * applies the per-pixel colour threshold. Once "changed" is certain it stops (rows below are
 * then never decoded). The original captures are never modified.
 */
import pixelmatch from "pixelmatch";
import { createDecodedImageCache, type Capture, type DecodedImageCache } from "./decoded-cache.js";
import { halveBoxes, rowSpans, type RowSpans } from "./mask-rows.js";
import type { Box } from "./masks.js";
import { copyRowAsRgba, toRgba, type DecodedImage } from "./png-decode.js";

export interface CompareOptions {
  /** Regions to ignore, in the captures' image pixels (see masks.ts). Applied to both. */
  masks?: readonly Box[];
  /** pixelmatch's per-pixel colour threshold, 0..1 (default 0.1); smaller is more sensitive. */
  threshold?: number;
  /**
   * Fraction of unmasked pixels that may differ and still count as unchanged (default 0.0001,
   * ~100 pixels at 1280x800). Not 0.001: at 1280x800 that allows ~1,020 pixels, and a one-line
   * status message ("Saved notes/BB-042.md" in a real Chromium screenshot) changes ~920, so
   * real feedback would pass for "unchanged". Known moving regions belong in masks instead.
   */
  maxDiffRatio?: number;
  /**
   * Compare at half size. The threshold is divided by 4 there, so a single changed pixel that
   * would count at full size still counts after 2x2 averaging (its difference is quartered).
   */
  downscale?: boolean;
  /**
   * Let pixelmatch discount pixels it takes for anti-aliasing (default false). Off because
   * captures come from one renderer, where such pixels are real changes, and the heuristic
   * can hide 1-pixel-wide lines.
   */
  ignoreAntialiasing?: boolean;
  /** Keep counting differing pixels after the answer is certain (default false: stop early). */
  exact?: boolean;
  /** Decoded-image cache shared across comparisons (the detector passes its own). */
  cache?: DecodedImageCache;
}

export interface ScreenComparison {
  changed: boolean;
  /** Differing unmasked pixels, in the compared frame (half size when downscaled). */
  diffPixels: number;
  /** Unmasked pixels, in the compared frame. */
  comparedPixels: number;
  fastPath: "identical-bytes" | "identical-hash" | null;
  ms: number;
  /** 1 at full size, 2 when downscaled. */
  scale: 1 | 2;
  /** false when counting stopped early because `changed` was already certain. */
  complete: boolean;
}

/** See CompareOptions.maxDiffRatio. */
export const DEFAULT_MAX_DIFF_RATIO = 0.0001;
/** Rows handed to pixelmatch at a time; after each batch the answer may already be certain. */
const ROWS_PER_BATCH = 32;
/** Context rows around differing rows when pixelmatch's anti-aliasing check looks at neighbours. */
const NEIGHBOUR_ROWS = 3;

/** Compares two captures after masking; see CompareOptions for the knobs. */
export function compareScreens(a: Capture, b: Capture, options: CompareOptions = {}): ScreenComparison {
  const started = performance.now();
  const threshold = checkedFraction(options.threshold ?? 0.1, "threshold");
  const maxDiffRatio = checkedFraction(options.maxDiffRatio ?? DEFAULT_MAX_DIFF_RATIO, "maxDiffRatio");
  const masks = options.masks ?? [];
  const scale: 1 | 2 = options.downscale ? 2 : 1;
  const finish = (result: Omit<ScreenComparison, "ms" | "scale">): ScreenComparison => ({
    ...result,
    scale,
    ms: performance.now() - started,
  });

  if (a.width !== b.width || a.height !== b.height) {
    return finish({
      changed: true,
      diffPixels: Math.max(a.width * a.height, b.width * b.height),
      comparedPixels: 0,
      fastPath: null,
      complete: true,
    });
  }
  const identical =
    a.sha256 && a.sha256 === b.sha256
      ? "identical-hash"
      : a.png === b.png || a.png.equals(b.png)
        ? "identical-bytes"
        : null;
  if (identical) {
    const [width, height] = scale === 2 ? [Math.ceil(a.width / 2), Math.ceil(a.height / 2)] : [a.width, a.height];
    const comparedPixels = rowSpans(width, height, scale === 2 ? halveBoxes(masks) : masks).comparedPixels;
    return finish({ changed: false, diffPixels: 0, comparedPixels, fastPath: identical, complete: true });
  }

  const cache = options.cache ?? createDecodedImageCache(2);
  let imageA = scale === 2 ? cache.half(a) : cache.full(a);
  let imageB = scale === 2 ? cache.half(b) : cache.full(b);
  if (imageA.channels !== imageB.channels) {
    // One RGB and one RGBA capture: rare (a transparent screenshot); align both as RGBA.
    [imageA, imageB] = [asRgba(imageA), asRgba(imageB)];
  }
  const spans = rowSpans(imageA.width, imageA.height, scale === 2 ? halveBoxes(masks) : masks);
  const allowed = maxDiffRatio * spans.comparedPixels;
  const pixelThreshold = scale === 2 ? threshold / 4 : threshold;
  const { diffPixels, complete } = options.ignoreAntialiasing
    ? countInBand(imageA, imageB, spans, pixelThreshold)
    : countRowByRow(imageA, imageB, spans, pixelThreshold, options.exact ? Infinity : allowed);
  return finish({
    changed: diffPixels > allowed,
    diffPixels,
    comparedPixels: spans.comparedPixels,
    fastPath: null,
    complete,
  });
}

/** Whether some unmasked byte of row y differs (exact, before any threshold; a memcmp per span). */
function rowDiffers(a: DecodedImage, b: DecodedImage, spans: RowSpans, y: number): boolean {
  const rowA = a.row(y);
  const rowB = b.row(y);
  const ch = a.channels;
  const open = spans.open(y);
  for (let i = 0; i < open.length; i += 2) {
    const from = open[i] * ch;
    const to = open[i + 1] * ch;
    if (a.data.compare(b.data, rowB + from, rowB + to, rowA + from, rowA + to) !== 0) return true;
  }
  return false;
}

/**
 * Walks the rows top-down (decoding them only now), gathers rows with differing bytes into
 * batches and lets pixelmatch count each batch; stops once the count exceeds `stopAbove`.
 * Valid without pixelmatch's anti-aliasing heuristic only: each pixel is then judged on its
 * own, so rows can be compared out of context.
 */
function countRowByRow(
  a: DecodedImage,
  b: DecodedImage,
  spans: RowSpans,
  threshold: number,
  stopAbove: number,
): { diffPixels: number; complete: boolean } {
  const rowBytes = a.width * 4;
  let batchA: Uint8Array | undefined;
  let batchB: Uint8Array | undefined;
  let inBatch = 0;
  let diffPixels = 0;
  const flush = () => {
    if (inBatch === 0 || !batchA || !batchB) return;
    const used = inBatch * rowBytes;
    diffPixels += pixelmatch(batchA.subarray(0, used), batchB.subarray(0, used), undefined, a.width, inBatch, {
      threshold,
      includeAA: true,
    });
    inBatch = 0;
  };
  for (let y = 0; y < a.height; y++) {
    if (!rowDiffers(a, b, spans, y)) continue;
    batchA ??= new Uint8Array(rowBytes * ROWS_PER_BATCH);
    batchB ??= new Uint8Array(rowBytes * ROWS_PER_BATCH);
    copyMaskedRow(a, y, spans, batchA, inBatch * rowBytes);
    copyMaskedRow(b, y, spans, batchB, inBatch * rowBytes);
    if (++inBatch === ROWS_PER_BATCH) {
      flush();
      if (diffPixels > stopAbove) return { diffPixels, complete: y === a.height - 1 };
    }
  }
  flush();
  return { diffPixels, complete: true };
}

/** Counts with pixelmatch's anti-aliasing heuristic, which needs neighbouring rows as context. */
function countInBand(
  a: DecodedImage,
  b: DecodedImage,
  spans: RowSpans,
  threshold: number,
): { diffPixels: number; complete: boolean } {
  let first = -1;
  let last = -1;
  for (let y = 0; y < a.height; y++) {
    if (!rowDiffers(a, b, spans, y)) continue;
    if (first < 0) first = y;
    last = y;
  }
  if (first < 0) return { diffPixels: 0, complete: true };
  const top = Math.max(0, first - NEIGHBOUR_ROWS);
  const bottom = Math.min(a.height, last + NEIGHBOUR_ROWS + 1);
  const rowBytes = a.width * 4;
  const bandA = new Uint8Array(rowBytes * (bottom - top));
  const bandB = new Uint8Array(bandA.length);
  for (let y = top; y < bottom; y++) {
    copyMaskedRow(a, y, spans, bandA, (y - top) * rowBytes);
    copyMaskedRow(b, y, spans, bandB, (y - top) * rowBytes);
  }
  const diffPixels = pixelmatch(bandA, bandB, undefined, a.width, bottom - top, { threshold, includeAA: false });
  return { diffPixels, complete: true };
}

/** Row y as RGBA with masked pixels blanked to transparent black (the same in both images). */
function copyMaskedRow(image: DecodedImage, y: number, spans: RowSpans, out: Uint8Array, at: number): void {
  copyRowAsRgba(image, y, out, at);
  const masked = spans.masked(y);
  for (let i = 0; i < masked.length; i += 2) out.fill(0, at + masked[i] * 4, at + masked[i + 1] * 4);
}

function asRgba(image: DecodedImage): DecodedImage {
  if (image.channels === 4) return image;
  const width = image.width;
  return { width, height: image.height, channels: 4, data: toRgba(image), row: (y) => y * width * 4 };
}

function checkedFraction(value: number, name: string): number {
  if (!(value >= 0 && value <= 1)) throw new Error(`compareScreens: ${name} must be between 0 and 1, got ${value}`);
  return value;
}
