/**
 * A declared target's version (`version: { url }` or `{ command }` in its declaration), read once
 * per run and stored with the run's environment, so `compare` can say "target app 1.4 -> 1.5".
 * A source that fails is reported as such in the version text, never as a run failure: the
 * version describes the run, it does not decide it.
 */
import path from "node:path";
import { runCommand } from "../checks/run-command.js";
import type { TargetDecl } from "../task/target-decl.js";
import { substituteTrialVars, type TrialVars } from "../task/trial-vars.js";
import { messageOf } from "../errors.js";

/** Longest version text kept (a version endpoint that returns a whole page is cut). */
export const MAX_VERSION_CHARS = 200;
const TIMEOUT_MS = 15_000;

const tidy = (text: string) => text.trim().replace(/\s+/g, " ").slice(0, MAX_VERSION_CHARS);

export async function readTargetVersion(
  source: NonNullable<TargetDecl["version"]>,
  where: { name: string; baseUrl: string; vars: TrialVars; configDir: string; env: NodeJS.ProcessEnv },
): Promise<string> {
  if ("url" in source) {
    // Read per instance before any trial: its own variables ($PORT, ...) apply, the trial's do not.
    const url = new URL(substituteTrialVars(source.url, where.vars), `${where.baseUrl}/`).toString();
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
      const text = tidy(await res.text());
      return res.ok ? text : `unknown (GET ${url} answered ${res.status})`;
    } catch (e) {
      return `unknown (GET ${url} failed: ${messageOf(e)})`;
    }
  }
  const outcome = await runCommand(source.command, {
    cwd: path.resolve(where.configDir, source.cwd ?? "."),
    env: { ...where.env, TARGET_URL: where.baseUrl },
    timeoutMs: TIMEOUT_MS,
  });
  if (outcome.error || outcome.timedOut || outcome.code !== 0) {
    return `unknown (the version command ${outcome.error ? `could not start: ${outcome.error}` : outcome.timedOut ? "timed out" : `exited with ${outcome.code}`})`;
  }
  return tidy(outcome.stdout);
}
