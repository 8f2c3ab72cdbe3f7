/**
 * The image sizing the Qwen-VL family (and UI-TARS, built on it) applies before the model sees a
 * screenshot, ported from `smart_resize` in qwen-vl-utils (QwenLM/Qwen2.5-VL and QwenLM/Qwen3-VL,
 * `qwen-vl-utils/src/qwen_vl_utils/vision_process.py`): both sides a multiple of `factor`, the
 * pixel count within [minPixels, maxPixels], the aspect ratio kept as closely as that allows.
 * A model that answers in absolute pixels (Qwen2.5-VL, UI-TARS-1.5) answers in THIS frame, so
 * umpire must compute it exactly as the server does, Python's rounding included.
 *
 * Also the pixel size of a screenshot read from its header (PNG, JPEG, WebP), so a protocol can
 * size its frame from the bytes it sends without decoding them.
 */
import type { Observation } from "../history.js";
import { resizeScreenshot } from "./screenshot-scale.js";

/** Qwen2.5-VL's processor: 14 px patches merged 2x2 (`preprocessor_config.json`). */
export const QWEN25_FACTOR = 28;
/** Qwen3-VL's processor: 16 px patches merged 2x2. */
export const QWEN3_FACTOR = 32;
/** qwen-vl-utils' defaults for a factor of 28: 4 and 16384 merged patches. */
export const QWEN25_MIN_PIXELS = 4 * 28 * 28;
export const QWEN25_MAX_PIXELS = 16384 * 28 * 28;
/** Qwen3-VL's qwen-vl-utils defaults for images: 4 and 16384 merged patches of 32 px. */
export const QWEN3_MIN_PIXELS = 4 * 32 * 32;
export const QWEN3_MAX_PIXELS = 16384 * 32 * 32;
/** qwen-vl-utils refuses images more elongated than this. */
export const MAX_RATIO = 200;

export interface Size {
  width: number;
  height: number;
}

/**
 * Python 3's `round()`: halves go to the even neighbour (`round(2.5) == 2`), unlike `Math.round`.
 * smart_resize rounds `side / factor`, and a viewport such as 1274 px (45.5 x 28) is a half case.
 */
export function pythonRound(value: number): number {
  const floor = Math.floor(value);
  const diff = value - floor;
  if (diff > 0.5) return floor + 1;
  if (diff < 0.5) return floor;
  return floor % 2 === 0 ? floor : floor + 1;
}

/** `smart_resize(height, width, factor, min_pixels, max_pixels)`, returned as {width, height}. */
export function smartResize(size: Size, factor: number, minPixels: number, maxPixels: number): Size {
  const { width, height } = size;
  if (Math.max(height, width) / Math.min(height, width) > MAX_RATIO) {
    throw new Error(
      `absolute aspect ratio must be smaller than ${MAX_RATIO}, got ${Math.max(height, width) / Math.min(height, width)}`,
    );
  }
  let hBar = Math.max(factor, pythonRound(height / factor) * factor);
  let wBar = Math.max(factor, pythonRound(width / factor) * factor);
  if (hBar * wBar > maxPixels) {
    const beta = Math.sqrt((height * width) / maxPixels);
    hBar = Math.floor(height / beta / factor) * factor;
    wBar = Math.floor(width / beta / factor) * factor;
  } else if (hBar * wBar < minPixels) {
    const beta = Math.sqrt(minPixels / (height * width));
    hBar = Math.ceil((height * beta) / factor) * factor;
    wBar = Math.ceil((width * beta) / factor) * factor;
  }
  return { width: wBar, height: hBar };
}

/** Pixel size of a PNG, JPEG or WebP image from its header; null when the bytes are none of those. */
export function imageSize(bytes: Uint8Array): Size | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const ascii = (start: number, length: number) => String.fromCharCode(...bytes.subarray(start, start + length));
  if (bytes.length >= 24 && bytes[0] === 0x89 && ascii(1, 3) === "PNG" && ascii(12, 4) === "IHDR") {
    return { width: view.getUint32(16), height: view.getUint32(20) };
  }
  if (bytes.length >= 30 && ascii(0, 4) === "RIFF" && ascii(8, 4) === "WEBP") {
    const chunk = ascii(12, 4);
    if (chunk === "VP8 ")
      return { width: view.getUint16(26, true) & 0x3fff, height: view.getUint16(28, true) & 0x3fff };
    if (chunk === "VP8L") {
      const bits = view.getUint32(21, true);
      return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
    }
    if (chunk === "VP8X") {
      return {
        width: 1 + (bytes[24]! | (bytes[25]! << 8) | (bytes[26]! << 16)),
        height: 1 + (bytes[27]! | (bytes[28]! << 8) | (bytes[29]! << 16)),
      };
    }
    return null;
  }
  if (bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8) {
    // Walk the segments to the first start-of-frame marker (SOF0..SOF15 except DHT, JPG, DAC).
    let offset = 2;
    while (offset + 9 < bytes.length && bytes[offset] === 0xff) {
      const marker = bytes[offset + 1]!;
      if (marker === 0xff) {
        offset += 1;
        continue;
      }
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { width: view.getUint16(offset + 7), height: view.getUint16(offset + 5) };
      }
      offset += 2 + view.getUint16(offset + 2);
    }
  }
  return null;
}

/** A family's smart_resize: its factor and its own pixel bounds. */
export interface PixelBounds {
  factor: number;
  min: number;
  max: number;
}

/**
 * The bounds an agent's `minPixels`/`maxPixels` ask for within the family's own, or null when it
 * sets neither (the screenshot then goes as it is and the server resizes it by its own bounds).
 */
export function agentPixelBounds(
  family: PixelBounds,
  config: { minPixels?: number; maxPixels?: number },
): PixelBounds | null {
  if (config.minPixels === undefined && config.maxPixels === undefined) return null;
  return { factor: family.factor, min: config.minPixels ?? family.min, max: config.maxPixels ?? family.max };
}

/**
 * The observation with its screenshot smart-resized by `bounds` before sending: both sides multiples
 * of the factor, the pixels within [min, max]. The server's own smart_resize then leaves it as it
 * is (the agent's bounds lie within the family's), so the model's pixels are in exactly this picture.
 */
export function resizedToBounds(observation: Observation, bounds: PixelBounds | null): Observation {
  if (!bounds || !observation.screenshot) return observation;
  const sent = resizeScreenshot(observation.screenshot.data, (width, height) =>
    smartResize({ width, height }, bounds.factor, bounds.min, bounds.max),
  );
  return { ...observation, screenshot: { ...observation.screenshot, data: sent.base64 } };
}

/** The size of a screenshot given as bytes or base64 (as an `Observation` carries it). */
export function screenshotSize(data: Uint8Array | string): Size | null {
  const bytes = typeof data === "string" ? Buffer.from(data.slice(0, 65_536), "base64") : data;
  return imageSize(bytes);
}
