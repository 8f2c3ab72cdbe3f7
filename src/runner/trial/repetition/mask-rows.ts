/**
 * Masks turned into per-row spans, the shape a row-by-row comparison wants.
 *
 * Rows between two box edges share the same spans, so spans are computed once per band of
 * rows rather than once per row.
 */
import type { Box } from "./masks.js";

export interface RowSpans {
  /** Pixels outside every mask. */
  comparedPixels: number;
  /** Unmasked spans of row y as flat [start, end) pairs. */
  open(y: number): Int32Array;
  /** Masked spans of row y as flat [start, end) pairs (merged, sorted). */
  masked(y: number): Int32Array;
}

/** Builds the spans of a width x height image under `masks` (image pixels; clipped here). */
export function rowSpans(width: number, height: number, masks: readonly Box[]): RowSpans {
  const clipped = masks
    .map((box) => ({
      x0: Math.max(0, Math.floor(box.x)),
      y0: Math.max(0, Math.floor(box.y)),
      x1: Math.min(width, Math.ceil(box.x + box.width)),
      y1: Math.min(height, Math.ceil(box.y + box.height)),
    }))
    .filter((b) => b.x1 > b.x0 && b.y1 > b.y0);

  const edges = [...new Set([0, height, ...clipped.flatMap((b) => [b.y0, b.y1])])].sort((p, q) => p - q);
  const bandOfRow = new Int32Array(height);
  const openByBand: Int32Array[] = [];
  const maskedByBand: Int32Array[] = [];
  let comparedPixels = 0;

  for (let band = 0; band + 1 < edges.length; band++) {
    const top = edges[band];
    const bottom = edges[band + 1];
    const covering = clipped.filter((b) => b.y0 <= top && b.y1 >= bottom).sort((p, q) => p.x0 - q.x0);
    const masked: number[] = [];
    for (const b of covering) {
      const last = masked.length - 1;
      if (last > 0 && b.x0 <= masked[last]) masked[last] = Math.max(masked[last], b.x1);
      else masked.push(b.x0, b.x1);
    }
    const open: number[] = [];
    let cursor = 0;
    for (let i = 0; i < masked.length; i += 2) {
      if (masked[i] > cursor) open.push(cursor, masked[i]);
      cursor = masked[i + 1];
    }
    if (cursor < width) open.push(cursor, width);
    let openWidth = 0;
    for (let i = 0; i < open.length; i += 2) openWidth += open[i + 1] - open[i];
    comparedPixels += openWidth * (bottom - top);
    openByBand.push(Int32Array.from(open));
    maskedByBand.push(Int32Array.from(masked));
    bandOfRow.fill(band, top, bottom);
  }

  return {
    comparedPixels,
    open: (y) => openByBand[bandOfRow[y]],
    masked: (y) => maskedByBand[bandOfRow[y]],
  };
}

/** Maps image-pixel boxes to the half-size frame, growing them to cover every touched 2x2 block. */
export function halveBoxes(masks: readonly Box[]): Box[] {
  return masks.map((box) => {
    const x0 = Math.floor(box.x / 2);
    const y0 = Math.floor(box.y / 2);
    const x1 = Math.ceil((box.x + box.width) / 2);
    const y1 = Math.ceil((box.y + box.height) / 2);
    return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
  });
}
