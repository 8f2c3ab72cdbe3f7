import { beforeAll, describe, expect, it } from "vitest";
import {
  createRepetitionDetector,
  type RepetitionDetectorOptions,
  type RepetitionStep,
} from "../../../src/runner/trial/repetition/detector.js";
import { cssBoxesToImageBoxes, type Box } from "../../../src/runner/trial/repetition/masks.js";
import type { Capture } from "../../../src/runner/trial/repetition/decoded-cache.js";
import { drawPage, HEIGHT, REGIONS, toCapture, WIDTH } from "./page-images.js";

type Action = RepetitionStep["actions"][number];

const save = (x = 512, y = 640): Action => ({ tool: "click", args: { element: "Save button", x, y } });
const pressEscape: Action = { tool: "press", args: { keys: ["Escape"] } };
const wait = (seconds = 2): Action => ({ tool: "wait", args: { seconds } });
const note = (name = "BB-042.md", content = "Jaipur Kites won by 6 wickets"): Action => ({
  tool: "write_note",
  args: { name, content },
});

const frame = { image: { width: WIDTH, height: HEIGHT }, viewport: { width: WIDTH, height: HEIGHT } };
/** The page's volatile regions as the runner would pass them: CSS boxes converted to image pixels. */
let volatileMasks: Box[];
/** Dialog covering Save; the caret blinks and the clock ticks between captures. */
const covered: Capture[] = [];
/** The same page with the dialog gone. */
const uncovered: Capture[] = [];
/** A loading spinner turning (dialog gone). */
const loading: Capture[] = [];

beforeAll(() => {
  volatileMasks = cssBoxesToImageBoxes([REGIONS.clock, REGIONS.caret], frame, "fixture volatile region");
  for (let i = 0; i < 6; i++) {
    covered.push(toCapture(drawPage({ dialog: true, caret: i % 2 === 0, clock: i })));
    if (i < 4) uncovered.push(toCapture(drawPage({ caret: i % 2 === 1, clock: 10 + i })));
    if (i < 4) loading.push(toCapture(drawPage({ spinner: i, clock: 20 + i })));
  }
});

function detector(options: RepetitionDetectorOptions = {}) {
  const d = createRepetitionDetector(options);
  const step = (capture: Capture, actions: Action[], extra: Partial<RepetitionStep> = {}) =>
    d.observe({ capture, masks: volatileMasks, actions, ...extra });
  return { d, step };
}

