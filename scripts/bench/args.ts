/**
 * The benchmark's command line, as a pure function so it can be tested without running anything.
 *
 *   npm run bench                      every benchmark, full sample sizes (~10 min on 2 cores)
 *   npm run bench -- --quick           smaller samples, a smoke run (~2 min)
 *   npm run bench -- --only setup,step  just those benchmarks
 */
import { parseArgs } from "node:util";

/** Every benchmark, in the order they run. */
export const BENCH_NAMES = [
  "startup",
  "sessions",
  "model",
  "detector",
  "setup",
  "step",
  "anyapp",
  "miniwob",
  "capture",
  "cpu",
  "throughput",
  "latency",
  "report",
  "store",
  "remote",
  "pool",
  "gold",
] as const;
export type BenchName = (typeof BENCH_NAMES)[number];

export const BENCH_DESCRIPTIONS: Record<BenchName, string> = {
  startup: "CLI start-up: umpire --version, --help, runs --help (and npx umpire --version) vs node -e 0",
  sessions: "fixture session creation (median over 1000)",
  model: "the reference model's own time per request",
  detector: "the repetition detector's cost per step at 1280x800",
  setup: "trial set-up (TrialEnvironment.open) vs a bare newContext + newPage + goto",
  step: "the harness's time per step vs a bare Playwright loop replaying the same actions",
  anyapp:
    "per-step harness time on the example app (TodoMVC, marks resolved each step) vs the bare loop on it, beside the fixture's",
  miniwob:
    "per-step harness time on MiniWoB++ (the test pack's environments and seeds, the oracle's actions): umpire's loop vs a bare Playwright loop",
  capture: "the observation's capture: page.screenshot (old path) vs CDP Page.captureScreenshot with optimizeForSpeed",
  cpu: "CPU per trial counted by the kernel (a cgroup around `umpire run`): the fixture suite, and the latency tasks at 2 s a turn, by process kind",
  throughput: "trials per minute at concurrency 1, 2, 4 with 500 ms model latency, and peak memory per trial",
  latency:
    "suite wall time, trials/min, cores used, PSS per trial and 429s at 2 s model latency: concurrency 1, 4, 8, 16, adaptive",
  report: "HTML report generation for 1,000 trials (scripts/bench/report.ts)",
  store: "store queries of history, runs and compare on 100,000 trials written through the store's write path",
  pool: "the TiddlyWiki example (a wiki server from npm, reset by restore + restart) on 1 instance vs 4, its 4 tasks x 2 at 2 s a turn: speed-up, reset per trial, memory per instance",
  remote: "suite wall time through one local browser vs two browser servers (scripts/bench-scale.ts, when present)",
  gold: "every bundled gold trajectory (tasks/, TodoMVC, TiddlyWiki, the settling example) N times at concurrency 1, 2, 4, quiet and beside a CPU-bound process per core: failed gold trials (aim 0), error trials and causes (only with --only gold)",
};

export interface BenchArgs {
  quick: boolean;
  only: BenchName[];
  /** True when --only named the benchmarks (quick mode then runs even the long optional ones). */
  onlyGiven: boolean;
  /** Where the JSON results go. */
  out: string;
  help: boolean;
  /** Run only the soak (500 trials at concurrency 8; with --quick, 24), never part of the default set. */
  soak: boolean;
  /** `--levels 8,adaptive`: the latency bench's concurrency levels instead of 1/4/8/16/adaptive (a quicker re-measure). */
  levels?: (number | "adaptive")[];
  /** `--gold-repeats N`: how many times the gold bench plays each gold trajectory per cell (default 3; --quick 1). */
  goldRepeats?: number;
  /** `--gold-loads quiet|loaded|both`: which loads the gold bench plays (default both), so each can be run apart. */
  goldLoads?: ("quiet" | "loaded")[];
  /** `--gold-projects a,b`: only these of the gold bench's projects (default all). */
  goldProjects?: string[];
}

/** The gold bench's projects by name (scripts/bench/gold.ts GOLD_PROJECTS holds their folders). */
export const GOLD_PROJECT_NAMES = ["fixture", "todomvc", "tiddlywiki", "settling"] as const;

export const BENCH_USAGE = `Usage: npm run bench -- [--quick] [--only name,...] [--out FILE]
       npm run bench -- --soak [--quick] [--out FILE]

  --quick          fewer samples (a smoke run of a few minutes)
  --soak           only the soak: 500 trials at concurrency 8 on the 2 s latency profile, PSS and open
                   handles sampled, slope after warm-up reported (~45 min; --quick: 24 trials)
  --only a,b       run only these benchmarks: ${BENCH_NAMES.join(", ")}
  --out FILE       where to write the JSON results (default results/bench.json; the soak: results/bench-soak.json)
  --levels a,b     the latency benchmark's concurrency levels (default 1,4,8,16,adaptive), e.g. 8,adaptive
  --gold-repeats N the gold benchmark's plays of each gold trajectory per concurrency and load (default 3; --quick 1)
  --gold-loads L   the gold benchmark's loads: quiet, loaded (beside a CPU-bound process per core) or both (default)
  --gold-projects a,b  only these gold projects: ${GOLD_PROJECT_NAMES.join(", ")} (default all)

Benchmarks:
${BENCH_NAMES.map((n) => `  ${n.padEnd(11)} ${BENCH_DESCRIPTIONS[n]}`).join("\n")}
`;

