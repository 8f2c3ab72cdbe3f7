/**
 * Joins the model side's session to the loop: the runner's observation becomes the agent's
 * `<observation>` (the exact PNG bytes, with the task's device pixel ratio), and executor results become tool results in the
 * session's vocabulary.
 */
import type { AgentSession } from "../../agent/session.js";
import type { AgentSessionLike } from "./loop.js";

export function bridgeAgentSession(
  session: AgentSession,
  options: { readsPageLayout?: boolean; deviceScaleFactor?: number } = {},
): AgentSessionLike {
  return {
    ...(options.readsPageLayout !== undefined ? { readsPageLayout: options.readsPageLayout } : {}),
    async nextTurn(observation, signal) {
      const turn = await session.nextTurn(
        {
          screenshot: { data: observation.png, mimeType: "image/png" },
          ...(observation.url !== undefined ? { url: observation.url } : {}),
          ...(observation.title !== undefined ? { title: observation.title } : {}),
          ...(observation.text !== undefined ? { text: observation.text } : {}),
          ...(options.deviceScaleFactor !== undefined ? { devicePixelRatio: options.deviceScaleFactor } : {}),
        },
        signal,
      );
      return {
        outcome: turn.outcome,
        actions: turn.actions,
        invalid: turn.invalid.map((i) => ({ id: i.id, tool: i.tool, kind: i.kind, message: i.message })),
        note: turn.note,
        thought: turn.thought,
        content: turn.content,
        reasoning: turn.reasoning,
        usage: turn.usage,
        timing: { modelMs: turn.timing.modelMs, ttftMs: turn.timing.ttftMs ?? null, retries: turn.timing.retries },
        finishReason: turn.finishReason,
        failures: turn.failures,
        ...(turn.error
          ? {
              error: {
                code: turn.error.code,
                message: turn.error.message,
                ...(turn.error.status !== undefined ? { status: turn.error.status } : {}),
              },
            }
          : {}),
      };
    },
    addResults(results) {
      session.addResults(
        results.map((r) => ({
          id: r.id,
          status: r.status,
          output: r.output !== undefined ? `${r.message}\n${r.output}` : r.message,
        })),
      );
    },
    estimateInputTokens(observation) {
      return session.estimateInputTokens({
        screenshot: { data: observation.png, mimeType: "image/png" },
        ...(observation.text !== undefined ? { text: observation.text } : {}),
      });
    },
    addUserText(text) {
      session.addUserText(text);
    },
  };
}
