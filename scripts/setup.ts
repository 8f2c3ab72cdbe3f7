/**
 * `npm run setup`: makes sure this machine has a Chromium umpire can drive.
 *
 * Order: an existing browser (UMPIRE_CHROMIUM, the PATH, Playwright's own download); else
 * Playwright's download where the network allows; else Debian's packages when we are root;
 * else stop with the exact commands to run. As root on Debian it also adds the headless shell
 * (`chromium-headless-shell`, the cheaper Chromium umpire prefers) and the full browser beside it
 * (the test that proves both render the same pixels needs both).
 * Also bubblewrap (`/usr/bin/bwrap`), the sandbox command agents run in.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { locateChromium, locateFullChromium, locateHeadlessShell } from "../src/browser/chromium.js";

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

/** The sandbox for command agents (docs/security.md); without it their trials record `sandbox: none`. */
function ensureBubblewrap(): void {
  if (existsSync("/usr/bin/bwrap")) return;
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  if (isRoot && existsSync("/etc/debian_version")) {
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    const apt = (args: string[]) => spawnSync("apt-get", args, { stdio: "inherit", env, timeout: 15 * 60_000 }).status === 0;
    say("installing Debian's bubblewrap package (the sandbox for command agents)");
    if (apt(["install", "-y", "-qq", "bubblewrap"]) || (apt(["update", "-qq"]) && apt(["install", "-y", "-qq", "bubblewrap"]))) return;
  }
  say("bubblewrap is missing: command agents will run unsandboxed until you run: sudo apt-get install -y bubblewrap");
}

const DEBIAN_BROWSERS = ["chromium-headless-shell", "chromium"];

function main(): number {
  ensureBubblewrap();
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  const debianRoot = isRoot && existsSync("/etc/debian_version");
  const configured = Boolean(process.env.UMPIRE_CHROMIUM);
  if (found() && (configured || locateHeadlessShell())) return 0;

  // Playwright's own browser build: the usual way on a developer's laptop.
  if (!locateChromium()) {
    if (run("npx", ["--no-install", "playwright", "install", "chromium"], 5 * 60_000) && found()) return 0;
    say("Playwright's browser download did not work here (an offline or restricted network?)");
  }
  if (debianRoot && !configured && !(locateHeadlessShell() && locateFullChromium())) {
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    const apt = (args: string[]) => spawnSync("apt-get", args, { stdio: "inherit", env, timeout: 15 * 60_000 }).status === 0;
    say(`installing Debian's ${DEBIAN_BROWSERS.join(" and ")}`);
    if (!apt(["install", "-y", "-qq", ...DEBIAN_BROWSERS])) apt(["update", "-qq"]) && apt(["install", "-y", "-qq", ...DEBIAN_BROWSERS]);
  }
  if (found()) {
    if (!locateHeadlessShell() && !configured) say("tip: a headless shell costs less CPU per trial: apt-get install -y chromium-headless-shell");
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

process.exitCode = main();
