/**
 * Anthropic's recommended screenshot scaling for computer use: the API downsizes any image whose
 * long edge is over 1568 px or whose area is over about 1.15 megapixels, and Claude's coordinates are
 * then in the downsized picture, not the declared display. So umpire scales the screenshot itself,
 * by the one factor that satisfies both limits, declares the scaled size as the display, and maps
 * Claude's pixels against it (the same picture the model saw).
 */
import { PNG } from "pngjs";
import { imageSize } from "./image-size.js";

export const MAX_LONG_EDGE = 1568;
export const MAX_PIXELS = 1_150_000;

/**
 * The size a `width` x `height` screenshot is sent at (never larger than it was): the largest within
 * both limits with exactly the screenshot's aspect ratio (a multiple of width:height in lowest terms,
 * when one fits), so a pixel of the sent picture stands for the same fraction of the page on both axes.
 */
export function scaledSize(
  width: number,
  height: number,
  box?: { width: number; height: number },
): { width: number; height: number; factor: number } {
  const limit = Math.min(MAX_LONG_EDGE / Math.max(width, height), Math.sqrt(MAX_PIXELS / (width * height)));
  return sizeAt(width, height, Math.min(limit, fitFactor(width, height, box)));
}

/**
 * The size a `width` x `height` screenshot is sent at to fit a declared display `box` (an agent's
 * `displaySize`): the largest within the box with the screenshot's aspect ratio, never larger than it was.
 */
export function fittedSize(
  width: number,
  height: number,
  box: { width: number; height: number } | undefined,
): { width: number; height: number; factor: number } {
  return sizeAt(width, height, fitFactor(width, height, box));
}

function fitFactor(width: number, height: number, box: { width: number; height: number } | undefined): number {
  return box ? Math.min(1, box.width / width, box.height / height) : 1;
}

function sizeAt(width: number, height: number, scale: number): { width: number; height: number; factor: number } {
  const factor = Math.min(1, scale);
  if (factor === 1) return { width, height, factor };
  const g = gcd(width, height);
  const k = Math.floor((width * factor) / (width / g));
  if (k >= 1 && (width / g) * k >= 64) return { width: (width / g) * k, height: (height / g) * k, factor: k / g };
  return { width: Math.floor(width * factor), height: Math.floor(height * factor), factor };
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/**
 * The screenshot as Anthropic's scaling sends it (base64 PNG), fitted into `box` too when one is
 * given, and its size. A PNG over the limits is resampled by area averaging; anything else (JPEG) is
 * sent as it is, at its own size.
 */
export function scaleScreenshot(
  data: Uint8Array | string,
  box?: { width: number; height: number },
): { base64: string; width: number; height: number } {
  return resizeScreenshot(data, (w, h) => scaledSize(w, h, box));
}

/**
 * The screenshot resized to the size `target` gives for its own (a PNG resampled by area averaging,
 * or repeated pixels where it grows), as base64 with its size; unchanged when the size is the same
 * or the bytes are no PNG (JPEG is sent as it is, at its own size).
 */
export function resizeScreenshot(
  data: Uint8Array | string,
  target: (width: number, height: number) => { width: number; height: number },
): { base64: string; width: number; height: number } {
  const bytes = typeof data === "string" ? Buffer.from(data, "base64") : Buffer.from(data);
  const size = imageSize(bytes) ?? { width: 0, height: 0 };
  const to = target(size.width || 1, size.height || 1);
  if ((to.width === size.width && to.height === size.height) || bytes.readUInt32BE(0) !== 0x89504e47) {
    return { base64: bytes.toString("base64"), width: size.width, height: size.height };
  }
  return { base64: resamplePng(bytes, to).toString("base64"), width: to.width, height: to.height };
}

function resamplePng(bytes: Buffer, target: { width: number; height: number }): Buffer {
  const source = PNG.sync.read(bytes);
  const out = new PNG({ width: target.width, height: target.height });
  const sx = source.width / target.width;
  const sy = source.height / target.height;
  for (let y = 0; y < target.height; y++) {
    const y0 = Math.floor(y * sy);
    const y1 = Math.max(y0 + 1, Math.floor((y + 1) * sy));
    for (let x = 0; x < target.width; x++) {
      const x0 = Math.floor(x * sx);
      const x1 = Math.max(x0 + 1, Math.floor((x + 1) * sx));
      const sum = [0, 0, 0, 0];
      for (let yy = y0; yy < y1; yy++) {
        for (let xx = x0; xx < x1; xx++) {
          const i = (yy * source.width + xx) * 4;
          for (let c = 0; c < 4; c++) sum[c]! += source.data[i + c]!;
        }
      }
      const n = (y1 - y0) * (x1 - x0);
      const o = (y * target.width + x) * 4;
      for (let c = 0; c < 4; c++) out.data[o + c] = Math.round(sum[c]! / n);
    }
  }
  return PNG.sync.write(out);
}
