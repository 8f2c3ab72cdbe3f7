import { PNG } from "pngjs";
import { beforeAll, describe, expect, it } from "vitest";
import { compareScreens, DEFAULT_MAX_DIFF_RATIO } from "../../../src/runner/trial/repetition/image-diff.js";
import { createDecodedImageCache, type Capture } from "../../../src/runner/trial/repetition/decoded-cache.js";
import { decodePng, reusedRowCount, toRgba } from "../../../src/runner/trial/repetition/png-decode.js";
import { cloneRaster, drawPage, drawText, REGIONS, setPixel, toCapture, type Raster } from "./page-images.js";

/** A labelled comparison whose answer must not depend on downscaling or the AA heuristic. */
interface Case {
  name: string;
  a: () => Capture;
  b: () => Capture;
  masks: { x: number; y: number; width: number; height: number }[];
  maxDiffRatio?: number;
  changed: boolean;
}

let page: Raster;
let withCaret: Capture;
let withoutCaret: Capture;
let dialogOpen: Capture;
let dialogClosed: Capture;
let spinnerA: Capture;
let spinnerB: Capture;
let base: Capture;
let onePixelOff: Capture;
let onePixelInsideMask: Capture;
let shortStatus: Capture;

beforeAll(() => {
  page = drawPage({ caret: false });
  base = toCapture(page);
  withCaret = toCapture(drawPage({ caret: true }));
  withoutCaret = base;
  dialogOpen = toCapture(drawPage({ dialog: true }));
  dialogClosed = base;
  spinnerA = toCapture(drawPage({ spinner: 0 }));
  spinnerB = toCapture(drawPage({ spinner: 1 }));
  const changed = cloneRaster(page);
  setPixel(changed, 700, 300, [0, 0, 0]);
  onePixelOff = toCapture(changed);
  const masked = cloneRaster(page);
  setPixel(masked, REGIONS.clock.x + 5, REGIONS.clock.y + 5, [255, 0, 0]);
  onePixelInsideMask = toCapture(masked);
  const status = cloneRaster(page);
  drawText(status, 240, 520, 8, 77, [20, 100, 40]); // a short "Saved" line under the form
  shortStatus = toCapture(status);
});

const cases: Case[] = [
  {
    name: "a blinking caret inside a mask",
    a: () => withCaret,
    b: () => withoutCaret,
    masks: [REGIONS.caret],
    maxDiffRatio: 0,
    changed: false,
  },
  {
    name: "a blinking caret with no mask and no tolerance",
    a: () => withCaret,
    b: () => withoutCaret,
    masks: [],
    maxDiffRatio: 0,
    changed: true,
  },
  {
    name: "a dialog closing",
    a: () => dialogOpen,
    b: () => dialogClosed,
    masks: [REGIONS.caret, REGIONS.clock],
    changed: true,
  },
  { name: "a masked spinner turning", a: () => spinnerA, b: () => spinnerB, masks: [REGIONS.spinner], changed: false },
  { name: "an unmasked spinner turning", a: () => spinnerA, b: () => spinnerB, masks: [REGIONS.caret], changed: true },
  {
    name: "one real pixel outside the masks",
    a: () => base,
    b: () => onePixelOff,
    masks: [REGIONS.clock],
    maxDiffRatio: 0,
    changed: true,
  },
  {
    name: "a short status message appearing (default tolerance)",
    a: () => base,
    b: () => shortStatus,
    masks: [REGIONS.clock, REGIONS.caret],
    changed: true,
  },
  {
    name: "one pixel inside a mask",
    a: () => base,
    b: () => onePixelInsideMask,
    masks: [REGIONS.clock],
    maxDiffRatio: 0,
    changed: false,
  },
];

