/**
 * Generated page-like screenshots for the repetition tests: a 1280x800 page with a header and
 * clock, lines of "text", a note form with a Save button, an optional cookie dialog covering
 * it, a text caret and a loading spinner. Everything is drawn into RGBA and encoded with pngjs.
 */
import { createHash } from "node:crypto";
import { PNG, type PackerOptions } from "pngjs";
import type { Capture } from "../../../src/runner/trial/repetition/decoded-cache.js";

export type Rgb = [number, number, number];

export interface Raster {
  width: number;
  height: number;
  data: Buffer;
}

export interface PageState {
  dialog?: boolean;
  caret?: boolean;
  /** Clock text seed: changes the header clock's glyphs. */
  clock?: number;
  /** Spinner rotation in quarter turns; undefined draws no spinner. */
  spinner?: number;
  /** Extra text line under the form (e.g. a status message), seeded. */
  status?: number;
}

export const WIDTH = 1280;
export const HEIGHT = 800;

/** CSS-pixel regions of the page's moving parts (DPR 1, so also image pixels). */
export const REGIONS = {
  clock: { x: 1140, y: 14, width: 110, height: 24 },
  caret: { x: 300, y: 352, width: 2, height: 22 },
  spinner: { x: 592, y: 560, width: 96, height: 96 },
  dialog: { x: 390, y: 250, width: 500, height: 260 },
  save: { x: 240, y: 460, width: 120, height: 40 },
};

export function createRaster(width: number, height: number, background: Rgb = [255, 255, 255]): Raster {
  const data = Buffer.alloc(width * height * 4);
  for (let i = 0; i < data.length; i += 4) {
    data[i] = background[0];
    data[i + 1] = background[1];
    data[i + 2] = background[2];
    data[i + 3] = 255;
  }
  return { width, height, data };
}

export function fillRect(r: Raster, x: number, y: number, w: number, h: number, colour: Rgb, alpha = 255): void {
  for (let yy = Math.max(0, y); yy < Math.min(r.height, y + h); yy++) {
    for (let xx = Math.max(0, x); xx < Math.min(r.width, x + w); xx++) setPixel(r, xx, yy, colour, alpha);
  }
}

export function setPixel(r: Raster, x: number, y: number, colour: Rgb, alpha = 255): void {
  const i = (y * r.width + x) * 4;
  const k = alpha / 255;
  for (let c = 0; c < 3; c++) r.data[i + c] = Math.round(colour[c] * k + r.data[i + c] * (1 - k));
  r.data[i + 3] = 255;
}

/** Glyph-like blocks with soft edges, deterministic in `seed`: stands in for a line of text. */
export function drawText(
  r: Raster,
  x: number,
  y: number,
  chars: number,
  seed: number,
  colour: Rgb = [30, 30, 40],
): void {
  let s = seed * 9301 + 49297;
  const next = () => (s = (s * 9301 + 49297) % 233280) / 233280;
  let cx = x;
  for (let i = 0; i < chars; i++) {
    const w = 5 + Math.floor(next() * 4);
    const h = 8 + Math.floor(next() * 6);
    if (next() > 0.15) {
      fillRect(r, cx, y + 14 - h, w, h, colour);
      fillRect(r, cx - 1, y + 14 - h, 1, h, colour, 90); // anti-aliased edge
    }
    cx += w + 3;
  }
}

function drawSpinner(r: Raster, quarterTurns: number): void {
  const { x, y, width } = REGIONS.spinner;
  const cx = x + width / 2;
  const cy = y + width / 2;
  const start = (quarterTurns % 4) * (Math.PI / 2);
  for (let yy = y; yy < y + width; yy++) {
    for (let xx = x; xx < x + width; xx++) {
      const d = Math.hypot(xx + 0.5 - cx, yy + 0.5 - cy);
      if (d < 36 || d > 48) continue;
      const angle = (Math.atan2(yy + 0.5 - cy, xx + 0.5 - cx) - start + 4 * Math.PI) % (2 * Math.PI);
      if (angle < (3 * Math.PI) / 2) setPixel(r, xx, yy, [40, 110, 220]);
    }
  }
}

/** Draws the page in the given state. */
export function drawPage(state: PageState = {}): Raster {
  const r = createRaster(WIDTH, HEIGHT, [250, 250, 252]);
  fillRect(r, 0, 0, WIDTH, 52, [24, 40, 64]);
  drawText(r, 24, 18, 14, 1, [240, 240, 240]);
  drawText(r, REGIONS.clock.x + 4, REGIONS.clock.y + 4, 10, 100 + (state.clock ?? 0), [240, 240, 240]);
  for (let line = 0; line < 8; line++) drawText(r, 40, 90 + line * 26, 60 + ((line * 7) % 30), 10 + line);
  // The note form: a name input (with the caret) and Save.
  fillRect(r, 238, 346, 404, 34, [120, 120, 130]);
  fillRect(r, 240, 348, 400, 30, [255, 255, 255]);
  drawText(r, 248, 354, 6, 42);
  if (state.caret) fillRect(r, REGIONS.caret.x, REGIONS.caret.y, REGIONS.caret.width, REGIONS.caret.height, [0, 0, 0]);
  const save = REGIONS.save;
  fillRect(r, save.x, save.y, save.width, save.height, [30, 110, 60]);
  drawText(r, save.x + 30, save.y + 12, 5, 7, [255, 255, 255]);
  if (state.status !== undefined) drawText(r, 240, 520, 24, 500 + state.status, [20, 100, 40]);
  if (state.spinner !== undefined) drawSpinner(r, state.spinner);
  if (state.dialog) {
    fillRect(r, 0, 52, WIDTH, HEIGHT - 52, [0, 0, 0], 80); // scrim
    const d = REGIONS.dialog;
    fillRect(r, d.x + 6, d.y + 6, d.width, d.height, [0, 0, 0], 60); // shadow
    fillRect(r, d.x, d.y, d.width, d.height, [255, 255, 255]);
    for (let line = 0; line < 4; line++) drawText(r, d.x + 24, d.y + 30 + line * 26, 50, 200 + line);
    fillRect(r, d.x + 24, d.y + d.height - 60, 140, 40, [200, 60, 60]);
    fillRect(r, d.x + d.width - 164, d.y + d.height - 60, 140, 40, [60, 120, 200]);
  }
  return r;
}

/** Encodes a raster as a capture (PNG bytes + hash), as the runner would hold a screenshot. */
export function toCapture(r: Raster, options: PackerOptions = {}): Capture {
  const png = PNG.sync.write(Object.assign(new PNG({ width: r.width, height: r.height }), { data: r.data }), {
    colorType: 2,
    ...options,
  });
  return { png, width: r.width, height: r.height, sha256: createHash("sha256").update(png).digest("hex") };
}

/** Copies a raster (to change a pixel without touching the original). */
export function cloneRaster(r: Raster): Raster {
  return { width: r.width, height: r.height, data: Buffer.from(r.data) };
}
