/**
 * A command agent's trial with `modelProxy`: starts the trial's model proxy, says what the agent gets
 * (the `UMPIRE_MODEL_*` contract and the OpenAI SDKs' own variables, never the key), logs each call and
 * refusal into the trial log, and at the end puts the measurement into the trial's outcome.
 */
import type { LoopOutcome } from "../trial/loop.js";
import { applyMeasurement, measuredUsage } from "./model-measure.js";
import { startModelProxy, type ModelProxy, type ModelUpstream } from "./model-proxy.js";
import type { TrialLog } from "../trial/trial-log.js";

export interface TrialModelProxy {
  /** Variables the agent gets: where to send its calls and a placeholder key. */
  env: Record<string, string>;
  /** The proxy's origin: the sandbox lets the agent reach it (and, by config rule, not the upstream). */
  origin: string;
  /** Why the trial's token budget is spent (no further call is forwarded), or null. */
  overBudget(): string | null;
  /** Stops the proxy and makes its measurement the trial's usage; the agent's own claim is only logged. */
  finish(out: LoopOutcome, claimed: unknown): Promise<void>;
}

/** `tokens`: the task's token limit; once the measured calls reach it, no further call is forwarded. */
export async function startTrialModelProxy(
  upstream: ModelUpstream,
  log: TrialLog,
  tokens: number,
): Promise<TrialModelProxy> {
  let refused = 0;
  let proxy: ModelProxy | undefined;
  const overBudget = () => {
    const used = measuredUsage(proxy?.calls() ?? []);
    const total = used ? used.inputTokens + used.outputTokens : 0;
    return total >= tokens ? `the trial's token budget is spent (${total} of ${tokens} tokens measured)` : null;
  };
  proxy = await startModelProxy({
    upstream,
    admit: overBudget,
    onCall: (call) => log.emit("MetricsUpdateEvent", { metrics: { model_call: call }, origin: "model_proxy" }),
    onRefused: (reason) => {
      refused += 1;
      const error = `umpire's model proxy refused a request: ${reason}`;
      log.step("error_event", { error, origin: "model_proxy", tool_req: null });
    },
  });
  return {
    env: {
      UMPIRE_MODEL_BASE_URL: proxy.baseUrl,
      UMPIRE_MODEL_API_KEY: proxy.agentKey,
      OPENAI_BASE_URL: proxy.baseUrl,
      OPENAI_API_KEY: proxy.agentKey,
    },
    origin: proxy.origin,
    overBudget,
    async finish(out, claimed) {
      await proxy!.close();
      if (claimed) {
        const note = "not stored: umpire measured the model calls";
        log.emit("MetricsUpdateEvent", { metrics: { claimed_usage: claimed }, origin: "external_agent", note });
      }
      applyMeasurement(out, proxy!.calls(), refused);
    },
  };
}
