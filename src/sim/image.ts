/**
 * Images as they arrive in chat-completions requests: base64 data URIs of PNG, JPEG or WebP.
 * The reference model reads an image's pixel size from its header (never decoding pixels)
 * to ground clicks in the screenshot's own frame, and the lint checks that images decode.
 */

export type ImageFormat = "png" | "jpeg" | "webp";

export interface ImageInfo {
  format: ImageFormat;
  width: number;
  height: number;
}

export interface DataUri {
  mime: string;
  bytes: Buffer;
}

const DATA_URI_HEAD = /^data:([^;,]*)((?:;[^;,]*)*);base64$/i;
/** Base64 characters enough for any header we read (JPEG frame markers can follow a large EXIF block). */
const HEAD_CHARS = 65_536;

/** The media type and base64 payload of a `data:` URI, without decoding (cheap on megabyte strings). */
export function parseDataUri(url: string): { mime: string; payload: string } | null {
  const comma = url.indexOf(",");
  if (comma < 0 || comma > 256) return null;
  const head = DATA_URI_HEAD.exec(url.slice(0, comma));
  if (!head) return null;
  return { mime: head[1].toLowerCase(), payload: url.slice(comma + 1) };
}

/**
 * Decodes a base64 `data:` URI; null for anything else (remote URLs, bad base64). Node's decoder
 * skips characters outside the alphabet, so a decoded length short of what the payload's
 * length implies means the payload was not clean base64.
 */
export function decodeDataUri(url: string): DataUri | null {
  const parsed = parseDataUri(url);
  if (!parsed || parsed.payload.length === 0) return null;
  const { payload } = parsed;
  const padding = payload.endsWith("==") ? 2 : payload.endsWith("=") ? 1 : 0;
  const bytes = Buffer.from(payload, "base64");
  if (payload.length % 4 === 1 || bytes.length !== Math.floor((payload.length * 3) / 4) - padding) return null;
  return { mime: parsed.mime, bytes };
}

/** Format and pixel size of a data-URI image, decoding only the head of the payload. */
export function dataUriImageInfo(url: string): ImageInfo | null {
  const parsed = parseDataUri(url);
  if (!parsed) return null;
  return readImageInfo(Buffer.from(parsed.payload.slice(0, HEAD_CHARS), "base64"));
}

/** Which of the three accepted formats the bytes are, from their magic numbers. */
export function sniffImageFormat(bytes: Uint8Array): ImageFormat | null {
  if (
    bytes.length >= 8 &&
    bytes[0] === 0x89 &&
    bytes[1] === 0x50 &&
    bytes[2] === 0x4e &&
    bytes[3] === 0x47 &&
    bytes[4] === 0x0d &&
    bytes[5] === 0x0a &&
    bytes[6] === 0x1a &&
    bytes[7] === 0x0a
  )
    return "png";
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "jpeg";
  if (bytes.length >= 12 && ascii(bytes, 0, 4) === "RIFF" && ascii(bytes, 8, 4) === "WEBP") return "webp";
  return null;
}

/**
 * Pixel size of a PNG, JPEG or WebP image read from its header; null when the bytes are not
 * one of those or the header is cut short.
 */
export function readImageInfo(bytes: Uint8Array): ImageInfo | null {
  const format = sniffImageFormat(bytes);
  if (!format) return null;
  const size = format === "png" ? pngSize(bytes) : format === "jpeg" ? jpegSize(bytes) : webpSize(bytes);
  return size ? { format, ...size } : null;
}

/** PNG: the IHDR chunk is always first; width and height are big-endian at bytes 16 and 20. */
export function pngSize(bytes: Uint8Array): { width: number; height: number } | null {
  if (bytes.length < 24 || ascii(bytes, 12, 4) !== "IHDR") return null;
  const view = viewOf(bytes);
  const width = view.getUint32(16);
  const height = view.getUint32(20);
  return width > 0 && height > 0 ? { width, height } : null;
}

/** JPEG: walk the segments to the first start-of-frame marker (SOF0..SOF15 but DHT/JPG/DAC). */
function jpegSize(bytes: Uint8Array): { width: number; height: number } | null {
  const view = viewOf(bytes);
  let offset = 2;
  while (offset + 9 < bytes.length) {
    if (bytes[offset] !== 0xff) return null;
    const marker = bytes[offset + 1];
    if (marker === 0xff) {
      offset += 1; // fill byte
      continue;
    }
    const length = view.getUint16(offset + 2);
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrame) {
      const height = view.getUint16(offset + 5);
      const width = view.getUint16(offset + 7);
      return width > 0 && height > 0 ? { width, height } : null;
    }
    offset += 2 + length;
  }
  return null;
}

/** WebP: lossy (VP8), lossless (VP8L) and extended (VP8X) headers. */
function webpSize(bytes: Uint8Array): { width: number; height: number } | null {
  if (bytes.length < 30) return null;
  const view = viewOf(bytes);
  const chunk = ascii(bytes, 12, 4);
  if (chunk === "VP8 ") {
    return { width: view.getUint16(26, true) & 0x3fff, height: view.getUint16(28, true) & 0x3fff };
  }
  if (chunk === "VP8L") {
    const bits = view.getUint32(21, true);
    return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
  }
  if (chunk === "VP8X") {
    const width = 1 + (bytes[24] | (bytes[25] << 8) | (bytes[26] << 16));
    const height = 1 + (bytes[27] | (bytes[28] << 8) | (bytes[29] << 16));
    return { width, height };
  }
  return null;
}

function ascii(bytes: Uint8Array, start: number, length: number): string {
  return String.fromCharCode(...bytes.subarray(start, start + length));
}

function viewOf(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
