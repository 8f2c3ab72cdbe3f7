/**
 * OpenAI's `scroll_x`/`scroll_y` are distances in the screenshot's pixels (#41). umpire wheels in CSS px, so
 * a screenshot taken at DPR 2, or fitted to a smaller `displaySize`, scales the distance by the page's CSS
 * viewport over the picture the model saw; without a known viewport the picture is taken as CSS px (DPR 1).
 */
import { describe, expect, it } from "vitest";
import { mapComputerAction } from "../../../src/agent/protocols/openai-computer.js";

const scroll = (scroll_x: number, scroll_y: number) => ({ type: "scroll", x: 10, y: 10, scroll_x, scroll_y });

describe("mapComputerAction scroll distances", () => {
  it("takes the screenshot as CSS px when no viewport is known", () => {
    expect(mapComputerAction(scroll(0, 1000), { width: 1280, height: 800 })).toMatchObject({
      tool: "scroll",
      args: { direction: "down", amount: 10 },
    });
  });

  it("halves the distance at DPR 2 (2560x1600 picture of a 1280x800 page)", () => {
    const frame = { width: 2560, height: 1600, viewport: { width: 1280, height: 800 } };
    expect(mapComputerAction(scroll(0, 2000), frame)).toMatchObject({ args: { direction: "down", amount: 10 } });
    expect(mapComputerAction(scroll(-600, 0), frame)).toMatchObject({ args: { direction: "left", amount: 3 } });
  });

  it("doubles it for a picture fitted to half the page's size (displaySize)", () => {
    const frame = { width: 640, height: 400, viewport: { width: 1280, height: 800 } };
    expect(mapComputerAction(scroll(0, -250), frame)).toMatchObject({ args: { direction: "up", amount: 5 } });
  });
});
