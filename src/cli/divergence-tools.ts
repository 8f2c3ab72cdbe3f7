/**
 * The runner's repetition module as the divergence finder's tools (`src/report/divergence.ts`):
 * action signatures for "the same attempt", and the masked screen diff for how alike two stored
 * screenshots are. The report layer does not import the runner, so the CLI hands these in.
 */
import { readFileSync } from "node:fs";
import { compareGroups, type Comparison } from "../report/compare.js";
import type { Divergence, DivergenceTools } from "../report/divergence.js";
import { flippedDivergences } from "../report/divergence-pairs.js";
import type { RunRecord } from "../store/records.js";
import type { Store } from "../store/store.js";
import { compareScreens } from "../runner/trial/repetition/image-diff.js";
import { createDecodedImageCache, type Capture } from "../runner/trial/repetition/decoded-cache.js";
import { sameAttempt } from "../runner/trial/repetition/signature.js";

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

/**
 * Where the tasks that flipped between two stored runs diverged. `comparison` is the two runs'
 * comparison when the caller has one (compare, with its options); otherwise it is made here.
 */
export function divergencesBetween(
  store: Store,
  base: RunRecord,
  candidate: RunRecord,
  cwd: string,
  comparison?: Comparison,
): Divergence[] {
  const sides = [base, candidate].map((run) => ({ run, trials: store.trials(run.id) }));
  const groups = sides.map((s) => ({ label: s.run.id, runIds: [s.run.id], trials: s.trials }));
  const made = comparison ?? compareGroups(groups, "run");
  return flippedDivergences(made, store, sides[0]!, sides[1]!, divergenceTools(), cwd);
}
