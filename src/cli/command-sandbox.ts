/**
 * The run's sandbox for command agents: bubblewrap unless `--no-sandbox`; where it cannot start
 * (no bwrap, no user namespaces) the run says so loudly and every trial records `sandbox: none`.
 */
import { homedir } from "node:os";
import { dirname } from "node:path";
import { BWRAP, sandboxUnavailable, type SandboxMode } from "../runner/agent-sandbox.js";

export interface CommandSandboxOptions {
  noSandbox: boolean;
  outDir: string;
  dbPath: string;
  /** The environment: `UMPIRE_BWRAP` names the bubblewrap to run (default /usr/bin/bwrap). */
  env: Readonly<Record<string, string | undefined>>;
  warn: (line: string) => void;
}

export function commandSandbox(options: CommandSandboxOptions): SandboxMode {
  if (options.noSandbox) {
    options.warn(
      "umpire: --no-sandbox: command agents run outside the sandbox, with this user's files, processes and network (trials record sandbox: none)",
    );
    return { kind: "none", why: "--no-sandbox" };
  }
  const binary = options.env.UMPIRE_BWRAP || BWRAP;
  const why = sandboxUnavailable(binary);
  if (why) {
    options.warn(
      `umpire: WARNING: the sandbox for command agents cannot start: ${why}. They run UNSANDBOXED (trials record sandbox: none); pass --no-sandbox to accept that explicitly`,
    );
    return { kind: "none", why };
  }
  // The store and every run's folder stay out of the agent's sight (its trial's own agent/ folder is mounted back).
  return {
    kind: "bwrap",
    binary,
    hide: [
      options.outDir,
      options.dbPath,
      `${options.dbPath}-wal`,
      `${options.dbPath}-shm`,
      dirname(options.dbPath),
      homedir(),
    ],
  };
}
