/**
 * Checks an agent could forge do not decide its verdict. A command agent drives the browser with
 * its own code (and, outside the sandbox, has this user's files), so for its trials:
 * - page checks judge a fresh load of the page's URL in a new tab (see concludeTrial), not the DOM
 *   the agent may have rewritten;
 * - storage checks (localStorage, sessionStorage, cookies: all writable by script) are reported,
 *   `observed`, but do not decide;
 * - outside the sandbox, file and custom checks (which read the workspace the agent could write)
 *   likewise; inside it the workspace is not the agent's, so what is there came through the app
 *   or the browser's downloads;
 * - a trial whose agent crashed never passes.
 * docs/security.md has the table.
 */
import type { CheckResult } from "../checks/index.js";

export interface Driver {
  /** The agent brings its own code (kind command). */
  external: boolean;
  /** It ran in the sandbox (its workspace was out of its reach). */
  sandboxed: boolean;
}

/** The check kinds whose results a driver of this kind could have forged. */
export function forgeableKinds(driver: Driver): ReadonlySet<string> {
  if (!driver.external) return new Set();
  return new Set(driver.sandboxed ? ["storage"] : ["storage", "file", "custom"]);
}

export function withoutForgeable(results: readonly CheckResult[], driver: Driver, agentCrashed: boolean): CheckResult[] {
  const forgeable = forgeableKinds(driver);
  const demoted = results.map((r) =>
    r.required && forgeable.has(r.kind)
      ? { ...r, required: false, confidence: "observed" as const, reason: `${r.reason} (not deciding: ${driver.sandboxed ? "a" : "an unsandboxed"} command agent can write what this check reads)` }
      : r,
  );
  const extra: CheckResult[] = [];
  if (results.some((r) => r.required) && !demoted.some((r) => r.required)) {
    extra.push(undecided("every required check reads something this agent could have written itself, so none decides; run it in the sandbox or add an effects check"));
  }
  if (agentCrashed && driver.external) extra.push(undecided("the agent crashed: a trial whose agent crashed never passes"));
  return [...demoted, ...extra];
}

function undecided(reason: string): CheckResult {
  return { kind: "guard", name: "decided by an unforgeable check", required: true, pass: false, reason, evidence: {}, confidence: "verified", ms: 0 };
}
