/**
 * Checks an agent could forge do not decide its verdict. A command agent drives the browser with
 * its own code (and, outside the sandbox, has this user's files), so for its trials:
 * - page checks judge a fresh load of the page's URL in a browser context the agent never had
 *   (check-probes.ts): not the DOM it may have rewritten, the URL it may have pushState'd to, or
 *   the storage and cookies its script may have written;
 * - storage checks (localStorage, sessionStorage, cookies: all writable by script) cannot decide a
 *   pass: their pass is reported, `observed`, advisory. Their FAILURE still fails the trial: an
 *   agent can forge a pass, never a failure (issue #38 §4: an agent that did nothing passed beside
 *   its own failing storage check while the failure was demoted with the pass);
 * - outside the sandbox, file and custom checks (which read the workspace the agent could write)
 *   likewise; inside it the workspace is not the agent's, so what is there came through the app
 *   or the browser's downloads;
 * - a trial whose agent crashed never passes.
 * docs/security.md has the table.
 */
import type { CheckResult } from "../../checks/types.js";

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

/** Why a check of a forgeable kind cannot prove a pass for a command agent. */
function whyForgeable(kind: string, driver: Driver): string {
  if (kind === "storage") {
    return "the agent's own script can write localStorage, sessionStorage and cookies, so this shows what the browser held, not that the app wrote it";
  }
  return `${driver.sandboxed ? "a" : "outside the sandbox, the"} command agent can write the workspace this check reads`;
}

export function withoutForgeable(
  results: readonly CheckResult[],
  driver: Driver,
  agentCrashed: boolean,
): CheckResult[] {
  const forgeable = forgeableKinds(driver);
  const demoted = results.map((r) => {
    if (!r.required || !forgeable.has(r.kind)) return r;
    const why = whyForgeable(r.kind, driver);
    // A failure still decides (it fails the trial); a crash does not (the agent must not turn its failure into an error).
    if (!r.pass && !r.crashed) {
      const failing = `observed; its failure still fails the trial, though its pass would not decide: ${why}`;
      return {
        ...r,
        confidence: "observed" as const,
        reason: `${r.reason} (${failing})`,
        evidence: { ...r.evidence, forgeable: why },
      };
    }
    const notDeciding = `observed, not deciding: ${why}`;
    return {
      ...r,
      required: false,
      confidence: "observed" as const,
      reason: `${r.reason} (${notDeciding})`,
      evidence: { ...r.evidence, notDeciding },
    };
  });
  const extra: CheckResult[] = [];
  // A pass needs at least one required check the agent could not have forged.
  if (results.some((r) => r.required) && !results.some((r) => r.required && !forgeable.has(r.kind))) {
    extra.push(
      undecided(
        "every required check reads something this agent could have written itself, so none can decide a pass; run it in the sandbox or add an effects, http or page check",
      ),
    );
  }
  if (agentCrashed && driver.external)
    extra.push(undecided("the agent crashed: a trial whose agent crashed never passes"));
  return [...demoted, ...extra];
}

function undecided(reason: string): CheckResult {
  return {
    kind: "guard",
    name: "decided by an unforgeable check",
    required: true,
    pass: false,
    reason,
    evidence: {},
    confidence: "verified",
    ms: 0,
  };
}
