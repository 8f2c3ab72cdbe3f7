/**
 * Wires the repetition detector into the loop: gathers masks (the page's volatile regions, the
 * task's boxes and selectors), what lies under each click (a consequential control? covered by
 * something?), whether the application still owes an acknowledgement, and turns the detector's
 * decision into what the loop does: go on, pause with one reflection, or stop as stuck.
 */
import type { ProposedAction } from "../../toolbox/tools.js";
import type { Task } from "../../task/schema.js";
import type { GeometryWindow, PointInfo } from "../../browser/page-geometry.js";
import type { Observation, TrialEnvironment } from "./environment.js";
import { pointToCss } from "./executor.js";
import type { GuardDecision, RepetitionGuard } from "./loop.js";
import { createRepetitionDetector } from "./repetition/detector.js";
import { maskBoxesForCapture, splitTaskMasks } from "./repetition/masks.js";
import { reflectionMessage } from "./repetition/wording.js";

export interface RepetitionSettings {
  window: number;
  recoveryLimit: number;
}

export function createRepetitionGuard(
  task: Task,
  env: TrialEnvironment,
  settings: RepetitionSettings,
): RepetitionGuard {
  const detector = createRepetitionDetector({
    window: settings.window,
    recoveryLimit: settings.recoveryLimit,
    waitCap: task.repetition.waitCap,
  });
  // Selector masks are resolved by the observation, with the picture they mask.
  const { boxes: taskBoxes } = splitTaskMasks(task.repetition.masks);
  const paths = new Map<string, string>();
  const viewport = { width: task.viewport.width, height: task.viewport.height };

  const isClick = (action: ProposedAction): boolean =>
    (action.tool === "click" || action.tool === "double_click") &&
    typeof action.args.x === "number" &&
    typeof action.args.y === "number";

  /**
   * What lies under every click of the turn, looked at where the executor will click (the same
   * point mapping, against the frame the model saw), in ONE page evaluation for the whole turn:
   * a page round trip costs far more than the DOM work, and the executor does not read it again.
   */
  const pointInfos = async (actions: ProposedAction[], observation: Observation): Promise<PointInfo[]> => {
    const none: PointInfo = { effect: null, covered: null };
    const points = actions.filter(isClick).map((a) => {
      const { x, y } = pointToCss(a.args.x as number, a.args.y as number, observation, task.viewport.deviceScaleFactor);
      return [x, y] as [number, number];
    });
    // While a native dialog is open the page answers no evaluation, and the clicks go to the dialog.
    if (points.length === 0 || env.dialogs.open) return actions.map(() => none);
    // The geometry script (page-geometry.ts, installed in every trial context) knows what lies
    // under a point and names a cover by its mark on any target.
    const read = await env.page
      .evaluate((pts) => {
        const geometry = (window as unknown as GeometryWindow).__umpireGeometry;
        return pts.map(([px, py]) => geometry?.pointInfo(px, py) ?? { effect: null, covered: null });
      }, points)
      .catch(() => points.map(() => none));
    let next = 0;
    return actions.map((a) => (isClick(a) ? (read[next++] ?? none) : none));
  };

  return {
    async beforeExecute(
      observation: Observation,
      screenshotPath: string,
      actions: ProposedAction[],
    ): Promise<GuardDecision> {
      paths.set(observation.sha256, screenshotPath);
      const masks = maskBoxesForCapture(
        { volatile: observation.volatile, taskBoxes, selectorBoxes: observation.selectorMasks },
        {
          image: { width: observation.width, height: observation.height },
          viewport,
          devicePixelRatio: task.viewport.deviceScaleFactor,
        },
      );
      const infos = await pointInfos(actions, observation);
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
          return {
            kind: "continue",
            warnings: new Map(actions.map((a) => [a.id, `duplicate-effect risk: ${decision.condition}`])),
          };
        case "pause":
          return { kind: "pause", condition: decision.condition, message: reflectionMessage(decision.condition) };
        case "stuck":
          return {
            kind: "stuck",
            condition: decision.condition,
            report: decision.report,
            evidence: evidencePaths(decision.evidence),
          };
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
