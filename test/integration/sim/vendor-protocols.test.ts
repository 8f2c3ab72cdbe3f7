/**
 * The reference model in OpenAI's and Anthropic's computer-use protocols, through umpire's own
 * session and the vendors' real SDKs over HTTP, in strict mode (a request breaking a documented rule
 * is answered 400): the same gold trajectory plays, the search box's centre comes back to the very
 * [0, 1000] point at DPR 1 and 2 (pixels of the picture each family saw, and back), and the lint
 * found nothing in any request.
 */
import { PNG } from "pngjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveAgentConfigs } from "../../../src/agent/config.js";
import { createAgentSession } from "../../../src/agent/session.js";
import { startReferenceModel, type ReferenceModel } from "../../../src/sim/server.js";
import { HOME_LAYOUT, INSTRUCTION, layoutsByTrial } from "./helpers.js";
import { TASK } from "./helpers.js";

let model: ReferenceModel;
beforeAll(async () => {
  model = await startReferenceModel({
    tasks: [TASK],
    fixtures: layoutsByTrial({
      "trial-o1": HOME_LAYOUT,
      "trial-o2": HOME_LAYOUT,
      "trial-a1": HOME_LAYOUT,
      "trial-a2": HOME_LAYOUT,
      "trial-t1": HOME_LAYOUT,
      "trial-t2": HOME_LAYOUT,
    }),
    strict: true,
  });
});
afterAll(() => model?.close());

// The Anthropic computer toolset (computerTool) plays as the single tool does, member by member.
const TOOLSET = { computerTool: "computer_toolset_20260801" } as const;
const cases = [
  ["openai-computer", "trial-o1", 1, {}],
  ["openai-computer", "trial-o2", 2, {}],
  ["anthropic-computer", "trial-a1", 1, {}],
  ["anthropic-computer", "trial-a2", 2, {}],
  ["anthropic-computer", "trial-t1", 1, TOOLSET],
  ["anthropic-computer", "trial-t2", 2, TOOLSET],
] as const;

describe.each(cases)("%s on the reference model (%s, DPR %i, %j)", (mode, trialId, dpr, knobs) => {
  it("plays the gold steps with exact coordinates, and every request passes the lint", async () => {
    const [config] = resolveAgentConfigs({ model: "reference", mode, env: {} });
    const session = createAgentSession({
      config: { ...config!, ...knobs },
      instruction: INSTRUCTION,
      tools: ["click", "write", "press", "answer"],
      trialId,
      baseUrl: model.baseUrl,
    });
    const screenshot = { data: PNG.sync.write(new PNG({ width: 1280 * dpr, height: 800 * dpr })) };
    const first = await session.nextTurn({ screenshot });
    expect(first.error).toBeUndefined();
    // search-box: (440 + 200, 380 + 20) CSS px of a 1280 x 800 viewport = (500, 500) in [0, 1000]. Exact
    // wherever the picture sent has an even number of pixels per axis; Anthropic's scaled DPR 2 picture
    // (1352 x 845) has no middle pixel row, so Claude's nearest row comes back one unit low or high.
    const [click] = first.actions;
    expect(click?.tool).toBe("click");
    expect(click?.args.x).toBe(500);
    if (mode === "anthropic-computer" && dpr === 2)
      expect(Math.abs((click?.args.y as number) - 500)).toBeLessThanOrEqual(1);
    else expect(click?.args.y).toBe(500);
    session.addResults(first.actions.map((a) => ({ id: a.id, status: "success" as const, output: "ok" })));
    const second = await session.nextTurn({ screenshot });
    expect(second.actions.map((a) => [a.tool, a.args])).toEqual([
      ["write", { content: "BB-042", press_enter: false }],
      ["press", { keys: [mode === "openai-computer" ? "ENTER" : "Return"] }],
    ]);
    const records = model.log.forUser(trialId);
    expect(records).toHaveLength(2);
    expect(records.map((r) => r.lint)).toEqual([[], []]);
    const tools = (records[0]!.body as { tools?: { type?: string }[] }).tools;
    if ("computerTool" in knobs) expect(tools?.[0]?.type).toBe("computer_toolset_20260801");
  });
});
