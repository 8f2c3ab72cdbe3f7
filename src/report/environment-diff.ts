/**
 * What changed in the environment between two runs (issue 29 item 6), as `compare` marks it beside
 * "task changed": "environment changed: chromium 131.0.1 -> 132.0.4; target shop 1.4 -> 1.5"; umpire's
 * own version among them (issue 36). Also the one-line summary `show` and the report print. A run
 * stored without an environment (older umpire) is unknown, never "changed". Also the re-judged
 * note: which compared runs hold trials judged again by `umpire rejudge`.
 */
import type { RunRecord, TrialRecord } from "../store/records.js";

type Env = Record<string, unknown> | undefined;

const at = (env: Env, path: string): unknown =>
  path
    .split(".")
    .reduce<unknown>((v, k) => (v && typeof v === "object" ? (v as Record<string, unknown>)[k] : undefined), env);

const shown = (v: unknown): string =>
  v === null || v === undefined ? "unknown" : Array.isArray(v) ? v.join(", ") : String(v);

/** Each field compared: its label and where it is in the stored environment. */
const FIELDS: readonly { label: string; path: string }[] = [
  { label: "umpire", path: "umpire" },
  { label: "chromium", path: "chromium.version" },
  { label: "chromium binary", path: "chromium.binary" },
  { label: "playwright", path: "playwright" },
  { label: "node", path: "node" },
  { label: "os", path: "os.platform" },
  { label: "os release", path: "os.release" },
  { label: "device scale factor", path: "deviceScaleFactors" },
  { label: "fonts", path: "fonts.hash" },
];

/** The changes from `base` to `candidate`, one phrase each; empty when nothing changed or either is unknown. */
export function environmentChanges(base: Env, candidate: Env): string[] {
  if (!base || !candidate) return [];
  const changes: string[] = [];
  for (const { label, path } of FIELDS) {
    const [a, b] = [shown(at(base, path)), shown(at(candidate, path))];
    if (a !== b) changes.push(`${label} ${a} -> ${b}`);
  }
  const targetsA = (at(base, "targets") ?? {}) as Record<string, unknown>;
  const targetsB = (at(candidate, "targets") ?? {}) as Record<string, unknown>;
  for (const name of [...new Set([...Object.keys(targetsA), ...Object.keys(targetsB)])].sort()) {
    const [a, b] = [shown(targetsA[name]), shown(targetsB[name])];
    if (a !== b) changes.push(`target ${name} ${a} -> ${b}`);
  }
  return changes;
}

/**
 * The run's stored environment with umpire's version in it: runs stored before the environment
 * carried it (issue 36) still have the run's own `umpireVersion`. Undefined when none was stored.
 */
export function environmentOf(run: RunRecord): Record<string, unknown> | undefined {
  return run.environment ? { umpire: run.umpireVersion, ...run.environment } : undefined;
}

/** One line saying what a run ran on: "umpire 0.2.0, chromium 150.0 (local), playwright 1.65.1, ...". */
export function environmentSummary(env: Env): string {
  if (!env) return "not recorded (a run stored before umpire recorded it)";
  const chromium = at(env, "chromium.version");
  const endpoint = at(env, "chromium.endpoint");
  const fonts = at(env, "fonts") as { hash?: string; count?: number } | null | undefined;
  const targets = Object.entries((at(env, "targets") ?? {}) as Record<string, unknown>);
  return [
    `umpire ${shown(at(env, "umpire"))}`,
    `chromium ${shown(chromium)}${endpoint ? ` (${shown(endpoint)})` : ""}`,
    `playwright ${shown(at(env, "playwright"))}`,
    `node ${shown(at(env, "node"))}`,
    `${shown(at(env, "os.platform"))} ${shown(at(env, "os.release"))} ${shown(at(env, "os.arch"))}`,
    `fonts ${fonts ? `${shown(fonts.hash)} (${shown(fonts.count)})` : "unknown"}`,
    `device scale ${shown(at(env, "deviceScaleFactors"))}`,
    ...(targets.length ? [`targets ${targets.map(([name, v]) => `${name} ${shown(v)}`).join(", ")}`] : []),
  ].join(", ");
}

/** "environment changed: ..." lines, one per candidate run whose environment differs from the base run's. */
export function environmentLines(runs: readonly RunRecord[]): string[] {
  const [base, ...candidates] = runs;
  if (!base) return [];
  return candidates.flatMap((run) => {
    const changes = environmentChanges(environmentOf(base), environmentOf(run));
    return changes.length ? [`environment changed (${base.id} -> ${run.id}): ${changes.join("; ")}`] : [];
  });
}

/** "re-judged: RUN: 3 of 4 trials ..." for each run holding trials judged again by `umpire rejudge`. */
export function rejudgedLines(runs: readonly { id: string; trials: readonly object[] }[]): string[] {
  return runs.flatMap((run) => {
    const n = run.trials.filter((t) => (t as Pick<TrialRecord, "rejudgedAt">).rejudgedAt).length;
    return n
      ? [
          `re-judged: ${run.id}: ${n} of ${run.trials.length} trials judged again by umpire rejudge (their latest judgement is used)`,
        ]
      : [];
  });
}
