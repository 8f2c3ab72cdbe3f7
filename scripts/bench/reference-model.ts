/**
 * Measures the reference model's own time per request: n sequential requests of a realistic
 * five-turn structured conversation (3 screenshots of 1280x800) against a fresh server, with
 * layouts read from an in-process source (pass `fixtures` to include a real control-API call).
 * A benchmark function, not a test: `npx tsx -e "import('./scripts/bench/reference-model.ts').then(m => m.measureReferenceModel(200)).then(console.log)"`.
 */
import { performance } from "node:perf_hooks";
import { PNG } from "pngjs";
import type { LayoutSource, PageLayout } from "../../src/sim/grounding.js";
import { sampleRequest } from "../../src/sim/sample-request.js";
import { startReferenceModel } from "../../src/sim/server.js";

export interface ReferenceModelTiming {
  requests: number;
  /** Median / 95th percentile of the server's own time per request (from its log). */
  serverMedianMs: number;
  serverP95Ms: number;
  /** Median round trip seen by the client (includes JSON transfer of the body). */
  roundTripMedianMs: number;
  requestBytes: number;
}

const BENCH_INSTRUCTION = "Open match BB-042 on the cricket league website and report its result line.";

const BENCH_LAYOUT: PageLayout = {
  path: "/match/BB-042",
  title: "BB-042",
  viewport: { width: 1280, height: 800 },
  marks: [
    { name: "match-title", x: 100, y: 80, width: 600, height: 40, visible: true, covered: false },
    { name: "result-line", x: 100, y: 600, width: 500, height: 24, visible: true, covered: false },
  ],
};

const WAITS = Array.from({ length: 4 }, () => ({ tool: "wait" as const, args: { seconds: 1 } }));

export async function measureReferenceModel(n = 200, fixtures?: LayoutSource): Promise<ReferenceModelTiming> {
  const layouts: LayoutSource = fixtures ?? { layout: async () => BENCH_LAYOUT };
  const model = await startReferenceModel({
    tasks: [
      {
        id: "bench",
        instruction: BENCH_INSTRUCTION,
        reference: [
          ...WAITS,
          { tool: "click", target: "result-line", args: {} },
          { tool: "answer", args: { content: "done" } },
        ],
      },
    ],
    fixtures: layouts,
    strict: true,
  });
  try {
    const screenshot = benchScreenshot();
    // Four steps taken: the fifth request grounds the click on result-line.
    const history = WAITS.map((step) => ({ tool: step.tool, args: step.args }));
    const text = JSON.stringify(
      sampleRequest({ mode: "structured", instruction: BENCH_INSTRUCTION, screenshot, history, user: "bench-trial" }),
    );
    const roundTrips: number[] = [];
    for (let i = 0; i < n; i++) {
      const started = performance.now();
      const response = await fetch(`${model.baseUrl}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: text,
      });
      await response.text();
      if (!response.ok) throw new Error(`benchmark request failed with HTTP ${response.status}`);
      roundTrips.push(performance.now() - started);
    }
    const server = model.log.entries.map((e) => e.serverMs);
    return {
      requests: n,
      serverMedianMs: round(percentile(server, 0.5)),
      serverP95Ms: round(percentile(server, 0.95)),
      roundTripMedianMs: round(percentile(roundTrips, 0.5)),
      requestBytes: Buffer.byteLength(text),
    };
  } finally {
    await model.close();
  }
}

/**
 * A 1280x800 PNG that compresses like a page screenshot (about 100-200 KB): a light background
 * with deterministic "text" speckle in every other band of rows.
 */
function benchScreenshot(): Buffer {
  const png = new PNG({ width: 1280, height: 800 });
  let state = 12345;
  for (let i = 0; i < png.data.length; i += 4) {
    const row = Math.floor(i / 4 / 1280);
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    const ink = row % 24 < 12 && state % 7 === 0 ? 40 : 245;
    png.data[i] = png.data[i + 1] = png.data[i + 2] = ink;
    png.data[i + 3] = 255;
  }
  return PNG.sync.write(png);
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
