/**
 * The run views as pure functions of reporter events and a clock: the terminal view's in-flight
 * lines and its estimate of the time left, the log view's heartbeat, the dot line. The same views
 * are driven through the real CLI (and a pseudo-terminal) in test/integration/cli/daily-use.test.ts.
 */
import { PassThrough } from "node:stream";
import { describe, expect, it, vi } from "vitest";
import {
  createDotProgress,
  createLineProgress,
  createLiveView,
  duration,
  isLiveTerminal,
} from "../../../src/cli/progress.js";
import type { PlayedTurn as TurnRecord } from "../../../src/runner/trial/loop.js";
import type { PlannedTrial } from "../../../src/runner/schedule/trial-plan.js";
import type { TrialEnd } from "../../../src/runner/schedule/run-hooks.js";

const trial = (seq: number, id = `task-${seq}`): PlannedTrial =>
  ({
    id: `run-${seq}`,
    seq,
    repeat: 0,
    agent: { label: "reference/structured", model: "reference", mode: "structured" },
    task: { id, title: id, limits: { turns: 30 } },
  }) as unknown as PlannedTrial;

const turn = (idx: number, tool: string, status: string, message: string): TurnRecord =>
  ({ idx, outcome: "actions", actions: [{ idx: 0, tool, status, message, args: {} }] }) as unknown as TurnRecord;

const end = (t: PlannedTrial, verdict: TrialEnd["verdict"]): TrialEnd => ({
  trial: t,
  verdict,
  stopReason: "answered",
  stopLine: "model finished",
  turns: 3,
  actions: 2,
  wallMs: 10_000,
  retried: false,
});

function sink(isTTY: boolean) {
  const stream = Object.assign(new PassThrough(), { isTTY, columns: 120 });
  let text = "";
  stream.on("data", (c) => (text += c));
  return { stream, text: () => text };
}

describe("run views", () => {
  it("the live view shows each trial in flight with its turn, last action and elapsed time, and the time left once a trial ended", () => {
    let now = 0;
    const out = sink(true);
    const view = createLiveView(out.stream, { now: () => now, refreshMs: 60_000 });
    const [a, b, c] = [trial(0, "alpha"), trial(1, "beta"), trial(2, "gamma")];
    view.onRunBegin!({ runId: "r1", trials: [a, b, c] });
    view.onTrialBegin!(a);
    view.onTrialBegin!(b);
    now = 5_000;
    view.onStep!(a, turn(1, "click", "success", "clicked search-box\nat 10,10"));
    expect(out.text()).toContain(
      "alpha [reference/structured #0] turn 2/30, click -> success: clicked search-box\\nat 10,10, 5s",
    );
    expect(out.text()).toContain("estimating time left");
    now = 20_000;
    view.onTrialEnd!(end(a, "passed"));
    // One of three done after 20 s: about 40 s for the other two.
    expect(out.text()).toContain("1/3 done, 0 not passed, 1 running, 20s elapsed, about 40s left");
    expect(out.text()).toContain("PASS  alpha [reference/structured #0] answered: model finished (3 turns, 10.0 s)");
    // Redrawn in place: the block is erased (cursor up, clear) before each redraw.
    expect(out.text()).toMatch(/\x1b\[\d+F\x1b\[J/);
    view.onRunEnd!({ runId: "r1", status: "finished", ends: [] });
  });

  it("the log view prints a line per finished trial and a heartbeat naming the trials in flight when it went quiet", async () => {
    let now = 0;
    const out = sink(false);
    const view = createLineProgress(out.stream, { now: () => now, heartbeatMs: 200 });
    const [a, b] = [trial(0, "alpha"), trial(1, "beta")];
    view.onRunBegin!({ runId: "r2", trials: [a, b] });
    view.onTrialBegin!(a);
    view.onStep!(a, turn(0, "type_text", "failed", "no focused input"));
    await new Promise((r) => setTimeout(r, 120));
    expect(out.text()).not.toContain("still running"); // not quiet long enough yet
    now = 250;
    await vi.waitFor(
      () =>
        expect(out.text()).toContain(
          "[0/2] still running: alpha [reference/structured #0] turn 1/30, type_text -> failed: no focused input",
        ),
      { timeout: 10_000 },
    );
    view.onTrialEnd!(end(a, "failed"));
    expect(out.text()).toContain("[1/2] FAIL  alpha");
    view.onRunEnd!({ runId: "r2", status: "finished", ends: [] });
  });

  it("dots: one character per verdict; a live terminal is a TTY without CI", () => {
    const out = sink(false);
    const view = createDotProgress(out.stream);
    for (const v of ["passed", "failed", "error", "passed"] as const) view.onTrialEnd!(end(trial(0), v));
    view.onRunEnd!({ runId: "r", status: "finished", ends: [] });
    expect(out.text()).toBe(".FE.\n");
    expect(isLiveTerminal({ isTTY: true }, {})).toBe(true);
    expect(isLiveTerminal({ isTTY: true }, { CI: "true" })).toBe(false);
    expect(isLiveTerminal({ isTTY: false }, {})).toBe(false);
    expect(duration(75_000)).toBe("1m15s");
  });
});
