/**
 * The sentence that says how sure a paired comparison is: the smallest drop its design could detect,
 * printed next to the McNemar result by `compare` (text and Markdown) and the regression gate. A
 * "not significant" is never printed without it: at a small run's size it means little.
 */
import type { PairedAnalysis } from "./compare.js";
import type { Detectable } from "./power.js";

const points = (x: number) => `${(x * 100).toFixed(1)} points`;

function design(d: Detectable): string {
  const noise = `noise ${(d.noise * 100).toFixed(1)}% discordant pairs, from the ${d.noiseFrom}`;
  return `${Math.round(d.power * 100)}% power, alpha ${d.alpha}, ${d.pairs} paired repeat${d.pairs === 1 ? "" : "s"}, ${noise}`;
}

/** How sure, in one line; null when nothing was paired. */
export function howSure(p: Pick<PairedAnalysis, "detectable" | "pValue">, alpha = 0.05): string | null {
  const d = p.detectable;
  if (!d) return null;
  const significant = p.pValue < alpha;
  if (d.drop === null) {
    return `${significant ? "" : "not significant, and "}too few paired repeats to detect any drop (${design(d)})`;
  }
  const reach = `drops of ${points(d.drop)} or more (${design(d)})`;
  return significant
    ? `this design detects ${reach}`
    : `not significant: this comparison could only have detected ${reach}`;
}