/** Parses the benchmark's arguments; throws an Error naming the bad flag or name and the fix. */
export function parseBenchArgs(argv: readonly string[]): BenchArgs {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: {
      quick: { type: "boolean", default: false },
      only: { type: "string", multiple: true },
      out: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
      soak: { type: "boolean", default: false },
      levels: { type: "string" },
      "gold-repeats": { type: "string" },
      "gold-loads": { type: "string" },
      "gold-projects": { type: "string" },
    },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length > 0)
    throw new Error(`unexpected argument "${positionals[0]}"; name benchmarks with --only ${positionals.join(",")}`);
  const requested = (values.only ?? [])
    .flatMap((v) => v.split(","))
    .map((v) => v.trim())
    .filter((v) => v !== "");
  const unknown = requested.filter((n) => !(BENCH_NAMES as readonly string[]).includes(n));
  if (unknown.length > 0) {
    throw new Error(
      `--only: unknown benchmark ${unknown.map((n) => `"${n}"`).join(", ")}; choose from ${BENCH_NAMES.join(", ")}`,
    );
  }
  if (values.only !== undefined && requested.length === 0)
    throw new Error(`--only needs at least one name: ${BENCH_NAMES.join(", ")}`);
  if (values.soak && requested.length > 0)
    throw new Error("--soak runs the soak alone; drop --only (or drop --soak to run those benchmarks)");
  // Keep the canonical order whatever order they were given in.
  const only = requested.length > 0 ? BENCH_NAMES.filter((n) => requested.includes(n)) : [...BENCH_NAMES];
  const levels = values.levels === undefined ? undefined : parseLevels(values.levels);
  const goldRepeats = values["gold-repeats"];
  if (goldRepeats !== undefined && !/^[1-9][0-9]*$/.test(goldRepeats))
    throw new Error(
      `--gold-repeats: "${goldRepeats}" is not a count; give a whole number from 1, e.g. --gold-repeats 2`,
    );
  const goldLoads = values["gold-loads"] === undefined ? undefined : parseGoldLoads(values["gold-loads"]);
  const goldProjects = values["gold-projects"] === undefined ? undefined : parseGoldProjects(values["gold-projects"]);
  return {
    quick: values.quick ?? false,
    only,
    onlyGiven: requested.length > 0,
    out: values.out ?? (values.soak ? "results/bench-soak.json" : "results/bench.json"),
    help: values.help ?? false,
    soak: values.soak ?? false,
    ...(levels ? { levels } : {}),
    ...(goldRepeats ? { goldRepeats: Number(goldRepeats) } : {}),
    ...(goldLoads ? { goldLoads } : {}),
    ...(goldProjects ? { goldProjects } : {}),
  };
}

function parseGoldLoads(text: string): ("quiet" | "loaded")[] {
  if (text === "both") return ["quiet", "loaded"];
  if (text === "quiet" || text === "loaded") return [text];
  throw new Error(`--gold-loads: "${text}" is not a load; give quiet, loaded or both`);
}

function parseGoldProjects(text: string): string[] {
  const names = text
    .split(",")
    .map((v) => v.trim())
    .filter((v) => v !== "");
  const unknown = names.filter((n) => !(GOLD_PROJECT_NAMES as readonly string[]).includes(n));
  if (names.length === 0 || unknown.length > 0)
    throw new Error(
      `--gold-projects: ${names.length === 0 ? "no project named" : `unknown project ${unknown.map((n) => `"${n}"`).join(", ")}`}; choose from ${GOLD_PROJECT_NAMES.join(", ")}`,
    );
  return names;
}

function parseLevels(text: string): (number | "adaptive")[] {
  const levels = text
    .split(",")
    .map((v) => v.trim())
    .filter((v) => v !== "");
  if (levels.length === 0) throw new Error("--levels needs at least one level, e.g. --levels 8,adaptive");
  return levels.map((v) => {
    if (v === "adaptive") return v;
    if (!/^[1-9][0-9]*$/.test(v))
      throw new Error(
        `--levels: "${v}" is not a concurrency; give whole numbers and/or adaptive, e.g. --levels 8,adaptive`,
      );
    return Number(v);
  });
}
