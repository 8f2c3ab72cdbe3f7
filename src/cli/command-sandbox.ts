/**
 * The run's sandbox for command agents: bubblewrap unless `--no-sandbox`; where it cannot start
 * (no bwrap, no user namespaces) the run says so loudly and every trial records `sandbox: none`.
 */
import { homedir } from "node:os";
import { dirname } from "node:path";
import { sandboxUnavailable, type SandboxMode } from "../runner/agent-sandbox.js";

export function commandSandbox(options: { noSandbox: boolean; outDir: string; dbPath: string; warn: (line: string) => void }): SandboxMode {
  if (options.noSandbox) {
    options.warn("umpire: --no-sandbox: command agents run outside the sandbox, with this user's files, processes and network (trials record sandbox: none)");
    return { kind: "none", why: "--no-sandbox" };
  }
  const why = sandboxUnavailable();
  if (why) {
    options.warn(`umpire: WARNING: the sandbox for command agents cannot start: ${why}. They run UNSANDBOXED (trials record sandbox: none); pass --no-sandbox to accept that explicitly`);
    return { kind: "none", why };
  }
  // The store and every run's folder stay out of the agent's sight (its trial's own agent/ folder is mounted back).
  return { kind: "bwrap", hide: [options.outDir, options.dbPath, `${options.dbPath}-wal`, `${options.dbPath}-shm`, dirname(options.dbPath), homedir()] };
}
