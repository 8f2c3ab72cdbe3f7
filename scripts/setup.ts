/**
 * `npm run setup`: makes sure this machine has what umpire's tests need: a Chromium umpire can
 * drive (the headless shell first: the cheaper one, docs/performance.md), and Debian's
 * python3-websocket (the Python example agent) and bubblewrap (the command-agent sandbox),
 * installed when we are root on Debian, else named with the command to run.
 *
 * Browser order: an existing one (UMPIRE_CHROMIUM, the PATH, Playwright's own download); else
 * Playwright's download where the network allows; then, as root on Debian, Debian's headless shell
 * and full Chromium (the test that proves both render the same pixels needs both); else stop with
 * the exact commands to run.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { locateChromium, locateFullChromium, locateHeadlessShell } from "../src/browser/chromium.js";

/** The interpreter examples/external-agents/umpire.config.yaml runs the Python agent with. */
export const DEBIAN_PYTHON = "/usr/bin/python3";

/** Debian packages the tests use besides Chromium: each with how to tell it is there and who needs it. */
export const DEBIAN_EXTRAS = [
  // Debian's interpreter, as the example's config runs it: a `python3` first on the PATH (pyenv, a venv)
  // may lack the module Debian's has, or have one Debian's lacks.
  {
    name: "python3-websocket",
    present: () => spawnSync(DEBIAN_PYTHON, ["-c", "import websocket"]).status === 0,
    for: "the Python example agent's test (examples/external-agents)",
  },
  { name: "bubblewrap", present: () => spawnSync("bwrap", ["--version"]).status === 0, for: "the agent sandbox" },
] as const;

const DEBIAN_BROWSERS = ["chromium-headless-shell", "chromium"];

/** Every Debian package setup may install: `.ci/run` installs nothing else (test/unit/house/setup-covers-ci.test.ts). */
export const DEBIAN_PACKAGES = [...DEBIAN_BROWSERS, ...DEBIAN_EXTRAS.map((p) => p.name)];

const isRoot = () => typeof process.getuid === "function" && process.getuid() === 0;
const debianRoot = () => isRoot() && existsSync("/etc/debian_version");

function say(line: string): void {
  process.stdout.write(`setup: ${line}\n`);
}

function aptInstall(packages: string[]): boolean {
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const apt = (args: string[]) =>
    spawnSync("apt-get", args, { stdio: "inherit", env, timeout: 15 * 60_000 }).status === 0;
  say(`installing Debian's ${packages.join(", ")}`);
  return (
    apt(["install", "-y", "-qq", ...packages]) || (apt(["update", "-qq"]) && apt(["install", "-y", "-qq", ...packages]))
  );
}

/** The extras: installed when root on Debian, else each named with its command. */
function extras(): void {
  const missing = DEBIAN_EXTRAS.filter((p) => !p.present());
  if (missing.length === 0) return;
  if (debianRoot() && aptInstall(missing.map((p) => p.name))) return;
  for (const p of missing)
    say(`${p.name} is not installed (needed by ${p.for}); run: sudo apt-get install -y ${p.name}`);
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
  const configured = Boolean(process.env.UMPIRE_CHROMIUM);
  if (found() && (configured || locateHeadlessShell())) return 0;

  // Playwright's own browser build: the usual way on a developer's laptop.
  if (!locateChromium()) {
    if (run("npx", ["--no-install", "playwright", "install", "chromium"], 5 * 60_000) && found()) return 0;
    say("Playwright's browser download did not work here (an offline or restricted network?)");
  }
  if (debianRoot() && !configured && !(locateHeadlessShell() && locateFullChromium())) aptInstall(DEBIAN_BROWSERS);
  if (found()) {
    if (!locateHeadlessShell() && !configured)
      say("tip: a headless shell costs less CPU per trial: apt-get install -y chromium-headless-shell");
    return 0;
  }

  process.stderr.write(
    "setup: no Chromium could be installed automatically. Do one of:\n" +
      "  npx playwright install chromium\n" +
      "  sudo apt-get install -y chromium-headless-shell chromium   (Debian/Ubuntu)\n" +
      "  export UMPIRE_CHROMIUM=/path/to/chromium   (any Chromium or Chrome build)\n",
  );
  return 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) process.exitCode = main();
