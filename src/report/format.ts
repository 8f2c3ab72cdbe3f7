/**
 * How numbers read in tables: money, durations, rates, deltas. Rounding happens here and only
 * here; stored and JSON values keep full precision. Unknown is always spelled "unknown" (never 0),
 * and "—" means there is nothing to show (no trial, no success).
 */
import type { CostPerSuccess } from "./cost.js";
import type { Interval } from "./stats.js";

export const NONE = "—";

/** `$0.0304`, `$0.00939`, `$12.35`, `$0`; null -> `unknown`. */
export function formatUsd(usd: number | null): string {
  if (usd === null) return "unknown";
  if (usd === 0) return "$0";
  if (Math.abs(usd) >= 1) return `$${usd.toFixed(2)}`;
  return `$${Number(usd.toPrecision(3))}`;
}

export function formatCostPerSuccess(c: CostPerSuccess): string {
  if (c === "unknown") return "unknown";
  if (c === "no_success") return NONE;
  return formatUsd(c);
}

/** `850 ms`, `12.5 s`, `2m 05s`; null -> `—`. */
export function formatMs(ms: number | null): string {
  if (ms === null) return NONE;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, "0")}s`;
}

/** A proportion as a percentage: `91.7%`; null -> `—`. */
export function formatPercent(p: number | null, digits = 1): string {
  return p === null ? NONE : `${(p * 100).toFixed(digits)}%`;
}

/** A probability-like score with two decimals: `0.67`; null -> `—`. */
export function formatScore(x: number | null): string {
  return x === null ? NONE : x.toFixed(2);
}

/** A relative change in percent: `+20.0%`, `-3.1%`; null -> `—`. */
export function formatDelta(pct: number | null): string {
  if (pct === null) return NONE;
  const rounded = Number(pct.toFixed(1));
  return `${rounded > 0 ? "+" : ""}${rounded.toFixed(1)}%`;
}

/** A difference of proportions in percentage points: `-16.7 pts`. */
export function formatPoints(diff: number | null): string {
  if (diff === null) return NONE;
  const v = Number((diff * 100).toFixed(1));
  return `${v > 0 ? "+" : ""}${v.toFixed(1)} pts`;
}

/** A Wilson interval as whole percentages: `65–99%`. */
export function formatInterval(i: Interval): string {
  return `${Math.round(i.low * 100)}–${Math.round(i.high * 100)}%`;
}

/** `12,000`; null -> `unknown`. */
export function formatTokens(n: number | null): string {
  return n === null ? "unknown" : n.toLocaleString("en-US");
}

/** A mean count: `4.3`; null -> `—`. */
export function formatMean(x: number | null): string {
  return x === null ? NONE : Number.isInteger(x) ? String(x) : x.toFixed(1);
}

/** A rate of events per unit (refused calls per turn): `0.25`, `0`, `<0.01`; null -> `—`. */
export function formatRate(x: number | null): string {
  if (x === null) return NONE;
  if (x === 0) return "0";
  return x < 0.01 ? "<0.01" : x.toFixed(2);
}

/** `answered 3, turn_limit 1`: most frequent first, then by name. */
export function formatStopMix(mix: Record<string, number>): string {
  const entries = Object.entries(mix).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return entries.length === 0 ? NONE : entries.map(([reason, n]) => `${reason} ${n}`).join(", ");
}

/** A p-value: three significant digits, `< 0.001` below that. */
export function formatP(p: number): string {
  return p < 0.001 ? "< 0.001" : `= ${Number(p.toPrecision(3))}`;
}

/** ISO time as `2025-06-12 14:30:05` (UTC, as stored). */
export function formatTime(iso: string | null): string {
  return iso === null ? NONE : iso.replace("T", " ").slice(0, 19);
}

/** "1 trial", "2 trials": a count with its noun, plural unless exactly one. */
export function plural(n: number, singular: string, pluralForm = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : pluralForm}`;
}
