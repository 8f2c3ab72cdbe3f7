/**
 * The reference model in Gemini's computer-use protocol, through umpire's own session and the real
 * `@google/genai` SDK over HTTP, in strict mode (a request breaking a documented rule is answered
 * 400): the gold steps play, the search box's centre comes back as the very [0, 1000] point at DPR 1
 * and 2 (Gemini's 1000 grid is the screenshot's, at any pixel density), type_text_at types where the
 * click was, usage is read from usageMetadata, and the lint found nothing in any request.
 */
import { PNG } from "pngjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveAgentConfigs } from "../../../src/agent/config.js";
import { createAgentSession } from "../../../src/agent/session.js";
import { startReferenceModel, type ReferenceModel } from "../../../src/sim/server.js";
import { HOME_LAYOUT, INSTRUCTION, layoutsByTrial, TASK } from "./helpers.js";

let model: ReferenceModel;
beforeAll(async () => {
  model = await startReferenceModel({
    tasks: [TASK],
    fixtures: layoutsByTrial({ "trial-g1": HOME_LAYOUT, "trial-g2": HOME_LAYOUT, "trial-gm": HOME_LAYOUT }),
    strict: true,
  });
});
afterAll(() => model?.close());

function session(trialId: string, modelId = "reference") {
  const [config] = resolveAgentConfigs({ model: modelId, mode: "gemini-computer", env: {} });
  return createAgentSession({
    config: config!,
    instruction: INSTRUCTION,
    tools: ["click", "write", "press", "answer"],
    trialId,
    baseUrl: model.baseUrl,
  });
}

describe.each([
  ["trial-g1", 1],
  ["trial-g2", 2],
] as const)("gemini-computer on the reference model (%s, DPR %i)", (trialId, dpr) => {
  it("plays the gold steps with exact coordinates, reads usageMetadata, and every request passes the lint", async () => {
    const s = session(trialId);
    const screenshot = { data: PNG.sync.write(new PNG({ width: 1280 * dpr, height: 800 * dpr })) };
    const first = await s.nextTurn({ screenshot, url: "http://fixture/" });
    expect(first.error).toBeUndefined();
    // search-box: (440 + 200, 380 + 20) CSS px of a 1280 x 800 viewport = (500, 500) on both grids.
    expect(first.actions.map((a) => [a.tool, a.args.x, a.args.y])).toEqual([["click", 500, 500]]);
    expect(first.usage.inputTokens).toBeGreaterThan(0);
    expect(first.usage).toMatchObject({ cachedTokens: 0, reasoningTokens: 0 });
    s.addResults(first.actions.map((a) => ({ id: a.id, status: "success" as const, output: "ok" })));
    const second = await s.nextTurn({ screenshot, url: "http://fixture/" });
    expect(second.error).toBeUndefined();
    expect(second.actions.map((a) => [a.tool, a.args])).toEqual([
      ["click", expect.objectContaining({ x: 500, y: 500 })],
      ["write", { content: "BB-042", press_enter: true }],
    ]);
    const records = model.log.forUser(trialId);
    expect(records).toHaveLength(2);
    expect(records.map((r) => r.lint)).toEqual([[], []]);
    expect(records.map((r) => r.path)).toEqual([
      "/v1/v1beta/models/reference:generateContent",
      "/v1/v1beta/models/reference:generateContent",
    ]);
  });
});

it("a malformed turn's drag_and_drop is refused with the reason, never run", async () => {
  const s = session("trial-gm", "reference:malformed");
  const screenshot = { data: PNG.sync.write(new PNG({ width: 1280, height: 800 })) };
  const turn = await s.nextTurn({ screenshot });
  expect(turn.error).toBeUndefined();
  const refused = turn.invalid.find((i) => i.tool === "drag_and_drop");
  expect(refused?.message).toContain("dragging is not one of umpire's actions");
  expect(turn.actions.some((a) => a.tool !== "click" && a.tool !== "write" && a.tool !== "press")).toBe(false);
});
