/**
 * CLI start-up: `umpire --version`, `umpire --help` and `umpire runs --help` through the built bin
 * (what node_modules/.bin/umpire runs), against `node -e 0` measured in the same loop, so the
 * ratio holds whatever else the machine is doing. `npx umpire --version` is timed too: npx itself
 * (npm's own start-up) is part of what a user waits for, but not umpire's to make faster.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { median, ratio, round } from "./stats.js";

/**
 * The aim, as a ratio so it survives a loaded machine: on an idle 2-core machine `node -e 0` takes
 * ~0.1 s, so 3x is the 0.3 s for `--version` and `--help`.
 */
export const STARTUP_AIM_RATIO = 3;

export interface StartupFigure {
  medianMs: number;
  /** The median over `node -e 0`'s median from the same rounds. */
  ratio: number;
}

export interface StartupBench {
  samples: number;
  nodeMedianMs: number;
  version: StartupFigure;
  help: StartupFigure;
  runsHelp: StartupFigure;
  npxVersion: StartupFigure;
}

/** Milliseconds for one run; NaN (shown as "?") when it failed, e.g. npx that cannot find the bin. */
function timeMs(command: string, args: string[], cwd: string): number {
  const started = performance.now();
  const result = spawnSync(command, args, { cwd, stdio: "ignore" });
  return result.status === 0 ? performance.now() - started : Number.NaN;
}

/** `samples` rounds; each round runs every variant once, in the same order, so load hits them alike. */
export function benchStartup(root: string, samples: number): StartupBench {
  const bin = join(root, "bin/umpire.js");
  if (!existsSync(join(root, "dist/src/cli/main.js"))) throw new Error("the CLI is not built: run npm run build first");
  const variants = {
    node: [process.execPath, ["-e", "0"]],
    version: [process.execPath, [bin, "--version"]],
    help: [process.execPath, [bin, "--help"]],
    runsHelp: [process.execPath, [bin, "runs", "--help"]],
    npxVersion: ["npx", ["--no", "--", "umpire", "--version"]],
  } as const;
  const times: Record<keyof typeof variants, number[]> = {
    node: [],
    version: [],
    help: [],
    runsHelp: [],
    npxVersion: [],
  };
  for (const [command, args] of Object.values(variants)) timeMs(command, [...args], root); // warm the file cache
  for (let i = 0; i < samples; i += 1) {
    for (const [name, [command, args]] of Object.entries(variants))
      times[name as keyof typeof variants].push(timeMs(command, [...args], root));
  }
  const nodeMedianMs = median(times.node);
  const figure = (values: number[]): StartupFigure => ({
    medianMs: round(median(values)),
    ratio: round(ratio(median(values), nodeMedianMs), 2),
  });
  return {
    samples,
    nodeMedianMs: round(nodeMedianMs),
    version: figure(times.version),
    help: figure(times.help),
    runsHelp: figure(times.runsHelp),
    npxVersion: figure(times.npxVersion),
  };
}
