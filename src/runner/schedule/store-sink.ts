/**
 * Writes what the scheduler produces into the store: every turn as it happens, every trial
 * when it ends (with its checks, in one transaction). Paths are stored relative to the run
 * folder so a moved or merged results folder stays valid.
 */
import { relative, join } from "node:path";
import { checkInput } from "../../store/records.js";
import type { Store } from "../../store/store.js";
import { capDeep, capField } from "../../safety/limits.js";
import type { TrialOutcome } from "../trial/trial.js";
import type { SuiteStore } from "./run-suite.js";
import { loopUsage, type PlayedTurn } from "../trial/loop.js";
import { knownUsage } from "../../vocabulary.js";
import { storedMeasurement } from "../external/model-measure.js";

export function createStoreSink(store: Store, runDir: string): SuiteStore {
  const folders = new Map<string, string>();
  return {
    startTrial(id, info) {
      folders.set(id, info.folder);
      store.startTrial(id, {
        folder: relative(runDir, info.folder),
        attempt: info.attempt,
        sandbox: info.sandbox ?? null,
      });
    },
    recordTurn(trialId, turn: PlayedTurn, costUsd) {
      const folder = relative(runDir, folders.get(trialId) ?? runDir);
      // Model output is untrusted in size too: each field is capped, and the turn says what was cut.
      const fields = {
        note: capField(turn.note),
        thought: capField(turn.thought),
        content: capField(turn.content),
        reasoning: capField(turn.reasoning),
      };
      const cut = Object.fromEntries(
        Object.entries(fields)
          .filter(([, f]) => f.cut > 0)
          .map(([name, f]) => [name, f.cut]),
      );
      store.recordTurn({
        trialId,
        idx: turn.idx,
        startedAt: turn.startedAt,
        outcome: turn.outcome,
        finishReason: turn.finishReason,
        modelMs: turn.modelMs,
        ttftMs: turn.ttftMs,
        retries: turn.retries,
        usage: knownUsage(turn.usage),
        costUsd,
        note: fields.note.text,
        thought: fields.thought.text,
        content: fields.content.text,
        reasoning: fields.reasoning.text,
        screenshot: { path: join(folder, turn.screenshot), width: turn.width, height: turn.height },
        flags: Object.keys(cut).length ? { ...turn.flags, truncated: cut } : turn.flags,
      });
      store.recordActions(
        turn.actions.map((a) => ({
          trialId,
          turnIdx: turn.idx,
          idx: a.idx,
          callId: a.id,
          tool: a.tool,
          args: capDeep(a.args).value,
          status: a.status,
          message: a.message,
          executorMs: a.ms,
        })),
      );
    },
    resetTrial(id) {
      store.resetTrial(id);
    },
    finishTrial(id, outcome: TrialOutcome, extra) {
      const { loop } = outcome;
      const ttft = loop.timing.ttftMs;
      store.finishTrial(
        id,
        {
          stopReason: loop.stopReason,
          stopDetail: outcome.stopLine,
          verdict: outcome.verdict,
          answer: loop.answer,
          claimed: outcome.claimed,
          verified: outcome.verified,
          turns: loop.turns,
          actions: loop.actions,
          usage: loopUsage(loop),
          costUsd: extra.costUsd,
          timing: {
            wallMs: outcome.wallMs,
            modelMs: loop.timing.modelMs,
            executorMs: loop.timing.executorMs,
            captureMs: loop.timing.captureMs,
            checkMs: outcome.checkMs,
          },
          ttftMsAvg: ttft.length ? ttft.reduce((a, b) => a + b, 0) / ttft.length : null,
          error: outcome.error,
          metrics: {
            repetition: outcome.repetition,
            evidence: loop.evidence,
            // Refused proposals by kind (umpire's loop; `show` sums them per agent). Absent: not recorded.
            ...(loop.invalid ? { invalid: loop.invalid } : {}),
            ...(outcome.browserEvents ?? {}),
            ...(outcome.fromEnvironment ? { fromEnvironment: outcome.fromEnvironment } : {}),
            ...targetMetrics(outcome),
            ...(loop.measured ? { modelProxy: storedMeasurement(loop.measured) } : {}),
          },
        },
        outcome.checks.map(checkInput),
      );
    },
  };
}

/** Where the trial ran and what its target's reset cost, stored in the trial's metrics (`target`). */
function targetMetrics(outcome: TrialOutcome): { target?: { resetMs?: number; instance?: number; waitedMs?: number } } {
  const { resetMs, placement } = outcome;
  if (resetMs === undefined && !placement) return {};
  return {
    target: {
      ...(resetMs !== undefined ? { resetMs: Math.round(resetMs) } : {}),
      ...(placement ? { instance: placement.instance, waitedMs: Math.round(placement.waitedMs) } : {}),
    },
  };
}
