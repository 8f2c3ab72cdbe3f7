/**
 * Phase "persist": checks the model endpoints (the preflight), starts the runtime (fixture site,
 * reference model, browsers, targets), and only then stores the run, so a dead endpoint or a
 * browser endpoint that never answers leaves no run behind. Its teardown closes the runtime.
 */
import { preflight } from "../../agent/preflight.js";
import { readApiKey, withoutCredentials, type AgentConfig } from "../../agent/config.js";
import { describeChromium, locateChromium } from "../../browser/chromium.js";
import { UmpireError } from "../../errors.js";
import { oneLine } from "../../safety/terminal.js";
import type { CommandIO } from "../io.js";
import { referenceTuningFromEnv } from "../../runtime/reference-tuning.js";
import { collectRunEnvironment } from "../../runtime/run-environment.js";
import { startRuntime } from "../../runtime/suite-runtime.js";
import { fromPhase, type RunContext } from "./context.js";
import type { Phase } from "./phases.js";

export const persistPhase: Phase<RunContext> = {
  title: "persist",
  async setup(ctx) {
    const { values, settings, io } = ctx;
    const { tasks, agents, project, pack } = fromPhase(ctx.selection, "select");
    const plan = fromPhase(ctx.plan, "plan");
    const store = fromPhase(ctx.store, "select");
    // Before any browser starts: a dead or misconfigured endpoint stops the run here, in seconds.
    if (!values["no-preflight"]) await preflightEndpoints(agents, io);
    // Which Chromium judged the trials: the headless shell and the full browser differ in CPU, not pixels.
    // (The process's environment, as the launch reads it; a missing browser is the launch's error to give.)
    const browser = settings.chatty && settings.endpoints.length === 0 ? locateChromium() : undefined;
    if (browser) io.stderr.write(`umpire: browser: ${describeChromium(browser)}\n`);
    const runtime = await startRuntime({
      tasks,
      agents,
      browserEndpoints: settings.endpoints,
      fixturesHost: values["fixtures-host"],
      reference: referenceTuningFromEnv(io.env),
      onNotice: (message) => {
        if (!values.quiet) io.stderr.write(`umpire: ${message}\n`);
      },
      config: project,
      ...(pack ? { builtInTargets: pack.targets } : {}),
      logDir: plan.runDir,
      concurrency: settings.concurrency,
      env: io.env,
      signal: io.signal,
    });
    ctx.runtime = runtime;
    plan.record();
    ctx.stage.stored = { runId: plan.runId, runDir: plan.runDir };
    // The environment the trials run on; a resumed run keeps the one it started on.
    if (!store.getRun(plan.runId).environment) {
      const environment = await collectRunEnvironment({
        browsers: runtime.browsers,
        targets: runtime.targets,
        tasks,
        env: io.env,
      });
      store.setRunEnvironment(plan.runId, { ...environment });
    }
  },
  async teardown(ctx) {
    const runtime = ctx.runtime;
    ctx.runtime = undefined;
    await runtime?.close();
  },
};

/**
 * Runs the preflight once per distinct endpoint, model and key. The embedded reference model is
 * skipped: umpire starts it itself. Throws a `config` error (exit 2) naming the URL, the model and the fix.
 */
async function preflightEndpoints(agents: readonly AgentConfig[], io: CommandIO): Promise<void> {
  const targets = new Map<string, Parameters<typeof preflight>[0]>();
  for (const agent of agents) {
    if (agent.endpoint.kind !== "url") continue;
    const apiKey = readApiKey(agent, io.env);
    const key = JSON.stringify([agent.endpoint.baseUrl, agent.model, agent.apiKeyEnv]);
    targets.set(key, {
      baseUrl: agent.endpoint.baseUrl,
      shownUrl: withoutCredentials(agent.endpoint.baseUrl),
      model: agent.model,
      apiKey,
      apiKeyEnv: agent.apiKeyEnv,
    });
  }
  const results = await Promise.all([...targets.values()].map((t) => preflight(t)));
  for (const result of results) {
    if (result.ok && result.note) io.stderr.write(`umpire: preflight: ${oneLine(result.note)}\n`);
  }
  const failed = results.filter((r): r is Extract<typeof r, { ok: false }> => !r.ok);
  if (failed.length > 0) {
    const [first, ...rest] = failed;
    const more = rest.map((r) => `\n  also: ${r.message}`).join("");
    throw new UmpireError("config", `preflight failed: ${first.message}${more}`, first.hint);
  }
}