describe("compareScreens", () => {
  for (const c of cases) {
    it(`${c.name}: ${c.changed ? "changed" : "unchanged"}`, () => {
      const result = compareScreens(c.a(), c.b(), { masks: c.masks, maxDiffRatio: c.maxDiffRatio });
      expect(result.changed).toBe(c.changed);
      expect(result.fastPath).toBeNull();
      expect(result.scale).toBe(1);
    });
  }

  it("gives the same answers when downscaled 2x and with the anti-aliasing heuristic", () => {
    for (const c of cases) {
      const downscaled = compareScreens(c.a(), c.b(), {
        masks: c.masks,
        maxDiffRatio: c.maxDiffRatio,
        downscale: true,
      });
      expect({ name: c.name, changed: downscaled.changed, scale: downscaled.scale }).toEqual({
        name: c.name,
        changed: c.changed,
        scale: 2,
      });
      const heuristic = compareScreens(c.a(), c.b(), {
        masks: c.masks,
        maxDiffRatio: c.maxDiffRatio,
        ignoreAntialiasing: true,
      });
      expect({ name: c.name, changed: heuristic.changed }).toEqual({ name: c.name, changed: c.changed });
    }
  });

  it("would miss the status message at a 0.001 tolerance (why the default is 0.0001)", () => {
    const lax = compareScreens(base, shortStatus, { maxDiffRatio: 0.001, exact: true });
    expect(lax.changed).toBe(false);
    expect(lax.diffPixels).toBeGreaterThan(DEFAULT_MAX_DIFF_RATIO * lax.comparedPixels);
  });

  it("counts one changed pixel as exactly one and masked pixels as not compared", () => {
    const result = compareScreens(base, onePixelOff, { masks: [REGIONS.clock], maxDiffRatio: 0 });
    expect(result.diffPixels).toBe(1);
    const clockArea = REGIONS.clock.width * REGIONS.clock.height;
    expect(result.comparedPixels).toBe(1280 * 800 - clockArea);
    expect(result.complete).toBe(true);
  });

  it("does not double-count overlapping masks", () => {
    const overlapping = [
      { x: 0, y: 0, width: 100, height: 100 },
      { x: 50, y: 50, width: 100, height: 100 },
    ];
    const result = compareScreens(base, onePixelOff, { masks: overlapping });
    expect(result.comparedPixels).toBe(1280 * 800 - (100 * 100 + 100 * 100 - 50 * 50));
  });

  it("takes the hash fast path for the same capture and the bytes fast path when no hash is known", () => {
    const same = compareScreens(base, base);
    expect(same).toMatchObject({ changed: false, diffPixels: 0, fastPath: "identical-hash" });
    const copyA = { ...base, png: Buffer.from(base.png), sha256: "" };
    const copyB = { ...base, png: Buffer.from(base.png), sha256: "" };
    expect(compareScreens(copyA, copyB)).toMatchObject({ changed: false, fastPath: "identical-bytes" });
  });

  it("decides by pixels, not hashes: the same pixels encoded differently are unchanged", () => {
    const reencoded = toCapture(page, { filterType: 4 });
    expect(reencoded.sha256).not.toBe(base.sha256);
    const result = compareScreens(base, reencoded, { maxDiffRatio: 0 });
    expect(result).toMatchObject({ changed: false, diffPixels: 0, fastPath: null });
  });

  it("compares an RGB and an RGBA encoding of the same pixels as unchanged", () => {
    const rgba = toCapture(page, { colorType: 6 });
    expect(compareScreens(base, rgba, { maxDiffRatio: 0 })).toMatchObject({ changed: false, diffPixels: 0 });
    expect(compareScreens(rgba, onePixelOff, { maxDiffRatio: 0 })).toMatchObject({ changed: true, diffPixels: 1 });
  });

  it("applies the per-pixel colour threshold", () => {
    const faint = cloneRaster(page);
    for (let x = 600; x < 700; x++) setPixel(faint, x, 700, [247, 247, 249]); // background is 250,250,252
    const faintCapture = toCapture(faint);
    expect(compareScreens(base, faintCapture, { maxDiffRatio: 0 }).changed).toBe(false);
    expect(compareScreens(base, faintCapture, { maxDiffRatio: 0, threshold: 0 })).toMatchObject({
      changed: true,
      diffPixels: 100,
    });
  });

  it("calls captures of different sizes changed", () => {
    const small = toCapture(shrink(page, 640, 400));
    expect(compareScreens(base, small)).toMatchObject({ changed: true, comparedPixels: 0 });
  });

  it("stops counting once the answer is certain, unless asked to be exact", () => {
    const quick = compareScreens(dialogOpen, dialogClosed);
    expect(quick.changed).toBe(true);
    expect(quick.complete).toBe(false);
    const exact = compareScreens(dialogOpen, dialogClosed, { exact: true });
    expect(exact.complete).toBe(true);
    expect(exact.diffPixels).toBeGreaterThan(quick.diffPixels);
    expect(exact.diffPixels).toBeGreaterThan(0.5 * 1280 * 748); // the scrim darkens everything under the header
  });

  it("reuses a shared cache of decoded captures", () => {
    const cache = createDecodedImageCache(2);
    compareScreens(base, onePixelOff, { cache });
    expect(cache.size).toBe(2);
    const decoded = cache.full(base);
    compareScreens(base, withCaret, { cache });
    expect(cache.full(base)).toBe(decoded);
    expect(cache.size).toBe(2);
  });

  it("rejects out-of-range options with the option's name", () => {
    expect(() => compareScreens(base, onePixelOff, { threshold: 2 })).toThrow(/threshold/);
    expect(() => compareScreens(base, onePixelOff, { maxDiffRatio: -1 })).toThrow(/maxDiffRatio/);
  });

  it("rejects a capture whose stated size disagrees with its PNG", () => {
    const lying = { ...onePixelOff, width: 1280, height: 800, sha256: "x" };
    const wrongSize = { ...toCapture(shrink(page, 640, 400)), width: 1280, height: 800 };
    expect(() => compareScreens(lying, wrongSize)).toThrow(/640x400/);
  });
});