describe("repetition detector: pause and stuck", () => {
  it("pauses after exactly N same attempts on an unchanged screen, with the last N captures", () => {
    const { step } = detector();
    expect(step(covered[0], [save()]).kind).toBe("continue");
    expect(step(covered[1], [save(515, 645)]).kind).toBe("continue"); // within the tolerance
    const decision = step(covered[2], [save(510, 636)]);
    expect(decision).toMatchObject({
      kind: "pause",
      attempts: 3,
      condition: 'the screen stayed the same and the agent clicked "Save button" at (510, 636) 3 times',
    });
    if (decision.kind !== "pause") throw new Error("unreachable");
    expect(decision.evidence).toEqual([covered[0], covered[1], covered[2]]);
  });

  it("honours a larger window", () => {
    const { step } = detector({ window: 4 });
    const kinds = [0, 1, 2, 3].map((i) => step(covered[i], [save()]).kind);
    expect(kinds).toEqual(["continue", "continue", "continue", "pause"]);
  });

  it("goes stuck when the attempt after the reflection repeats the pattern", () => {
    const { d, step } = detector();
    for (let i = 0; i < 3; i++) step(covered[i], [save()]);
    const decision = step(covered[3], [save()]);
    expect(decision).toMatchObject({
      kind: "stuck",
      attempts: 4,
      report: 'The screen stayed the same after 4 attempts to click "Save button" at (512, 640)',
    });
    if (decision.kind !== "stuck") throw new Error("unreachable");
    expect(decision.evidence).toEqual([covered[1], covered[2], covered[3]]);
    expect(d.metrics()).toMatchObject({ reflections: 1, recoveriesThatBrokeThePattern: 0, stuckSteps: 3 });
  });

  it("counts a recovery that broke the pattern, and goes stuck (not paused again) when it returns", () => {
    const { d, step } = detector();
    for (let i = 0; i < 3; i++) step(covered[i], [save()]);
    expect(step(covered[3], [pressEscape]).kind).toBe("continue"); // the recovery: a different action
    expect(d.metrics().recoveriesThatBrokeThePattern).toBe(1);
    expect(step(covered[4], [save()]).kind).toBe("continue");
    expect(step(covered[5], [save()]).kind).toBe("continue");
    expect(step(covered[0], [save()])).toMatchObject({ kind: "stuck", attempts: 3 });
    expect(d.metrics()).toMatchObject({ reflections: 1, recoveriesThatBrokeThePattern: 1 });
  });

  it("allows as many reflections as the recovery limit", () => {
    const { step } = detector({ recoveryLimit: 2 });
    const kinds = [0, 1, 2, 3, 4].map((i) => step(covered[i], [save()]).kind);
    expect(kinds).toEqual(["continue", "continue", "pause", "pause", "stuck"]);
  });

  it("stops at once without a reflection when the recovery limit is 0, naming the caller's condition", () => {
    const { step } = detector({ recoveryLimit: 0 });
    step(covered[0], [save()], { stateHint: "Save stayed covered" });
    step(covered[1], [save()], { stateHint: "Save stayed covered" });
    expect(step(covered[2], [save()], { stateHint: "Save stayed covered" })).toMatchObject({
      kind: "stuck",
      condition: 'Save stayed covered and the agent clicked "Save button" at (512, 640) 3 times',
      report: 'Save stayed covered after 3 attempts to click "Save button" at (512, 640)',
    });
  });

  it("resets when the screen changes", () => {
    const { d, step } = detector();
    step(covered[0], [save()]);
    step(covered[1], [save()]);
    expect(step(uncovered[0], [save()]).kind).toBe("continue"); // the dialog went away: progress
    expect(step(uncovered[1], [save()]).kind).toBe("continue"); // a new run of 2
    expect(step(uncovered[2], [save()]).kind).toBe("pause"); // ... of 3
    expect(d.metrics().stuckSteps).toBe(3);
  });

  it("resets when the action changes, including a click far away", () => {
    const { step } = detector();
    step(covered[0], [save()]);
    step(covered[1], [save()]);
    expect(step(covered[2], [save(100, 100)]).kind).toBe("continue");
    expect(step(covered[3], [save(100, 100)]).kind).toBe("continue");
    expect(step(covered[4], [pressEscape]).kind).toBe("continue");
  });

  it("treats an empty turn as breaking the pattern", () => {
    const { step } = detector();
    step(covered[0], [save()]);
    step(covered[1], [save()]);
    expect(step(covered[2], []).kind).toBe("continue");
    expect(step(covered[3], [save()]).kind).toBe("continue");
  });

  it("needs the masks: unmasked caret and clock changes (with no tolerance) are changes", () => {
    const strict = createRepetitionDetector({ compare: { maxDiffRatio: 0 } });
    const kinds = [0, 1, 2, 3].map((i) => strict.observe({ capture: covered[i], actions: [save()] }).kind);
    expect(kinds).toEqual(["continue", "continue", "continue", "continue"]);
    const masked = createRepetitionDetector({ compare: { maxDiffRatio: 0 } });
    const maskedKinds = [0, 1, 2].map(
      (i) => masked.observe({ capture: covered[i], masks: volatileMasks, actions: [save()] }).kind,
    );
    expect(maskedKinds).toEqual(["continue", "continue", "pause"]);
  });

  it("gives the same decisions when comparing downscaled", () => {
    const { step } = detector({ compare: { downscale: true } });
    const kinds = [
      step(covered[0], [save()]),
      step(covered[1], [save()]),
      step(uncovered[0], [save()]),
      step(uncovered[1], [save()]),
      step(uncovered[2], [save()]),
    ].map((d) => d.kind);
    expect(kinds).toEqual(["continue", "continue", "continue", "continue", "pause"]);
  });
});

