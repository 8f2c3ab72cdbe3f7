/**
 * `npm run setup`: makes sure this machine has what umpire's tests need: a Chromium umpire can
 * drive, and Debian's python3-websocket (the Python example agent) and bubblewrap (the agent
 * sandbox), installed when we are root on Debian, else named with the command to run.
 *
 * Order: an existing browser (UMPIRE_CHROMIUM, the PATH, Playwright's own download); else
 * Playwright's download where the network allows; else Debian's package when we are root;
 * else stop with the exact commands to run.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { locateChromium } from "../src/browser/chromium.js";

/** Debian packages the tests use besides Chromium: each with how to tell it is there and who needs it. */
export const DEBIAN_EXTRAS = [
  { name: "python3-websocket", present: () => spawnSync("python3", ["-c", "import websocket"]).status === 0, for: "the Python example agent's test (examples/external-agents)" },
  { name: "bubblewrap", present: () => spawnSync("bwrap", ["--version"]).status === 0, for: "the agent sandbox" },
] as const;

/** Every Debian package setup may install: `.ci/run` installs nothing else (test/unit/setup-covers-ci.test.ts). */
export const DEBIAN_PACKAGES = ["chromium", ...DEBIAN_EXTRAS.map((p) => p.name)];

const isRoot = () => typeof process.getuid === "function" && process.getuid() === 0;

function aptInstall(packages: string[]): boolean {
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const apt = (args: string[]) => spawnSync("apt-get", args, { stdio: "inherit", env, timeout: 15 * 60_000 }).status === 0;
  say(`installing Debian's ${packages.join(", ")}`);
  return apt(["install", "-y", "-qq", ...packages]) || (apt(["update", "-qq"]) && apt(["install", "-y", "-qq", ...packages]));
}

/** The extras: installed when root on Debian, else each named with its command (tests needing one say so and skip). */
function extras(): void {
  const missing = DEBIAN_EXTRAS.filter((p) => !p.present());
  if (missing.length === 0) return;
  if (isRoot() && existsSync("/etc/debian_version") && aptInstall(missing.map((p) => p.name))) return;
  for (const p of missing) say(`${p.name} is not installed (needed by ${p.for}); run: sudo apt-get install -y ${p.name}`);
}

function say(line: string): void {
  process.stdout.write(`setup: ${line}\n`);
}

function run(command: string, args: string[], timeoutMs: number): boolean {
  say(`running: ${command} ${args.join(" ")}`);
  const result = spawnSync(command, args, { stdio: "inherit", timeout: timeoutMs });
  return result.status === 0;
}

function found(): boolean {
  const location = locateChromium();
  if (location) say(`Chromium: ${location.path} (from ${location.source})`);
  return Boolean(location);
}

function main(): number {
  extras();
  if (found()) return 0;

  // Playwright's own browser build: the usual way on a developer's laptop.
  if (run("npx", ["--no-install", "playwright", "install", "chromium"], 5 * 60_000) && found()) return 0;
  say("Playwright's browser download did not work here (an offline or restricted network?)");

  if (isRoot() && existsSync("/etc/debian_version") && aptInstall(["chromium"]) && found()) return 0;

  process.stderr.write(
    "setup: no Chromium could be installed automatically. Do one of:\n" +
      "  npx playwright install chromium\n" +
      "  sudo apt-get install -y chromium          (Debian/Ubuntu)\n" +
      "  export UMPIRE_CHROMIUM=/path/to/chromium   (any Chromium or Chrome build)\n",
  );
  return 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) process.exitCode = main();
