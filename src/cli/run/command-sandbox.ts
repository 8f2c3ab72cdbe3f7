/**
 * The run's sandbox for command agents: bubblewrap unless `--no-sandbox`. Where it cannot start
 * (no bwrap, no user namespaces) the run is refused with the fix: running the agent with this
 * user's files and network is the user's explicit choice (`--no-sandbox`), never a silent
 * fallback (issue #38 §4: a warning, an unsandboxed run and exit 0 with a false pass).
 */
import { homedir } from "node:os";
import { dirname } from "node:path";
import { UmpireError } from "../../errors.js";
import { BWRAP, sandboxUnavailable, type SandboxMode } from "../../runner/external/agent-sandbox.js";

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
    throw new UmpireError(
      "config",
      `the sandbox for command agents cannot start: ${why}; umpire does not run a command agent unsandboxed unless told to`,
      "install bubblewrap (npm run setup, or apt-get install bubblewrap) and allow user namespaces, or pass --no-sandbox to run command agents with this user's files, processes and network (trials record sandbox: none)",
    );
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
