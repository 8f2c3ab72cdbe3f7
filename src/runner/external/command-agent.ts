/**
 * The command agent as the runner needs it, apart from the external trial that plays it: the trial
 * plan and the CLI name an agent without standing above the code that runs one.
 */
import type { SandboxMode } from "./agent-sandbox.js";

/** The command agent as the runner needs it (resolved from the config file's `agents:`). */
export interface CommandAgentSpec {
  name: string;
  /** argv: the program and its arguments; no shell. */
  command: string[];
  /** Absolute working folder. */
  cwd: string;
  /** Extra environment variables for the command (values never stored). */
  env: Record<string, string>;
  /** Names of umpire's environment variables the command also gets (never a key umpire holds). */
  passEnv: string[];
  /** Origins the agent's own code may reach from the sandbox (its model endpoints). */
  network: string[];
  /** How the command is contained: bubblewrap, or none (and why). */
  sandbox: SandboxMode;
  /** `modelProxy`: its model calls go through umpire (the CLI reads `apiKey` from `apiKeyEnv`); null: its own. */
  modelProxy?: { baseUrl: string; apiKeyEnv: string | null; apiKey?: string | null } | null;
}
