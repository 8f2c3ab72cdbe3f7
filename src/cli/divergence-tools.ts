/**
 * The runner's repetition module as the divergence finder's tools (`src/report/divergence.ts`):
 * action signatures for "the same attempt", and the masked screen diff for how alike two stored
 * screenshots are. The report layer does not import the runner, so the CLI hands these in.
 */
import { readFileSync } from "node:fs";
import type { DivergenceTools } from "../report/divergence.js";
import { compareScreens, createDecodedImageCache, sameAttempt, type Capture } from "../runner/repetition/index.js";

export function divergenceTools(): DivergenceTools {
  // A trajectory's screens are compared once each, in turn order: a small cache is enough.
  const cache = createDecodedImageCache(4);
  const captures = new Map<string, Capture | null>();
  const capture = (shot: { path: string; width: number; height: number }): Capture | null => {
    if (!captures.has(shot.path)) {
      let png: Buffer | null = null;
      try {
        png = readFileSync(shot.path);
      } catch {
        // A moved or deleted run folder: the similarity is unknown, never a guess.
      }
      captures.set(shot.path, png ? { png, width: shot.width, height: shot.height, sha256: "" } : null);
    }
    return captures.get(shot.path)!;
  };
  return {
    sameAction: (a, b) => sameAttempt(a as Parameters<typeof sameAttempt>[0], b as Parameters<typeof sameAttempt>[1]),
    screenSimilarity: (a, b) => {
      const ca = capture(a);
      const cb = capture(b);
      if (!ca || !cb) return null;
      try {
        const diff = compareScreens(ca, cb, { exact: true, downscale: true, cache });
        return diff.comparedPixels > 0 ? 1 - diff.diffPixels / diff.comparedPixels : 0;
      } catch {
        return null; // not a PNG we can read: unknown
      }
    },
  };
}
