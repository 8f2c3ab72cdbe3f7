import { describe, expect, it } from "vitest";
import type { PageLayout } from "../../../src/sim/grounding.js";
import {
  MAX_HOLDS,
  parseMarkWait,
  UNKNOWN_TASK_ANSWER,
  planTurn,
  type PolicyContext,
  type ReferenceTask,
} from "../../../src/sim/policy.js";
import { HOLD_PHRASE } from "../../../src/sim/progress.js";
import { misclickOffset, type ProfileName } from "../../../src/sim/profiles.js";
import type { WireMessage } from "../../../src/sim/request.js";
import { samplePng, sampleRequest, type SampleMode, type SampleStep } from "../../../src/sim/sample-request.js";

const png = samplePng(64, 40); // frame size does not change [0,1000] values when it keeps the viewport's aspect

const task: ReferenceTask = {
  id: "cookie-note",
  instruction: "Find match BB-042 and save a note about it.\nKeep the suggested name.",
  reference: [
    { tool: "click", target: "search-box", args: { element: "Search box" } },
    { tool: "write", args: { content: "BB-042", press_enter: true } },
    { tool: "click", target: "cookie-reject" },
    { tool: "click", target: "note-save", note: "BB-042 scores 168/6 and 169/4" },
    { tool: "answer", args: { content: "Saved." } },
  ],
  negatives: {
    loop: [
      { tool: "click", target: "search-box", args: { element: "Search box" } },
      { tool: "write", args: { content: "BB-042", press_enter: true } },
      { tool: "click", target: "note-save" },
    ],
    "wrong-record": [{ tool: "write", args: { content: "BB-024" } }],
  },
};

const layout: PageLayout = {
  path: "/notes",
  title: "Notes",
  viewport: { width: 1280, height: 800 },
  marks: [
    { name: "search-box", x: 440, y: 380, width: 400, height: 40, visible: true, covered: false },
    { name: "cookie-reject", x: 100, y: 700, width: 128, height: 40, visible: true, covered: false },
    { name: "note-save", x: 1000, y: 500, width: 80, height: 30, visible: true, covered: true },
  ],
};

function context(profile: ProfileName = "gold", pageLayout: PageLayout | null = layout, seed = 0): PolicyContext {
  return {
    tasks: [task],
    profile,
    seed,
    layout: async () => (pageLayout ? { layout: pageLayout } : { layout: null, problem: "no session" }),
  };
}

function conversation(
  history: SampleStep[],
  options: { mode?: SampleMode; before?: string[]; instruction?: string } = {},
): WireMessage[] {
  const body = sampleRequest({
    mode: options.mode ?? "structured",
    instruction: options.instruction ?? task.instruction,
    screenshot: png,
    history,
    before: options.before,
  });
  return body.messages as WireMessage[];
}

const played = (n: number): SampleStep[] => Array.from({ length: n }, () => ({ tool: "wait", args: { seconds: 1 } }));

describe("planTurn: gold", () => {
  it("plays the first step grounded to the mark centre, keeping the step's element text", async () => {
    const plan = await planTurn(conversation([]), context());
    expect(plan).toMatchObject({ taskId: "cookie-note", trajectory: "reference", step: 0 });
    expect(plan.action).toEqual({ tool: "click", args: { element: "Search box", x: 500, y: 500 } });
    expect(plan.reasoning).toContain("(500, 500)");
    expect(plan.note).toContain("/notes");
  });

  it("derives the step from the earlier assistant turns", async () => {
    const plan = await planTurn(conversation(played(1)), context());
    expect(plan.step).toBe(1);
    expect(plan.action).toEqual({ tool: "write", args: { content: "BB-042", press_enter: true } });
    const third = await planTurn(conversation(played(2), { mode: "tools" }), context());
    expect(third.action.tool).toBe("click");
    expect(third.action.args).toMatchObject({ x: Math.round((164 / 1280) * 1000), y: Math.round((720 / 800) * 1000) });
    expect(String(third.action.args.element)).toContain("cookie reject");
  });

  it("uses the step's note when it has one", async () => {
    const plan = await planTurn(conversation(played(3)), context());
    expect(plan.note).toBe("BB-042 scores 168/6 and 169/4");
  });

  it("repeats the last step (the answer) past the end", async () => {
    const plan = await planTurn(conversation(played(9)), context());
    expect(plan.action).toEqual({ tool: "answer", args: { content: "Saved." } });
    expect(plan.step).toBe(4);
  });

  it("finds the task however the prompt wraps the instruction's white space", async () => {
    const plan = await planTurn(conversation([], { instruction: task.instruction.replace(/\s+/g, "\n  ") }), context());
    expect(plan.taskId).toBe("cookie-note");
  });

  it("answers that it cannot identify an unknown task", async () => {
    const plan = await planTurn(conversation([], { instruction: "Book a flight to Lisbon for tomorrow." }), context());
    expect(plan).toMatchObject({
      taskId: null,
      trajectory: "unknown-task",
      action: { tool: "answer", args: { content: UNKNOWN_TASK_ANSWER } },
    });
  });
});

