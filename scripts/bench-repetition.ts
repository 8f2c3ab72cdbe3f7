/**
 * Benchmark: the repetition detector's cost per step at 1280x800, on real Chromium screenshots.
 *
 * Two realistic workloads, each 200 steps, with and without 2x downscale:
 * - `stuck`: a notes page with a cookie dialog covering Save, a live clock and a blinking caret
 *   (both marked volatile and masked), the agent clicking Save every turn. Every step pays a
 *   decode and a full masked comparison that ends in "unchanged": the detector's worst
 *   realistic case.
 * - `scrolling`: the agent scrolling down a long scorecard page with the same action every turn;
 *   every step pays a decode and a comparison that ends in "changed".
 * The screenshots are real (launchChromium, Playwright PNGs) so the PNG sizes, filters and
 * noise are what the runner will see. A detector with an unreachable window keeps comparing on
 * every step, so the numbers are the steady-state cost, not the first few steps.
 *
 * Run: `npx tsx scripts/bench-repetition.ts` (prints JSON), or import `benchRepetition()`.
 */
import { createHash } from "node:crypto";
import { availableParallelism, loadavg } from "node:os";
import { pathToFileURL } from "node:url";
import { PNG } from "pngjs";
import type { Page } from "playwright";
import { launchChromium } from "../src/browser/chromium.js";
import { compareScreens, DEFAULT_MAX_DIFF_RATIO } from "../src/runner/trial/repetition/image-diff.js";
import { createRepetitionDetector, type RepetitionStep } from "../src/runner/trial/repetition/detector.js";
import { maskBoxesForCapture, type Box } from "../src/runner/trial/repetition/masks.js";
import type { Capture } from "../src/runner/trial/repetition/decoded-cache.js";
import { decodePng } from "../src/runner/trial/repetition/png-decode.js";

export interface Percentiles {
  median: number;
  p95: number;
  max: number;
}

/** Wall-clock and CPU milliseconds (CPU time is what the step costs; wall time includes waiting for a core). */
export interface StepCost {
  wall: Percentiles;
  cpu: Percentiles;
}

export interface RepetitionBench {
  viewport: string;
  steps: number;
  /** Machine load when the timing started (1-minute load average / cores): wall times inflate with it. */
  load: { average1m: number; cores: number };
  /** Cost of one `observe()` call in the steady state (the previous capture already decoded). */
  perStep: Record<"stuck" | "stuckDownscaled" | "scrolling" | "scrollingDownscaled", StepCost>;
  /**
   * Cost of the first repeat of an action on a stuck screen: the previous capture was never
   * decoded (no comparison was needed until now), so this step decodes two captures, one in full.
   */
  firstRepeat: StepCost;
  /** Cost of decoding one whole screenshot on its own: this module's decoder vs pngjs. */
  decode: { ours: StepCost; pngjs: StepCost };
  /** Answers on the real screenshots: consecutive stuck pairs judged unchanged with masks / without. */
  answers: {
    stuckPairs: number;
    unchangedWithMasks: number;
    unchangedWithoutMasks: number;
    scrollPairsChanged: number;
  };
  /** Pixels a one-line status message ("Saved notes/BB-042.md") changes, against the tolerance 0.001 and the default. */
  statusLinePixels: {
    diffPixels: number;
    allowanceAt0001: number;
    defaultAllowance: number;
    seenAsChangeByDefault: boolean;
  };
  pngBytes: { median: number };
}

const VIEWPORT = { width: 1280, height: 800 };