describe("repetition detector: waits", () => {
  const spinnerMasks = () => [...volatileMasks, ...cssBoxesToImageBoxes([REGIONS.spinner], frame)];

  it("tolerates waits on an unchanged screen up to waitCap, whatever the seconds, then pauses", () => {
    const d = createRepetitionDetector({ waitCap: 4 });
    const kinds = [1, 2, 5, 1, 3].map(
      (seconds, i) => d.observe({ capture: loading[i % 4], masks: spinnerMasks(), actions: [wait(seconds)] }).kind,
    );
    expect(kinds).toEqual(["continue", "continue", "continue", "continue", "pause"]);
    expect(d.metrics().stuckSteps).toBe(1); // only the wait beyond the cap
  });

  it("uses the task schema's default cap of 5", () => {
    const d = createRepetitionDetector();
    const kinds = [0, 1, 2, 3, 4, 5].map(
      (i) => d.observe({ capture: loading[i % 4], masks: spinnerMasks(), actions: [wait()] }).kind,
    );
    expect(kinds).toEqual(["continue", "continue", "continue", "continue", "continue", "pause"]);
  });

  it("sees an unmasked spinner as a changing screen", () => {
    const d = createRepetitionDetector({ waitCap: 1 });
    const kinds = [0, 1, 2, 3].map(
      (i) => d.observe({ capture: loading[i], masks: volatileMasks, actions: [wait()] }).kind,
    );
    expect(kinds).toEqual(["continue", "continue", "continue", "continue"]);
  });
});

describe("repetition detector: duplicate effects", () => {
  it("flags a second identical write_note at once, before any pattern forms", () => {
    const { d, step } = detector();
    expect(step(uncovered[0], [note()]).kind).toBe("continue");
    const decision = step(uncovered[1], [note()]);
    expect(decision).toMatchObject({
      kind: "duplicate-effect-risk",
      condition: 'the agent wrote the note "BB-042.md" again before the application acknowledged the first one',
    });
    if (decision.kind !== "duplicate-effect-risk") throw new Error("unreachable");
    expect(decision.evidence).toEqual([uncovered[0], uncovered[1]]);
    expect(d.metrics().duplicateEffectRisks).toBe(1);
  });

  it("flags two identical consequential actions in one turn", () => {
    const { step } = detector();
    expect(step(uncovered[0], [note(), note()]).kind).toBe("duplicate-effect-risk");
  });

  it("lets the repeat through once the first was acknowledged, and different notes always", () => {
    const { step } = detector();
    step(uncovered[0], [note()]);
    expect(step(uncovered[1], [note()], { acknowledged: true }).kind).toBe("continue");
    expect(step(uncovered[2], [note("BB-024.md")]).kind).toBe("continue");
  });

  it("flags a second click on a data-effect element wherever it lands, but not plain clicks", () => {
    const { step } = detector();
    expect(step(uncovered[0], [save(512, 640)], { effects: ["note_saved"] }).kind).toBe("continue");
    expect(step(uncovered[1], [save(560, 700)], { effects: ["note_saved"] })).toMatchObject({
      kind: "duplicate-effect-risk",
      condition:
        'the agent clicked "Save button" at (560, 700) again (effect "note_saved") before the application acknowledged the first one',
    });
    const plain = detector();
    plain.step(uncovered[0], [save()]);
    expect(plain.step(uncovered[1], [save()]).kind).toBe("continue");
  });

  it("lets stuck win over a duplicate-effect risk", () => {
    const { step } = detector({ recoveryLimit: 0 });
    step(covered[0], [save()], { effects: ["note_saved"] });
    expect(step(covered[1], [save()], { effects: ["note_saved"] }).kind).toBe("duplicate-effect-risk");
    expect(step(covered[2], [save()], { effects: ["note_saved"] }).kind).toBe("stuck");
  });
});

describe("repetition detector: options", () => {
  it("rejects bad options naming the option", () => {
    expect(() => createRepetitionDetector({ window: 1 })).toThrow(/window/);
    expect(() => createRepetitionDetector({ waitCap: 0 })).toThrow(/waitCap/);
    expect(() => createRepetitionDetector({ recoveryLimit: -1 })).toThrow(/recoveryLimit/);
    expect(() => createRepetitionDetector({ recoveryLimit: 1.5 })).toThrow(/recoveryLimit/);
  });
});