describe("planTurn: missing marks and layouts", () => {
  const bare: PageLayout = { ...layout, path: "/", marks: [] };

  it("holds (waits) while a target is missing, without advancing the step, then gives up and says so", async () => {
    const first = await planTurn(conversation([]), context("gold", bare));
    expect(first.action).toEqual({ tool: "wait", args: { seconds: 1 } });
    expect(first.trajectory).toBe("hold");
    expect(first.thought).toContain(HOLD_PHRASE);
    const holds: SampleStep[] = Array.from({ length: MAX_HOLDS }, () => ({
      tool: "wait",
      args: { seconds: 1 },
      note: null,
    }));
    // The sample records `thought: step N`; a real hold turn carries the phrase, as the agent replays it.
    const messages = conversation(holds);
    for (const m of messages)
      if (m.role === "assistant")
        m.content = JSON.stringify({
          note: null,
          thought: first.thought,
          tool_call: { tool_name: "wait", seconds: 1 },
        });
    const again = await planTurn(messages, context("gold", bare));
    expect(again.trajectory).toBe("lost");
    expect(again.action.tool).toBe("answer");
    expect(String(again.action.args.content)).toMatch(/could not find search-box.*not on \//);
    // Once the mark shows up, the step that was held is played.
    const found = await planTurn(messages, context("gold", layout));
    expect(found).toMatchObject({ trajectory: "reference", step: 0 });
  });

  it("its patience is configurable (UMPIRE_MARK_WAIT): more waits, longer each (#39)", async () => {
    const patient = { ...context("gold", bare), markWait: { waits: 4, seconds: 2.5 } };
    const first = await planTurn(conversation([]), patient);
    expect(first.action).toEqual({ tool: "wait", args: { seconds: 2.5 } });
    const held = (n: number) => {
      const messages = conversation(
        Array.from({ length: n }, () => ({ tool: "wait", args: { seconds: 2.5 }, note: null })),
      );
      for (const m of messages)
        if (m.role === "assistant")
          m.content = JSON.stringify({
            note: null,
            thought: first.thought,
            tool_call: { tool_name: "wait", seconds: 2.5 },
          });
      return messages;
    };
    // Past the default's two waits it still holds; after its own four it gives up.
    expect((await planTurn(held(MAX_HOLDS), patient)).trajectory).toBe("hold");
    expect((await planTurn(held(4), patient)).trajectory).toBe("lost");
    expect(parseMarkWait(undefined)).toEqual({ waits: MAX_HOLDS, seconds: 1 });
    expect(parseMarkWait("5x2")).toEqual({ waits: 5, seconds: 2 });
    expect(parseMarkWait("4")).toEqual({ waits: 4, seconds: 1 });
    expect(parseMarkWait("0")).toEqual({ waits: 0, seconds: 1 });
    expect(parseMarkWait("lots")).toBeNull();
    expect(parseMarkWait("3x90")).toBeNull();
  });

  it("says at once when there is no layout at all", async () => {
    const plan = await planTurn(conversation([]), context("gold", null));
    expect(plan.trajectory).toBe("lost");
    expect(String(plan.action.args.content)).toContain("no session");
  });
});

describe("planTurn: behavioural profiles", () => {
  it("misclick offsets each click by the seeded amount", async () => {
    const plan = await planTurn(conversation([]), context("misclick", layout, 11));
    const { dx, dy } = misclickOffset(11, 0);
    expect(plan.action.args).toMatchObject({ x: 500 + dx, y: 500 + dy });
    const again = await planTurn(conversation([]), context("misclick", layout, 11));
    expect(again.action).toEqual(plan.action);
  });

  it("loop plays the loop negative and repeats its last click forever", async () => {
    const plan = await planTurn(conversation(played(7)), context("loop"));
    expect(plan.trajectory).toBe("negatives.loop");
    expect(plan.action.args).toMatchObject({ x: Math.round((1040 / 1280) * 1000), y: Math.round((515 / 800) * 1000) });
  });

  it("loop without a loop negative clicks the same spot forever", async () => {
    const noLoop = { ...task, negatives: {} };
    const ctx = { ...context("loop"), tasks: [noLoop] };
    const a = await planTurn(conversation(played(0)), ctx);
    const b = await planTurn(conversation(played(5)), ctx);
    expect(a.trajectory).toBe("same-spot");
    expect(a.action).toEqual(b.action);
    expect(a.action.args).toMatchObject({ x: 500, y: 500 });
  });

  it("loop ignores a reflection; recover switches to gold where the trajectories differ", async () => {
    const reflection = ["<reflection>The Save button stays covered by the cookie dialog.</reflection>"];
    const before = await planTurn(conversation(played(4)), context("recover"));
    expect(before.trajectory).toBe("negatives.loop");
    const looping = await planTurn(conversation(played(5), { before: reflection }), context("loop"));
    expect(looping.trajectory).toBe("negatives.loop");
    // Reflection after 5 steps (search, write, save, save, save): gold resumes where the two part
    // (cookie-reject), then goes on (note-save).
    const recovered = await planTurn(conversation(played(5), { before: reflection }), context("recover"));
    expect(recovered).toMatchObject({ trajectory: "recovered", step: 5 });
    expect(String(recovered.action.args.element)).toContain("cookie reject");
    const next = await planTurn(withReflectionAfter(5, 6, reflection[0]), context("recover"));
    expect(next.step).toBe(6);
    expect(String(next.action.args.element)).toContain("note save");
  });

  it("a reflection before the divergence point changes nothing yet", async () => {
    const plan = await planTurn(
      conversation(played(1), { before: ["<reflection>check</reflection>"] }),
      context("recover"),
    );
    expect(plan).toMatchObject({ trajectory: "recovered", step: 1, action: { tool: "write" } });
  });

  it("wrong-record plays the negative of the same name; without one it plays gold", async () => {
    const plan = await planTurn(conversation([]), context("wrong-record"));
    expect(plan).toMatchObject({
      trajectory: "negatives.wrong-record",
      action: { tool: "write", args: { content: "BB-024", press_enter: false } },
    });
    const gold = await planTurn(conversation([]), context("forget-save"));
    expect(gold.trajectory).toBe("reference");
  });

  it("answer-now answers Done. on the first turn", async () => {
    const plan = await planTurn(conversation([]), context("answer-now"));
    expect(plan.action).toEqual({ tool: "answer", args: { content: "Done." } });
  });
});

/** A conversation of `total` steps with a reflection message after the first `at` of them. */
function withReflectionAfter(at: number, total: number, reflection: string): WireMessage[] {
  const messages = conversation(played(total));
  // each step adds observation, assistant, result after the system message
  messages.splice(1 + at * 3, 0, { role: "user", content: reflection });
  return messages;
}

describe("planTurn: scrolling at a target", () => {
  const scrollTask: ReferenceTask = {
    id: "scroll",
    instruction: "Scroll down the long BB-017 scorecard.",
    reference: [{ tool: "scroll", target: "innings-1", args: { direction: "down", amount: 10 } }],
  };
  const at = (y: number): PageLayout => ({
    ...layout,
    marks: [{ name: "innings-1", x: 240, y, width: 800, height: 400, visible: y + 400 > 0, covered: false }],
  });
  const plan = (pageLayout: PageLayout) =>
    planTurn(conversation([], { instruction: scrollTask.instruction }), {
      ...context("gold", pageLayout),
      tasks: [scrollTask],
    });

  it("scrolls at the mark's centre while it is on screen, with no element argument", async () => {
    expect((await plan(at(100))).action).toEqual({
      tool: "scroll",
      args: { direction: "down", amount: 10, x: 500, y: 375 },
    });
  });

  it("scrolls where the pointer is once the mark has left the screen", async () => {
    expect((await plan(at(-2000))).action).toEqual({ tool: "scroll", args: { direction: "down", amount: 10 } });
  });
});
