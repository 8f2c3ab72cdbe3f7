import { describe, expect, it } from "vitest";
import { groundMark, markCentre, normalisePoint, type PageLayout } from "../../../src/sim/grounding.js";
import { decodeDataUri, pngSize, readImageInfo, sniffImageFormat } from "../../../src/sim/image.js";
import { samplePng } from "../../../src/sim/sample-request.js";

/** The first 24 bytes of a PNG: signature, IHDR length and type, width, height. */
function pngHeader(width: number, height: number): Buffer {
  const bytes = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(bytes, 0);
  bytes.writeUInt32BE(13, 8);
  bytes.write("IHDR", 12, "ascii");
  bytes.writeUInt32BE(width, 16);
  bytes.writeUInt32BE(height, 20);
  return bytes;
}

/** A minimal JPEG head: SOI, an APP0 segment, then SOF0 with the size. */
function jpegHeader(width: number, height: number): Buffer {
  const app0 = Buffer.from([0xff, 0xe0, 0x00, 0x10, ...Buffer.from("JFIF\0"), 1, 1, 0, 0, 1, 0, 1, 0, 0]);
  const sof = Buffer.alloc(19);
  sof.writeUInt16BE(0xffc0, 0);
  sof.writeUInt16BE(17, 2);
  sof[4] = 8;
  sof.writeUInt16BE(height, 5);
  sof.writeUInt16BE(width, 7);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, sof]);
}

/** A WebP VP8X head (extended format) with the canvas size. */
function webpHeader(width: number, height: number): Buffer {
  const bytes = Buffer.alloc(30);
  bytes.write("RIFF", 0, "ascii");
  bytes.writeUInt32LE(22, 4);
  bytes.write("WEBP", 8, "ascii");
  bytes.write("VP8X", 12, "ascii");
  bytes.writeUInt32LE(10, 16);
  bytes.writeUIntLE(width - 1, 24, 3);
  bytes.writeUIntLE(height - 1, 27, 3);
  return bytes;
}

describe("image headers", () => {
  it("reads a real PNG's size from IHDR", () => {
    expect(readImageInfo(samplePng(37, 19))).toEqual({ format: "png", width: 37, height: 19 });
    expect(pngSize(samplePng(1280, 800))).toEqual({ width: 1280, height: 800 });
  });

  it("reads large sizes without decoding pixels", () => {
    expect(readImageInfo(pngHeader(2560, 1600))).toEqual({ format: "png", width: 2560, height: 1600 });
  });

  it("reads JPEG and WebP sizes", () => {
    expect(readImageInfo(jpegHeader(1280, 800))).toEqual({ format: "jpeg", width: 1280, height: 800 });
    expect(readImageInfo(webpHeader(1920, 1080))).toEqual({ format: "webp", width: 1920, height: 1080 });
  });

  it("rejects other formats and cut-short headers", () => {
    expect(sniffImageFormat(Buffer.from("GIF89a"))).toBeNull();
    expect(readImageInfo(pngHeader(10, 10).subarray(0, 20))).toBeNull();
    expect(readImageInfo(Buffer.alloc(0))).toBeNull();
  });

  it("decodes base64 data URIs and refuses anything else", () => {
    const uri = `data:image/png;base64,${samplePng(4, 3).toString("base64")}`;
    const data = decodeDataUri(uri)!;
    expect(data.mime).toBe("image/png");
    expect(readImageInfo(data.bytes)).toMatchObject({ width: 4, height: 3 });
    expect(decodeDataUri("https://example.com/a.png")).toBeNull();
    expect(decodeDataUri("data:image/png;base64,not base64!")).toBeNull();
  });
});

const layout: PageLayout = {
  path: "/",
  viewport: { width: 1280, height: 800 },
  marks: [
    { name: "search-box", x: 440, y: 380, width: 400, height: 40, visible: true, covered: false },
    { name: "below", x: 100, y: 1900, width: 200, height: 20, visible: false, covered: false },
  ],
};

describe("grounding", () => {
  it("puts a mark's centre at the same [0,1000] point for a 1x and a 2x screenshot", () => {
    const oneX = groundMark(layout, "search-box", { width: 1280, height: 800 })!;
    const twoX = groundMark(layout, "search-box", { width: 2560, height: 1600 })!;
    // centre (640, 400) CSS px of a 1280x800 viewport is the middle of the image
    expect([oneX.x, oneX.y]).toEqual([500, 500]);
    expect([twoX.x, twoX.y]).toEqual([500, 500]);
    expect(twoX.pixel).toEqual({ x: 1280, y: 800 });
    expect(oneX.pixel).toEqual({ x: 640, y: 400 });
  });

  it("normalises an off-centre point by the image's own size", () => {
    const point = normalisePoint({ x: 100, y: 700 }, { width: 1280, height: 800 }, { width: 2560, height: 1600 });
    expect(point).toMatchObject({ x: 78, y: 875, clamped: false }); // 100/1280 = 0.078125, 700/800 = 0.875
  });

  it("uses the viewport as the frame when there is no screenshot", () => {
    expect(groundMark(layout, "search-box")).toMatchObject({ x: 500, y: 500 });
  });

  it("keeps the vertical scale of the width when the image is taller than the viewport (full-page capture)", () => {
    const point = normalisePoint({ x: 640, y: 400 }, { width: 1280, height: 800 }, { width: 1280, height: 1600 });
    expect(point).toMatchObject({ x: 500, y: 250 });
  });

  it("clamps a point below the fold to the image edge and says so", () => {
    const point = groundMark(layout, "below", { width: 1280, height: 800 })!;
    expect(point.y).toBe(1000);
    expect(point.clamped).toBe(true);
  });

  it("returns null for a mark the page does not have", () => {
    expect(groundMark(layout, "note-save")).toBeNull();
  });

  it("computes centres in CSS pixels", () => {
    expect(markCentre({ x: 10, y: 20, width: 30, height: 41 })).toEqual({ x: 25, y: 40.5 });
  });
});