describe("PNG decoding", () => {
  const sample = () => {
    const r = drawPage({ dialog: true, caret: true, spinner: 2 });
    return shrink(r, 301, 157); // odd sizes exercise the row and pixel edges
  };

  for (const colorType of [2, 6] as const) {
    for (const filterType of [0, 1, 2, 3, 4, -1]) {
      it(`decodes colour type ${colorType} with filter ${filterType} exactly as pngjs does`, () => {
        const r = sample();
        if (colorType === 6) for (let i = 3; i < r.data.length; i += 28) r.data[i] = i % 251;
        const png = PNG.sync.write(Object.assign(new PNG({ width: r.width, height: r.height }), { data: r.data }), {
          colorType,
          filterType,
        });
        const ours = decodePng(png);
        expect(ours.channels).toBe(colorType === 6 ? 4 : 3);
        expect(toRgba(ours).equals(PNG.sync.read(png).data)).toBe(true);
      });
    }
  }

  it("decodes against a reference capture to the same pixels, whatever the reference", () => {
    const pages = [
      drawPage({ caret: true }),
      drawPage({ caret: false }),
      drawPage({ dialog: true }),
      drawPage({ caret: true, clock: 4 }),
    ];
    const pngs = pages.map((r, i) =>
      PNG.sync.write(Object.assign(new PNG({ width: r.width, height: r.height }), { data: r.data }), {
        colorType: 2,
        filterType: i === 2 ? 4 : -1,
      }),
    );
    const reused: number[] = [];
    for (let i = 1; i < pngs.length; i++) {
      const reference = decodePng(pngs[i - 1]);
      reference.row(400); // a half-decoded reference must finish its own rows correctly too
      const relative = decodePng(pngs[i], reference);
      expect(toRgba(relative).equals(PNG.sync.read(pngs[i]).data)).toBe(true);
      expect(toRgba(reference).equals(PNG.sync.read(pngs[i - 1]).data)).toBe(true);
      reused.push(reusedRowCount(relative));
    }
    // Caret on -> off: all rows but the caret's (and the one below it) are copied. The dialog
    // page (another filter) shares at most a few header rows where the filters happen to agree.
    expect(reused[0]).toBe(800 - REGIONS.caret.height - 1);
    expect(reused[1]).toBeLessThan(52);
    const otherSize = decodePng(
      PNG.sync.write(Object.assign(new PNG({ width: 301, height: 157 }), { data: sample().data })),
    );
    expect(toRgba(decodePng(pngs[0], otherSize)).equals(PNG.sync.read(pngs[0]).data)).toBe(true);
  });

  it("falls back to pngjs for PNG kinds it does not decode itself (grey)", () => {
    const r = sample();
    const png = PNG.sync.write(Object.assign(new PNG({ width: r.width, height: r.height }), { data: r.data }), {
      colorType: 0,
    });
    const ours = decodePng(png);
    expect(ours.channels).toBe(4);
    expect(toRgba(ours).equals(PNG.sync.read(png).data)).toBe(true);
  });

  it("says clearly when the bytes are not a PNG", () => {
    expect(() => decodePng(Buffer.from("GIF89a not a png at all, really not one"))).toThrow(/not a PNG/);
  });
});

/** Nearest-neighbour crop-and-scale, enough to make smaller test images. */
function shrink(r: Raster, width: number, height: number): Raster {
  const data = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const sx = Math.floor((x * r.width) / width);
      const sy = Math.floor((y * r.height) / height);
      r.data.copy(data, (y * width + x) * 4, (sy * r.width + sx) * 4, (sy * r.width + sx) * 4 + 4);
    }
  }
  return { width, height, data };
}
