/**
 * One picture per played step for `umpire try`: the observation the turn was sent, with the point
 * the action aimed at circled and a banner naming the step, its mark and how it went (red when the
 * step was broken). Drawn by Chromium over the stored PNG, at the PNG's own size.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { launchChromium } from "../browser/chromium.js";
import { triedStepLine, type TriedStep } from "./tried-steps.js";

const escapeHtml = (text: string) =>
  text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);

function pictureHtml(png: Buffer, width: number, height: number, s: TriedStep): string {
  const colour = s.broken ? "#d62728" : "#ff7f0e";
  const x = s.point ? (s.point.x / 1000) * width : 0;
  const y = s.point ? (s.point.y / 1000) * height : 0;
  const marker = s.point
    ? `<div style="position:absolute;left:${x - 14}px;top:${y - 14}px;width:24px;height:24px;border:3px solid ${colour};border-radius:50%"></div>` +
      `<div style="position:absolute;left:${x - 1}px;top:${y - 1}px;width:3px;height:3px;background:${colour}"></div>` +
      (s.mark
        ? `<div style="position:absolute;left:${x + 16}px;top:${y - 8}px;background:${colour};color:#fff;font:bold 12px/16px sans-serif;padding:0 4px">${escapeHtml(s.mark)}</div>`
        : "")
    : "";
  return `<!doctype html><html><body style="margin:0;width:${width}px;height:${height}px;overflow:hidden;position:relative">
<img src="data:image/png;base64,${png.toString("base64")}" style="position:absolute;left:0;top:0;width:${width}px;height:${height}px">
${marker}
<div style="position:absolute;left:0;right:0;bottom:0;background:${colour};color:#fff;font:13px/18px sans-serif;padding:4px 8px;opacity:.92">${escapeHtml(triedStepLine(s))}</div>
</body></html>`;
}

/** `03-step-2-click-greet.png`: turn order first, so a folder listing reads as the trial did. */
export function pictureName(s: TriedStep): string {
  const what = [s.step === null ? "" : `step-${s.step + 1}`, s.tool ?? "", s.mark ?? ""]
    .filter(Boolean)
    .join("-")
    .replace(/[^A-Za-z0-9._-]+/g, "_");
  return `${String(s.turn).padStart(2, "0")}-${what || "turn"}.png`;
}

/** Writes a picture per step that has an observation; returns the files written, in step order. */
export async function writeStepPictures(
  steps: readonly TriedStep[],
  runDir: string,
  folder: string,
): Promise<string[]> {
  const written: string[] = [];
  const browser = await launchChromium();
  try {
    const context = await browser.newContext({ deviceScaleFactor: 1 });
    const page = await context.newPage();
    for (const s of steps) {
      if (!s.screenshot) continue;
      const { width, height } = s.screenshot;
      await page.setViewportSize({ width, height });
      await page.setContent(pictureHtml(readFileSync(join(runDir, s.screenshot.path)), width, height, s), {
        waitUntil: "load",
      });
      const file = join(folder, pictureName(s));
      await page.screenshot({ path: file });
      written.push(file);
    }
  } finally {
    await browser.close().catch(() => undefined);
  }
  return written;
}
