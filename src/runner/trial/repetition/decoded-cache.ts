/**
 * A small least-recently-used cache of decoded captures (full size and half size).
 *
 * Decoding is the expensive part of a comparison, and a step compares its new capture with
 * recent ones that were already decoded for the previous step. A new capture is decoded
 * against the most recently used one (see png-decode.ts: identical rows are copied, not
 * decoded). Keys are the capture's sha256
 * (equal hashes mean equal bytes, so sharing an entry is sound); a capture without a hash is
 * cached by object identity only.
 */
import { decodePng, type DecodedImage } from "./png-decode.js";

/** One screenshot as the runner keeps it: the exact PNG bytes the model was sent. */
export interface Capture {
  png: Buffer;
  width: number;
  height: number;
  /** Hex sha256 of `png` (empty when unknown). */
  sha256: string;
}

interface Entry {
  full: DecodedImage;
  half?: DecodedImage;
}

export interface DecodedImageCache {
  /** The capture's pixels at full size (decoded at most once while cached). */
  full(capture: Capture): DecodedImage;
  /** The capture at half width and height, 2x2 box-averaged, always RGBA. */
  half(capture: Capture): DecodedImage;
  /** Number of captures held. */
  readonly size: number;
}

/** Creates a cache holding at most `capacity` decoded captures (each ~3-4 MB at 1280x800). */
export function createDecodedImageCache(capacity = 4): DecodedImageCache {
  if (!Number.isInteger(capacity) || capacity < 1) {
    throw new Error(`decoded image cache capacity must be a positive integer, got ${capacity}`);
  }
  const byHash = new Map<string, Entry>();
  const byObject = new WeakMap<Capture, Entry>();

  let mostRecent: DecodedImage | undefined;
  const decode = (capture: Capture): Entry => {
    const full = decodeChecked(capture, mostRecent);
    mostRecent = full;
    return { full };
  };
  const entryFor = (capture: Capture): Entry => {
    const key = capture.sha256;
    if (!key) {
      let entry = byObject.get(capture);
      if (!entry) byObject.set(capture, (entry = decode(capture)));
      return entry;
    }
    let entry = byHash.get(key);
    if (entry) {
      byHash.delete(key); // re-insert: Map order is the recency order
      mostRecent = entry.full;
    } else {
      entry = decode(capture);
    }
    byHash.set(key, entry);
    while (byHash.size > capacity) byHash.delete(byHash.keys().next().value as string);
    return entry;
  };

  return {
    full: (capture) => entryFor(capture).full,
    half(capture) {
      const entry = entryFor(capture);
      entry.half ??= halve(entry.full);
      return entry.half;
    },
    get size() {
      return byHash.size;
    },
  };
}

function decodeChecked(capture: Capture, reference: DecodedImage | undefined): DecodedImage {
  const image = decodePng(capture.png, reference);
  if (image.width !== capture.width || image.height !== capture.height) {
    throw new Error(
      `capture says ${capture.width}x${capture.height} but its PNG is ${image.width}x${image.height}; ` +
        "set width/height from the PNG header",
    );
  }
  return image;
}

/**
 * Halves both dimensions by averaging each 2x2 block (an odd last row or column averages
 * with itself). One pass over the source; the output is packed RGBA.
 */
export function halve(image: DecodedImage): DecodedImage {
  const { width, height, channels, data } = image;
  const halfWidth = Math.ceil(width / 2);
  const halfHeight = Math.ceil(height / 2);
  const out = Buffer.allocUnsafe(halfWidth * halfHeight * 4);
  for (let hy = 0; hy < halfHeight; hy++) {
    const top = image.row(2 * hy);
    const bottom = image.row(Math.min(2 * hy + 1, height - 1));
    let dst = hy * halfWidth * 4;
    for (let hx = 0; hx < halfWidth; hx++, dst += 4) {
      const left = 2 * hx * channels;
      const right = Math.min(2 * hx + 1, width - 1) * channels;
      for (let c = 0; c < 3; c++) {
        out[dst + c] =
          (data[top + left + c] + data[top + right + c] + data[bottom + left + c] + data[bottom + right + c] + 2) >> 2;
      }
      out[dst + 3] =
        channels === 4
          ? (data[top + left + 3] + data[top + right + 3] + data[bottom + left + 3] + data[bottom + right + 3] + 2) >> 2
          : 255;
    }
  }
  return { width: halfWidth, height: halfHeight, channels: 4, data: out, row: (y) => y * halfWidth * 4 };
}
