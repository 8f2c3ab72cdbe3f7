import { describe, expect, it } from "vitest";
import {
  cssBoxesToImageBoxes,
  maskBoxesForCapture,
  splitTaskMasks,
} from "../../../src/runner/trial/repetition/masks.js";

describe("mask conversion", () => {
  const dpr2 = { image: { width: 2560, height: 1600 }, viewport: { width: 1280, height: 800 } };

  it("scales CSS boxes by the device pixel ratio and pads them", () => {
    const box = { x: 10, y: 20, width: 30, height: 40 };
    expect(cssBoxesToImageBoxes([box], dpr2)).toEqual([{ x: 18, y: 38, width: 64, height: 84 }]);
    expect(cssBoxesToImageBoxes([box], { image: dpr2.image, devicePixelRatio: 2 })).toEqual([
      { x: 18, y: 38, width: 64, height: 84 },
    ]);
    expect(cssBoxesToImageBoxes([box], { ...dpr2, padding: 0 })).toEqual([{ x: 20, y: 40, width: 60, height: 80 }]);
  });

  it("rounds fractional CSS boxes outward", () => {
    expect(cssBoxesToImageBoxes([{ x: 10.3, y: 5.6, width: 2.2, height: 1.1 }], { ...dpr2, padding: 0 })).toEqual([
      { x: 20, y: 11, width: 5, height: 3 },
    ]);
  });

  it("clips to the image and drops boxes outside it", () => {
    const boxes = [
      { x: 1270, y: 790, width: 40, height: 40 },
      { x: -10, y: -10, width: 15, height: 15 },
      { x: 2000, y: 100, width: 10, height: 10 },
    ];
    expect(cssBoxesToImageBoxes(boxes, dpr2)).toEqual([
      { x: 2538, y: 1578, width: 22, height: 22 },
      { x: 0, y: 0, width: 12, height: 12 },
    ]);
  });

  it("uses image size / viewport per axis for screenshots resized after capture", () => {
    const resized = { image: { width: 640, height: 400 }, viewport: { width: 1280, height: 800 }, padding: 0 };
    expect(cssBoxesToImageBoxes([{ x: 100, y: 100, width: 50, height: 50 }], resized)).toEqual([
      { x: 50, y: 50, width: 25, height: 25 },
    ]);
  });

  it("gathers every source of one capture", () => {
    const boxes = maskBoxesForCapture(
      {
        volatile: [{ x: 0, y: 0, width: 10, height: 10 }],
        taskBoxes: [{ x: 100, y: 0, width: 10, height: 10 }],
        selectorBoxes: [{ x: 200, y: 0, width: 10, height: 10 }],
      },
      { ...dpr2, padding: 0 },
    );
    expect(boxes.map((b) => b.x)).toEqual([0, 200, 400]);
  });

  it("splits task masks into boxes and selectors", () => {
    const box = { x: 1, y: 2, width: 3, height: 4 };
    expect(splitTaskMasks([{ selector: "#clock" }, { box }])).toEqual({ boxes: [box], selectors: ["#clock"] });
  });

  it("names the source and the fix for a bad box or frame", () => {
    expect(() =>
      cssBoxesToImageBoxes([{ x: Number.NaN, y: 0, width: 1, height: 1 }], dpr2, "agent config mask"),
    ).toThrow(/agent config mask\[0\].*finite/);
    expect(() => cssBoxesToImageBoxes([], { image: dpr2.image, viewport: { width: 0, height: 800 } })).toThrow(
      /viewport/,
    );
    expect(() => cssBoxesToImageBoxes([], { image: dpr2.image, devicePixelRatio: 0 })).toThrow(/devicePixelRatio/);
  });
});