const NOTES_PAGE = `<!doctype html><html><head><style>
body{margin:0;font:16px/1.5 system-ui,sans-serif;color:#223}
header{display:flex;justify-content:space-between;background:#182840;color:#eee;padding:12px 24px}
main{padding:24px 40px} input,textarea{font:inherit;padding:6px;border:1px solid #889;width:420px}
textarea{height:200px;display:block;margin-top:12px} button{font:inherit;padding:8px 24px;margin-top:12px;background:#1e6e3c;color:#fff;border:0}
.caret{display:inline-block;width:2px;height:20px;background:#000;vertical-align:middle;animation:blink 1s steps(1) infinite}
@keyframes blink{50%{opacity:0}}
.scrim{position:fixed;inset:0;background:rgba(0,0,0,.35)}
.dialog{position:fixed;left:390px;top:250px;width:460px;background:#fff;padding:20px;box-shadow:0 4px 20px rgba(0,0,0,.4)}
#status{color:#1b6e33;margin-top:8px;min-height:24px}
</style></head><body>
<header><b>Ball by Ball</b><span data-volatile id="clock"></span></header>
<main><h2>Notes for BB-042</h2>
<label>Name <input value="BB-042.md"></label><span data-volatile class="caret"></span>
<textarea>Pune Pioneers 168/6 (20 ov) vs Jaipur Kites 169/4 (18.3 ov)</textarea>
<button data-mark="note-save">Save</button><div id="status"></div></main>
<div class="scrim"></div><div class="dialog" data-mark="cookie-dialog"><h3>We value your privacy</h3>
<p>We use cookies to remember your preferences and to measure how the scorecards are used.</p>
<button>Reject all</button> <button>Accept all</button></div>
<script>const c=document.getElementById('clock');setInterval(()=>{const d=new Date();c.textContent=d.toLocaleTimeString('en-GB')+'.'+String(d.getMilliseconds()).padStart(3,'0')},37)</script>
</body></html>`;

function scorecardPage(): string {
  const rows = Array.from({ length: 240 }, (_, i) => {
    const over = `${Math.floor(i / 6)}.${(i % 6) + 1}`;
    const outcome = ["dot", "1 run", "2 runs", "FOUR", "SIX", "wicket"][(i * 7) % 6];
    return `<tr><td>${over}</td><td>Bowler ${(i % 5) + 1} to Batter ${(i % 7) + 1}</td><td>${outcome}</td><td>${(i * 13) % 170}/${Math.floor(i / 40)}</td></tr>`;
  }).join("");
  return `<!doctype html><html><head><style>body{margin:0;font:15px/1.6 system-ui,sans-serif}
header{background:#182840;color:#eee;padding:12px 24px;position:sticky;top:0}
table{border-collapse:collapse;margin:24px 40px;width:1100px} td{border-bottom:1px solid #dde;padding:4px 10px}
tr:nth-child(even){background:#f4f6fa}</style></head><body>
<header><b>Ball by Ball</b> &middot; BB-017 ball by ball <span data-volatile id="clock"></span></header>
<table>${rows}</table><script>const c=document.getElementById('clock');setInterval(()=>{c.textContent=new Date().toISOString()},37)</script></body></html>`;
}

async function screenshot(page: Page): Promise<{ capture: Capture; volatile: Box[] }> {
  const volatile = await page.$$eval("[data-volatile]", (els) =>
    els.map((el) => {
      const r = el.getBoundingClientRect();
      return { x: r.x, y: r.y, width: r.width, height: r.height };
    }),
  );
  const png = await page.screenshot({ caret: "initial" });
  const sha256 = createHash("sha256").update(png).digest("hex");
  return { capture: { png, width: VIEWPORT.width, height: VIEWPORT.height, sha256 }, volatile };
}

function percentiles(samples: number[]): Percentiles {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  const round = (v: number) => Math.round(v * 100) / 100;
  return { median: round(at(0.5)), p95: round(at(0.95)), max: round(sorted[sorted.length - 1]) };
}

/** Times `run` `count` times (after `warmup` untimed runs), in wall and CPU milliseconds. */
function timeRuns(count: number, run: (i: number) => void, warmup = 0): StepCost {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < warmup + count; i++) {
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    run(i);
    const elapsed = performance.now() - started;
    const used = process.cpuUsage(cpuBefore);
    if (i < warmup) continue;
    wall.push(elapsed);
    cpu.push((used.user + used.system) / 1000);
  }
  return { wall: percentiles(wall), cpu: percentiles(cpu) };
}

function timeSteps(steps: RepetitionStep[], count: number, downscale: boolean): StepCost {
  // An unreachable window: the detector compares on every step but never pauses, so every
  // sample is the steady-state cost of one observe(). The first step (nothing to compare
  // with yet) is not timed.
  const detector = createRepetitionDetector({ window: 100_000, compare: { downscale } });
  return timeRuns(count, (i) => void detector.observe(steps[i % steps.length]), 1);
}

