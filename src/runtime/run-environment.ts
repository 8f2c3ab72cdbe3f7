/**
 * The environment a run ran on (issue 29 item 6), stored with the run so that "a browser upgrade
 * moved my score" can be seen: umpire's own version, Chromium's version and binary, Playwright's version, the OS, the
 * tasks' device scale factors, a fingerprint of the installed fonts (they change how pages lay out
 * and look) and each declared target's version. `compare` names what changed (report/environment-diff.ts).
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { arch, platform, release } from "node:os";
import { locateChromium } from "../browser/chromium.js";
import type { BrowserProvider } from "../runner/schedule/browser-pool.js";
import type { Task } from "../task/schema.js";
import type { TargetSet } from "../targets/target-set.js";
import { VERSION } from "./version.js";

export interface RunEnvironment {
  /** umpire's own version: a harness upgrade can move verdicts too (issue 36). */
  umpire: string;
  chromium: { version: string | null; binary: string | null; endpoint: string | null };
  playwright: string | null;
  os: { platform: string; release: string; arch: string };
  node: string;
  deviceScaleFactors: number[];
  /** sha256 (16 hex digits) of the sorted `fc-list` lines, and how many fonts; null where fc-list is missing. */
  fonts: { hash: string; count: number } | null;
  /** Declared targets' versions, by target name (only targets that declare a `version` source). */
  targets: Record<string, string>;
}

function playwrightVersion(): string | null {
  try {
    return (createRequire(import.meta.url)("playwright/package.json") as { version: string }).version;
  } catch {
    return null;
  }
}

/** The installed fonts as fontconfig lists them, hashed: equal hashes, same fonts. */
export function fontsFingerprint(): Promise<RunEnvironment["fonts"]> {
  return new Promise((resolve) => {
    execFile(
      "fc-list",
      [":", "family", "style", "file"],
      { timeout: 10_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout) => {
        if (error) return resolve(null);
        const lines = stdout
          .split("\n")
          .map((l) => l.trim())
          .filter(Boolean)
          .sort();
        resolve({
          hash: createHash("sha256").update(lines.join("\n")).digest("hex").slice(0, 16),
          count: lines.length,
        });
      },
    );
  });
}

async function chromiumOf(browsers: BrowserProvider, env: NodeJS.ProcessEnv): Promise<RunEnvironment["chromium"]> {
  let version: string | null = null;
  let endpoint: string | null = null;
  try {
    const lease = await browsers.acquire();
    try {
      version = lease.browser.version();
      endpoint = lease.endpoint;
    } finally {
      lease.release();
    }
  } catch {
    // No browser now: the trials will say why; the environment says "unknown".
  }
  let binary: string | null = null;
  try {
    binary = endpoint === "local" ? (locateChromium(env)?.path ?? null) : null;
  } catch {
    binary = null;
  }
  return { version, binary, endpoint };
}

export async function collectRunEnvironment(options: {
  browsers: BrowserProvider;
  targets: TargetSet;
  tasks: readonly Task[];
  env: NodeJS.ProcessEnv;
}): Promise<RunEnvironment> {
  const versioned = options.targets.all().filter((t) => typeof t.version === "function");
  const [chromium, fonts, versions] = await Promise.all([
    chromiumOf(options.browsers, options.env),
    fontsFingerprint(),
    Promise.all(versioned.map(async (t) => [t.name, await t.version!()] as const)),
  ]);
  return {
    umpire: VERSION,
    chromium,
    playwright: playwrightVersion(),
    os: { platform: platform(), release: release(), arch: arch() },
    node: process.version,
    deviceScaleFactors: [...new Set(options.tasks.map((t) => t.viewport.deviceScaleFactor))].sort((a, b) => a - b),
    fonts,
    targets: Object.fromEntries(versions),
  };
}
