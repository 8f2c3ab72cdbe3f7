/**
 * PNG decoding for screen comparison: lazy, and relative to the previous capture.
 *
 * Why not just pngjs: on this machine `PNG.sync.read` costs ~25-45 ms of CPU for one 1280x800
 * Chromium screenshot, most of it JavaScript stream plumbing around a ~5 ms native inflate.
 * Chromium writes 8-bit, non-interlaced RGB or RGBA PNGs, so this module decodes exactly that
 * case itself and hands everything else (palettes, grey, 16-bit, interlaced, tRNS) to pngjs.
 * The tests check that both give identical pixels.
 *
 * Two savings on top:
 * - Rows are unfiltered on demand (`row(y)`), so a comparison that is certain after the top
 *   of the screen never pays for the rest.
 * - A capture may be decoded against a reference (the previous capture of the same size). A
 *   PNG row's filtered bytes depend only on that row and the one above, and the encoder is
 *   deterministic, so when the row above is known to equal the reference's and this row's
 *   filtered bytes equal the reference's, the row's pixels are the reference's: copied with a
 *   native memcpy instead of unfiltered. On an unchanged screen that is almost every row.
 */
import { inflateSync } from "node:zlib";
import { PNG } from "pngjs";

/** Decoded pixels; row y starts at `data[row(y)]`, `channels` bytes per pixel, no padding. */
export interface DecodedImage {
  readonly width: number;
  readonly height: number;
  /** 3 (RGB, alpha implicitly 255) or 4 (RGBA). */
  readonly channels: 3 | 4;
  readonly data: Buffer;
  /** Makes rows 0..y available and returns the offset of row y in `data`. */
  row(y: number): number;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

interface Header {
  width: number;
  height: number;
  bitDepth: number;
  colorType: number;
  interlace: number;
}

/**
 * Decodes a PNG; rows are unfiltered when first asked for. `reference`, if given, is a
 * previously decoded capture to copy identical rows from (it must not be modified later).
 * Throws an Error saying what is wrong when the bytes are not a usable PNG.
 */
export function decodePng(png: Buffer, reference?: DecodedImage): DecodedImage {
  if (png.length < 33 || !png.subarray(0, 8).equals(PNG_SIGNATURE)) {
    throw new Error("screen capture is not a PNG (bad signature); captures must be PNG screenshots");
  }
  const { header, idat, hasTransparency } = readChunks(png);
  const fastCase =
    header.bitDepth === 8 &&
    (header.colorType === 2 || header.colorType === 6) &&
    header.interlace === 0 &&
    !hasTransparency;
  if (!fastCase) return decodeWithPngjs(png);
  // One output chunk of the known size: zlib's default 16 KB chunks cost a concat and GC churn.
  const expected = (header.width * (header.colorType === 6 ? 4 : 3) + 1) * header.height;
  const filtered = inflateSync(idat.length === 1 ? idat[0] : Buffer.concat(idat), { chunkSize: expected + 1024 });
  return new LazyTrueColourImage(header, filtered, reference instanceof LazyTrueColourImage ? reference : undefined);
}

function readChunks(png: Buffer): { header: Header; idat: Buffer[]; hasTransparency: boolean } {
  let header: Header | undefined;
  const idat: Buffer[] = [];
  let hasTransparency = false;
  let offset = 8;
  while (offset + 8 <= png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString("latin1", offset + 4, offset + 8);
    const body = offset + 8;
    if (body + length > png.length) throw new Error(`screen capture PNG is truncated inside its ${type} chunk`);
    if (type === "IHDR") {
      header = {
        width: png.readUInt32BE(body),
        height: png.readUInt32BE(body + 4),
        bitDepth: png[body + 8],
        colorType: png[body + 9],
        interlace: png[body + 12],
      };
    } else if (type === "IDAT") {
      idat.push(png.subarray(body, body + length));
    } else if (type === "tRNS") {
      hasTransparency = true;
    } else if (type === "IEND") {
      break;
    }
    offset = body + length + 4; // + CRC
  }
  if (!header) throw new Error("screen capture PNG has no IHDR chunk");
  if (idat.length === 0) throw new Error("screen capture PNG has no image data (IDAT)");
  return { header, idat, hasTransparency };
}

class LazyTrueColourImage implements DecodedImage {
  readonly width: number;
  readonly height: number;
  readonly channels: 3 | 4;
  readonly data: Buffer;
  /** The inflated stream: each row is a filter byte then `stride` filtered bytes. */
  readonly filtered: Buffer;
  private readonly stride: number;
  private decodedRows = 0;
  /** Rows copied from the reference instead of unfiltered (diagnostics and tests). */
  reusedRows = 0;
  private reference: LazyTrueColourImage | undefined;
  /** Per row: 1 when this row's pixels are known to equal the reference's. */
  private sameAsReference: Uint8Array | undefined;

  constructor(header: Header, filtered: Buffer, reference: LazyTrueColourImage | undefined) {
    this.width = header.width;
    this.height = header.height;
    this.channels = header.colorType === 6 ? 4 : 3;
    this.stride = this.width * this.channels;
    if (filtered.length < (this.stride + 1) * this.height) {
      throw new Error(
        `screen capture PNG holds ${filtered.length} bytes of pixels, expected ${(this.stride + 1) * this.height}`,
      );
    }
    this.filtered = filtered;
    this.data = Buffer.allocUnsafe(this.stride * this.height);
    if (
      reference &&
      reference.width === this.width &&
      reference.height === this.height &&
      reference.channels === this.channels
    ) {
      this.reference = reference;
      this.sameAsReference = new Uint8Array(this.height);
      // Keep chains one link long: the reference finishes its own rows without a reference.
      reference.dropReference();
    }
  }