/** Runs the benchmark; `steps` observe() calls per workload (default 200). */
export async function benchRepetition(options: { steps?: number; shots?: number } = {}): Promise<RepetitionBench> {
  const stepCount = options.steps ?? 200;
  const shots = options.shots ?? 40;
  const browser = await launchChromium();
  try {
    const context = await browser.newContext({ viewport: VIEWPORT, deviceScaleFactor: 1 });
    const page = await context.newPage();
    const frame = { image: VIEWPORT, viewport: VIEWPORT };

    await page.setContent(NOTES_PAGE);
    await page.focus("input");
    const click = { tool: "click" as const, args: { element: "Save button", x: 190, y: 520 } };
    const stuck: RepetitionStep[] = [];
    for (let i = 0; i < shots; i++) {
      const { capture, volatile } = await screenshot(page);
      stuck.push({ capture, masks: maskBoxesForCapture({ volatile }, frame), actions: [click] });
      await page.waitForTimeout(60 + ((i * 97) % 250)); // catch the caret both on and off
    }

    const before = await screenshot(page);
    await page.evaluate(() => {
      document.getElementById("status")!.textContent = "Saved notes/BB-042.md";
    });
    const after = await screenshot(page);
    const masks = [
      ...maskBoxesForCapture({ volatile: before.volatile }, frame),
      ...maskBoxesForCapture({ volatile: after.volatile }, frame),
    ];
    const statusLine = compareScreens(before.capture, after.capture, { masks, maxDiffRatio: 0, exact: true });

    await page.setContent(scorecardPage());
    const scroll = { tool: "scroll" as const, args: { direction: "down", amount: 3 } };
    const scrolling: RepetitionStep[] = [];
    for (let i = 0; i < shots; i++) {
      const { capture, volatile } = await screenshot(page);
      scrolling.push({ capture, masks: maskBoxesForCapture({ volatile }, frame), actions: [scroll] });
      await page.mouse.wheel(0, 180);
      await page.waitForTimeout(30);
    }
    await context.close();

    const pairs = (steps: RepetitionStep[], useMasks: boolean) =>
      steps.slice(1).map((step, i) =>
        compareScreens(steps[i].capture, step.capture, {
          masks: useMasks ? [...(steps[i].masks ?? []), ...(step.masks ?? [])] : [],
        }),
      );
    const answers = {
      stuckPairs: stuck.length - 1,
      unchangedWithMasks: pairs(stuck, true).filter((c) => !c.changed).length,
      unchangedWithoutMasks: pairs(stuck, false).filter((c) => !c.changed && c.diffPixels === 0).length,
      scrollPairsChanged: pairs(scrolling, true).filter((c) => c.changed).length,
    };

    const all = [...stuck, ...scrolling];
    const decodeAll = (i: number) => {
      const image = decodePng(all[i % all.length].capture.png);
      image.row(image.height - 1);
    };
    const load = { average1m: Math.round(loadavg()[0] * 100) / 100, cores: availableParallelism() };

    return {
      viewport: `${VIEWPORT.width}x${VIEWPORT.height}`,
      steps: stepCount,
      load,
      perStep: {
        stuck: timeSteps(stuck, stepCount, false),
        stuckDownscaled: timeSteps(stuck, stepCount, true),
        scrolling: timeSteps(scrolling, stepCount, false),
        scrollingDownscaled: timeSteps(scrolling, stepCount, true),
      },
      firstRepeat: timeRuns(
        stuck.length - 2, // + 1 warm-up run = one run per consecutive pair
        (i) => {
          const detector = createRepetitionDetector();
          detector.observe(stuck[i]); // no comparison yet, so no decode: microseconds
          detector.observe(stuck[i + 1]);
        },
        1,
      ),
      decode: {
        ours: timeRuns(all.length, decodeAll, 3),
        pngjs: timeRuns(all.length, (i) => void PNG.sync.read(all[i % all.length].capture.png), 3),
      },
      answers,
      statusLinePixels: {
        diffPixels: statusLine.diffPixels,
        allowanceAt0001: Math.floor(0.001 * statusLine.comparedPixels),
        defaultAllowance: Math.floor(DEFAULT_MAX_DIFF_RATIO * statusLine.comparedPixels),
        seenAsChangeByDefault: compareScreens(before.capture, after.capture, { masks }).changed,
      },
      pngBytes: { median: percentiles(stuck.map((s) => s.capture.png.length)).median },
    };
  } finally {
    await browser.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  benchRepetition()
    .then((result) => process.stdout.write(`${JSON.stringify(result, null, 2)}\n`))
    .catch((error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
      process.exitCode = 1;
    });
}
