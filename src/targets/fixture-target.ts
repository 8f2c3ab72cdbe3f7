/**
 * The built-in target `fixture`: the cricket site, in the same terms as any app. Its sessions are
 * its per-trial reset (one per trial, keyed by the trial id, so trials are isolated), its effects
 * log is its effects source, and its pages report their own layout (data-mark), which the
 * reference model reads from the control API.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { FixtureControlClient } from "../../fixtures-site/client.js";
import type { Effect } from "../checks/types.js";
import { TargetResetError, type Target, type TrialTarget } from "./contract.js";
import { messageOf } from "../errors.js";

export function fixtureTarget(fixtures: { siteUrl: string; client: FixtureControlClient }): Target {
  const site = new URL(fixtures.siteUrl);
  return {
    name: "fixture",
    baseUrl: fixtures.siteUrl.replace(/\/$/, ""),
    origins: [site.origin],
    isolated: true,
    hasEffects: true,
    effectsSource: "the fixture site's effects log",
    fixture: true,
    async prepareTrial({ trialId, workspaceDir, task }: TrialTarget) {
      await mkdir(join(workspaceDir, "notes"), { recursive: true });
      let session;
      try {
        session = await fixtures.client.createSession({
          id: trialId,
          scenario: task.start.scenario,
          workspace: workspaceDir,
        });
      } catch (e) {
        throw new TargetResetError(`the fixture site could not open a session: ${messageOf(e)}`);
      }
      return {
        // httpOnly: no script of the page (or the agent's, through the page) can read or replace it.
        cookies: [
          { name: session.cookie.name, value: session.cookie.value, domain: site.hostname, path: "/", httpOnly: true },
        ],
      };
    },
    effects: (trialId) => fixtures.client.effects(trialId) as Promise<Effect[]>,
    async recordEffect(trialId, type, detail) {
      await fixtures.client.recordEffect(trialId, type, detail);
    },
    async endTrial(trialId) {
      await fixtures.client.deleteSession(trialId).catch(() => undefined);
    },
    markSpec: () => null,
    async close() {
      // The fixture site's lifetime is the runtime's (src/runtime/suite-runtime.ts).
    },
  };
}