  row(y: number): number {
    if (y >= this.decodedRows) this.decodeThrough(Math.min(y, this.height - 1));
    return y * this.stride;
  }

  private dropReference(): void {
    this.reference = undefined;
    this.sameAsReference = undefined;
  }

  private decodeThrough(last: number): void {
    const { stride, filtered, data } = this;
    for (let y = this.decodedRows; y <= last; y++) {
      const src = y * (stride + 1);
      const dst = y * stride;
      const reference = this.reference;
      const same = this.sameAsReference;
      if (reference && same) {
        const refRow = reference.row(y);
        const aboveSame = y === 0 || same[y - 1] === 1;
        if (aboveSame && filtered.compare(reference.filtered, src, src + stride + 1, src, src + stride + 1) === 0) {
          reference.data.copy(data, dst, refRow, refRow + stride);
          same[y] = 1;
          this.reusedRows++;
          continue;
        }
        unfilterRow(filtered, src + 1, filtered[src], data, dst, y === 0 ? -1 : dst - stride, stride, this.channels);
        // Re-synchronise: below a changed caret the rows are equal again, and so is the shortcut.
        same[y] = data.compare(reference.data, refRow, refRow + stride, dst, dst + stride) === 0 ? 1 : 0;
        continue;
      }
      unfilterRow(filtered, src + 1, filtered[src], data, dst, y === 0 ? -1 : dst - stride, stride, this.channels);
    }
    this.decodedRows = last + 1;
    if (this.decodedRows === this.height) this.dropReference();
  }
}

/**
 * Undoes one scanline's filter: reads `stride` bytes at `src`, writes pixels at `dst`, with the
 * row above at `prev` in `out` (-1 for the first row, treated as zeros).
 */
function unfilterRow(
  inp: Buffer,
  src: number,
  filter: number,
  out: Buffer,
  dst: number,
  prev: number,
  stride: number,
  bpp: number,
): void {
  switch (filter) {
    case 0:
      inp.copy(out, dst, src, src + stride);
      return;
    case 1: // Sub
      for (let i = 0; i < bpp; i++) out[dst + i] = inp[src + i];
      for (let i = bpp; i < stride; i++) out[dst + i] = (inp[src + i] + out[dst + i - bpp]) & 0xff;
      return;
    case 2: // Up
      if (prev < 0) return void inp.copy(out, dst, src, src + stride);
      for (let i = 0; i < stride; i++) out[dst + i] = (inp[src + i] + out[prev + i]) & 0xff;
      return;
    case 3: // Average
      if (prev < 0) {
        for (let i = 0; i < bpp; i++) out[dst + i] = inp[src + i];
        for (let i = bpp; i < stride; i++) out[dst + i] = (inp[src + i] + (out[dst + i - bpp] >> 1)) & 0xff;
        return;
      }
      for (let i = 0; i < bpp; i++) out[dst + i] = (inp[src + i] + (out[prev + i] >> 1)) & 0xff;
      for (let i = bpp; i < stride; i++)
        out[dst + i] = (inp[src + i] + ((out[dst + i - bpp] + out[prev + i]) >> 1)) & 0xff;
      return;
    case 4: // Paeth
      if (prev < 0) {
        // With no row above, Paeth reduces to Sub.
        for (let i = 0; i < bpp; i++) out[dst + i] = inp[src + i];
        for (let i = bpp; i < stride; i++) out[dst + i] = (inp[src + i] + out[dst + i - bpp]) & 0xff;
        return;
      }
      for (let i = 0; i < bpp; i++) out[dst + i] = (inp[src + i] + out[prev + i]) & 0xff;
      for (let i = bpp; i < stride; i++) {
        const a = out[dst + i - bpp];
        const b = out[prev + i];
        const c = out[prev + i - bpp];
        const pa = b > c ? b - c : c - b;
        const pb = a > c ? a - c : c - a;
        const p = a + b - c - c;
        const pc = p < 0 ? -p : p;
        out[dst + i] = (inp[src + i] + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c)) & 0xff;
      }
      return;
    default:
      throw new Error(`screen capture PNG uses unknown scanline filter ${filter}`);
  }
}

/** How many rows of `image` were copied from its reference rather than decoded (0 if none). */
export function reusedRowCount(image: DecodedImage): number {
  return image instanceof LazyTrueColourImage ? image.reusedRows : 0;
}

function decodeWithPngjs(png: Buffer): DecodedImage {
  const { width, height, data } = PNG.sync.read(png);
  return { width, height, channels: 4, data, row: (y) => y * width * 4 };
}

/** Copies the image out as tightly packed RGBA (what pixelmatch and most tools expect). */
export function toRgba(image: DecodedImage): Buffer {
  const out = Buffer.alloc(image.width * image.height * 4);
  for (let y = 0; y < image.height; y++) copyRowAsRgba(image, y, out, y * image.width * 4);
  return out;
}

/** Writes row `y` of `image` as RGBA into `out` at byte `at`. */
export function copyRowAsRgba(image: DecodedImage, y: number, out: Uint8Array, at: number): void {
  const { width, channels, data } = image;
  let src = image.row(y);
  if (channels === 4) {
    out.set(data.subarray(src, src + width * 4), at);
    return;
  }
  for (let x = 0, dst = at; x < width; x++, src += 3, dst += 4) {
    out[dst] = data[src];
    out[dst + 1] = data[src + 1];
    out[dst + 2] = data[src + 2];
    out[dst + 3] = 255;
  }
}
