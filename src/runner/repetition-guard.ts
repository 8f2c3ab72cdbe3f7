/**
 * Wires the repetition detector into the loop: gathers masks (the page's volatile regions, the
 * task's boxes and selectors), what lies under each click (a consequential control? covered by
 * something?), whether the application still owes an acknowledgement, and turns the detector's
 * decision into what the loop does: go on, pause with one reflection, or stop as stuck.
 */
import type { ProposedAction } from "../toolbox/tools.js";
import type { Task } from "../task/schema.js";
import type { Observation, TrialEnvironment } from "./environment.js";
import { pointToCss } from "./executor.js";
import type { GuardDecision, RepetitionGuard } from "./loop.js";
import { createRepetitionDetector, maskBoxesForCapture, reflectionMessage, splitTaskMasks } from "./repetition/index.js";

export interface RepetitionSettings {
  window: number;
  recoveryLimit: number;
}

interface PointInfo {
  effect: string | null;
  /** "Save" stayed covered by "cookie-dialog": the control under the point and what covers it. */
  covered: { control: string; by: string } | null;
}

export function createRepetitionGuard(task: Task, env: TrialEnvironment, settings: RepetitionSettings): RepetitionGuard {
  const detector = createRepetitionDetector({ window: settings.window, recoveryLimit: settings.recoveryLimit, waitCap: task.repetition.waitCap });
  const { boxes: taskBoxes, selectors } = splitTaskMasks(task.repetition.masks);
  const paths = new Map<string, string>();
  const viewport = { width: task.viewport.width, height: task.viewport.height };

  /** What lies under a click, looked at where the executor will click (the same point mapping, against the frame the model saw). */
  const pointInfo = async (action: ProposedAction, observation: Observation): Promise<PointInfo> => {
    if ((action.tool !== "click" && action.tool !== "double_click") || typeof action.args.x !== "number" || typeof action.args.y !== "number") {
      return { effect: null, covered: null };
    }
    const { x, y } = pointToCss(action.args.x, action.args.y, observation, task.viewport.deviceScaleFactor);
    return env.page
      .evaluate(
        ([px, py]) => {
          const top = document.elementFromPoint(px, py);
          const effect = top?.closest("[data-effect]")?.getAttribute("data-effect") ?? null;
          const interactive = "button, a, input, textarea, select, [role=button]";
          if (!top || top.closest(interactive)) return { effect, covered: null };
          // A control whose box holds the point but which the hit test does not reach is covered.
          // Hit testing skips inert content under a modal, so look at boxes, not the hit-test stack.
          const control = Array.from(document.querySelectorAll(interactive)).find((el) => {
            const r = el.getBoundingClientRect();
            return r.width > 0 && r.height > 0 && px >= r.left && px <= r.right && py >= r.top && py <= r.bottom && !el.contains(top) && !top.contains(el);
          });
          // The fixture names its overlays with data-mark; any other site by test id, dialog role or label.
          const marked = top.closest("[data-mark]") ?? top.querySelector("[data-mark]");
          const named = marked ? null : top.closest("[data-testid], [role=dialog], [role=alertdialog], dialog, [aria-label]");
          const covered = control
            ? {
                control: (control.getAttribute("aria-label") || control.textContent || "the control").trim().slice(0, 40),
                by:
                  marked?.getAttribute("data-mark") ??
                  (named ? named.getAttribute("data-testid") || named.getAttribute("aria-label") || named.id || named.getAttribute("role") || named.tagName.toLowerCase() : null) ??
                  (top.className ? String(top.className) : top.tagName.toLowerCase()),
              }
            : null;
          return { effect, covered };
        },
        [x, y] as const,
      )
      .catch(() => ({ effect: null, covered: null }));
  };

  return {
    async beforeExecute(observation: Observation, screenshotPath: string, actions: ProposedAction[]): Promise<GuardDecision> {
      paths.set(observation.sha256, screenshotPath);
      const selectorBoxes = await env.boxesFor(selectors);
      const masks = maskBoxesForCapture(
        { volatile: observation.volatile, taskBoxes, selectorBoxes },
        { image: { width: observation.width, height: observation.height }, viewport, devicePixelRatio: task.viewport.deviceScaleFactor },
      );
      const infos = await Promise.all(actions.map((a) => pointInfo(a, observation)));
      const covered = infos.find((i) => i.covered)?.covered;
      const decision = detector.observe({
        capture: observation,
        masks,
        actions,
        effects: infos.map((i) => i.effect),
        // A request still in flight (a Save awaiting its acknowledgement) means "not acknowledged".
        acknowledged: env.pendingRequests === 0,
        ...(covered ? { stateHint: `${covered.control} stayed covered by ${covered.by}` } : {}),
      });
      const evidencePaths = (captures: { sha256: string }[]) => captures.map((c) => paths.get(c.sha256) ?? c.sha256);
      switch (decision.kind) {
        case "continue":
          return { kind: "continue" };
        case "duplicate-effect-risk":
          return { kind: "continue", warnings: new Map(actions.map((a) => [a.id, `duplicate-effect risk: ${decision.condition}`])) };
        case "pause":
          return { kind: "pause", condition: decision.condition, message: reflectionMessage(decision.condition) };
        case "stuck":
          return { kind: "stuck", condition: decision.condition, report: decision.report, evidence: evidencePaths(decision.evidence) };
      }
    },
    metrics() {
      const m = detector.metrics();
      return {
        stuckSteps: m.stuckSteps,
        reflections: m.reflections,
        recoveries: m.recoveriesThatBrokeThePattern,
        duplicateEffectRisks: m.duplicateEffectRisks,
        comparisons: m.comparisons,
        compareMs: Math.round(m.compareMs * 10) / 10,
      };
    },
  };
}
