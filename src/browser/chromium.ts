/**
 * Browser discovery and launch: the one place that knows where Chromium lives and which
 * flags keep it quiet and deterministic offline.
 */
import { existsSync } from "node:fs";
import { basename, delimiter, join } from "node:path";
import type { Browser, LaunchOptions } from "playwright";
import { chromium } from "./playwright.js";
import { UmpireError } from "../errors.js";
import { browserScratchDir } from "./scratch.js";

/**
 * Flags that stop Chromium from phoning home (refused connections and DNS look-ups on a closed
 * network), keep rendering deterministic, and let it run as root in a container.
 */
export const CHROMIUM_FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
  "--disable-default-apps",
  "--disable-extensions",
  "--mute-audio",
  "--hide-scrollbars",
  "--font-render-hinting=none",
  "--force-color-profile=srgb",
] as const;

/**
 * The headless shell first: the old headless Chromium (what Playwright itself uses for headless runs)
 * renders the same pixels as the full browser for about a quarter less CPU per trial (docs/performance.md).
 */
const HEADLESS_SHELL_NAMES = ["chromium-headless-shell", "chrome-headless-shell"];
const FULL_BROWSER_NAMES = ["chromium", "chromium-browser", "google-chrome-stable", "google-chrome"];
const PATH_NAMES = [...HEADLESS_SHELL_NAMES, ...FULL_BROWSER_NAMES];

/** `headless-shell`: the old headless shell; `full`: a whole browser run in its new headless mode. */
export type ChromiumFlavour = "headless-shell" | "full";

export interface ChromiumLocation {
  path: string;
  source: "UMPIRE_CHROMIUM" | "PATH" | "playwright";
  flavour: ChromiumFlavour;
}

/** Which kind of Chromium an executable is, from its file name (both kinds answer to the same flags). */
export function flavourOf(path: string): ChromiumFlavour {
  return /headless[-_]shell/i.test(basename(path)) ? "headless-shell" : "full";
}

/** One line for the run's output: which binary, and what kind. */
export function describeChromium(location: ChromiumLocation): string {
  const kind = location.flavour === "headless-shell" ? "headless shell" : "full Chromium, new headless mode";
  return `${location.path} (${kind}; from ${location.source})`;
}

function onPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** Playwright's own download, if one was ever installed on this machine. */
function playwrightBundled(): string | undefined {
  try {
    const path = chromium.executablePath();
    return path && existsSync(path) ? path : undefined;
  } catch {
    return undefined;
  }
}

/** Looks only for a full browser (the comparison test and anyone who sets UMPIRE_CHROMIUM to one). */
export function locateFullChromium(env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const name of FULL_BROWSER_NAMES) {
    const path = onPath(name, env);
    if (path) return path;
  }
  return playwrightBundled();
}

/** Looks only for a headless shell on the PATH. */
export function locateHeadlessShell(env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const name of HEADLESS_SHELL_NAMES) {
    const path = onPath(name, env);
    if (path) return path;
  }
  return undefined;
}

/** Finds a Chromium: UMPIRE_CHROMIUM, then the PATH (a headless shell before a full browser), then Playwright's own; undefined if none. */
export function locateChromium(env: NodeJS.ProcessEnv = process.env): ChromiumLocation | undefined {
  const configured = env.UMPIRE_CHROMIUM;
  if (configured) {
    if (!existsSync(configured)) {
      throw new UmpireError(
        "browser",
        `UMPIRE_CHROMIUM points at ${configured}, which does not exist`,
        "Set UMPIRE_CHROMIUM to a Chromium executable, or unset it to use the one on the PATH.",
      );
    }
    return { path: configured, source: "UMPIRE_CHROMIUM", flavour: flavourOf(configured) };
  }
  for (const name of PATH_NAMES) {
    const path = onPath(name, env);
    if (path) return { path, source: "PATH", flavour: flavourOf(path) };
  }
  const bundled = playwrightBundled();
  return bundled ? { path: bundled, source: "playwright", flavour: flavourOf(bundled) } : undefined;
}

/** Like locateChromium, but a missing browser is an error that says exactly what to run. */
export function requireChromium(env: NodeJS.ProcessEnv = process.env): ChromiumLocation {
  const found = locateChromium(env);
  if (found) return found;
  throw new UmpireError(
    "browser",
    "No Chromium found (checked UMPIRE_CHROMIUM, the PATH and Playwright's download).",
    "Run `npm run setup` (it installs one), or `npx playwright install chromium`, or as root on Debian `apt-get install -y chromium`, or set UMPIRE_CHROMIUM=/path/to/chromium.",
  );
}

/** Launches a headless Chromium with umpire's flags. */
export async function launchChromium(
  options: LaunchOptions = {},
  env: NodeJS.ProcessEnv = process.env,
): Promise<Browser> {
  const { path } = requireChromium(env);
  // Playwright makes the profile under os.tmpdir(): point that at this process's own folder for the
  // launch, so a profile left by a killed umpire is found and removed by the next one.
  const scratch = browserScratchDir();
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = scratch;
  try {
    return await chromium.launch({
      headless: true,
      // umpire stops on SIGINT, SIGTERM and SIGHUP alike (src/cli/stop-signals.ts): cancel, store, exit.
      // Playwright's own handlers would close the browser under the trials in flight first, and its
      // SIGINT handler then exits the process (130) before a trial is cancelled or stored (issue #38).
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      executablePath: path,
      ...options,
      args: [...CHROMIUM_FLAGS, ...(options.args ?? [])],
    });
  } finally {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
  }
}
