/**
 * Each family's knobs on a named agent (#41) change what is sent: agents written in a real config
 * file, read by the config loader and resolved as `umpire run --agent` resolves them, talk through
 * umpire's session and the vendors' SDKs over real HTTP to the reference model in strict mode (a
 * request breaking the family's documented rules is answered 400). Each test reads the request the
 * reference model received, with the knob and without it, and checks the planned click still comes
 * back to the search box's centre, (500, 500) in umpire's thousandths, through the resized picture.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PNG } from "pngjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentSession } from "../../../src/agent/session.js";
import { screenshotSize } from "../../../src/agent/protocols/smart-resize.js";
import { resolveNamedAgents } from "../../../src/cli/run/named-agents.js";
import { loadConfig } from "../../../src/config/loader.js";
import { startReferenceModel, type ReferenceModel } from "../../../src/sim/server.js";
import { HOME_LAYOUT, INSTRUCTION, TASK, layoutsByTrial } from "../sim/helpers.js";

const AGENTS = `agents:
  gpt:
    model: reference
    protocol: openai-computer
  gpt-small-high:
    model: reference
    protocol: openai-computer
    displaySize: { width: 1024, height: 768 }
    reasoningEffort: high
  claude:
    model: reference
    protocol: anthropic-computer
  claude-small-uncached:
    model: reference
    protocol: anthropic-computer
    displaySize: { width: 1024, height: 768 }
    promptCaching: false
  claude-toolset:
    model: reference
    protocol: anthropic-computer
    computerTool: computer_toolset_20260801
  claude-older-tool:
    model: reference
    protocol: anthropic-computer
    computerTool: computer_20250124
  qwen25:
    model: reference
    protocol: qwen2.5-vl
  qwen25-small:
    model: reference
    protocol: qwen2.5-vl
    maxPixels: 401408
  qwen3:
    model: reference
    protocol: qwen3-vl
  qwen3-small:
    model: reference
    protocol: qwen3-vl
    minPixels: 4096
    maxPixels: 262144
  tars:
    model: reference
    protocol: ui-tars
  tars-small:
    model: reference
    protocol: ui-tars
    maxPixels: 401408
`;
const NAMES = [...AGENTS.matchAll(/^ {2}([a-z0-9.-]+):$/gm)].map((m) => m[1]!);

let dir: string;
let model: ReferenceModel;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "umpire-knobs-"));
  writeFileSync(join(dir, "umpire.config.yaml"), AGENTS);
  model = await startReferenceModel({
    tasks: [TASK],
    fixtures: layoutsByTrial(Object.fromEntries(NAMES.map((n) => [`knob-${n}`, HOME_LAYOUT]))),
    strict: true,
  });
});
afterAll(async () => {
  await model?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** One turn of the named agent on a 1280 x 800 screenshot; the request the reference model received, and the click. */
async function firstTurn(name: string): Promise<{ body: any; click: { x: unknown; y: unknown } }> {
  const [config] = resolveNamedAgents(loadConfig({ cwd: dir }), [name], {}, {}, {});
  const session = createAgentSession({
    config: config!,
    instruction: INSTRUCTION,
    tools: ["click", "write", "press", "answer"],
    trialId: `knob-${name}`,
    baseUrl: model.baseUrl,
  });
  const turn = await session.nextTurn({ screenshot: { data: PNG.sync.write(new PNG({ width: 1280, height: 800 })) } });
  expect(turn.error).toBeUndefined();
  const [record] = model.log.forUser(`knob-${name}`);
  expect(record?.status).toBe(200);
  expect(record?.lint).toEqual([]);
  const click = turn.actions[0]!;
  expect(click.tool).toBe("click");
  return { body: record!.body, click: { x: click.args.x, y: click.args.y } };
}

/** The pixel size of every screenshot in a request body, wherever the family puts it. */
function imageSizes(body: unknown): string[] {
  const text = JSON.stringify(body);
  return [...text.matchAll(/data:image\/png;base64,([A-Za-z0-9+/=]+)|"data":"([A-Za-z0-9+/=]+)"/g)].map((m) => {
    const size = screenshotSize(m[1] ?? m[2]!)!;
    return `${size.width}x${size.height}`;
  });
}

describe("family knobs of named agents change the request the reference model receives", () => {
  it("OpenAI: displaySize scales the screenshot to fit, reasoningEffort is the request's effort", async () => {
    const plain = await firstTurn("gpt");
    const knobbed = await firstTurn("gpt-small-high");
    expect(imageSizes(plain.body)).toEqual(["1280x800"]);
    expect(imageSizes(knobbed.body)).toEqual(["1024x640"]);
    expect(plain.body.reasoning.effort).toBe("medium");
    expect(knobbed.body.reasoning.effort).toBe("high");
    expect(knobbed.click).toEqual({ x: 500, y: 500 });
  });

  it("Anthropic: displaySize is the declared display and the picture, promptCaching: false drops every breakpoint", async () => {
    const plain = await firstTurn("claude");
    const knobbed = await firstTurn("claude-small-uncached");
    expect(plain.body.tools[0]).toMatchObject({ display_width_px: 1280, display_height_px: 800 });
    expect(knobbed.body.tools[0]).toMatchObject({ display_width_px: 1024, display_height_px: 640 });
    expect(imageSizes(knobbed.body)).toEqual(["1024x640"]);
    expect(JSON.stringify(plain.body)).toContain('"cache_control":{"type":"ephemeral"}');
    expect(JSON.stringify(knobbed.body)).not.toContain("cache_control");
    expect(knobbed.click).toEqual({ x: 500, y: 500 });
  });

  it("Anthropic: computerTool sends the toolset (no name, no beta) or the single tool version it names", async () => {
    const plain = await firstTurn("claude");
    const toolset = await firstTurn("claude-toolset");
    const older = await firstTurn("claude-older-tool");
    expect(plain.body.tools[0].type).toBe("computer_20251124");
    expect(older.body.tools[0]).toMatchObject({ type: "computer_20250124", name: "computer" });
    expect(toolset.body.tools[0]).toMatchObject({ type: "computer_toolset_20260801" });
    expect(toolset.body.tools[0]).not.toHaveProperty("name");
    expect(toolset.body).not.toHaveProperty("betas");
    expect(toolset.click).toEqual({ x: 500, y: 500 });
  });

  it("Qwen2.5-VL: maxPixels smart-resizes the screenshot umpire sends and the screen it declares", async () => {
    const plain = await firstTurn("qwen25");
    const knobbed = await firstTurn("qwen25-small");
    const declared = (body: any) => /resolution is (\d+x\d+)/.exec(body.tools[0].function.description)?.[1];
    expect(imageSizes(plain.body)).toEqual(["1280x800"]);
    expect(declared(plain.body)).toBe("1288x812");
    // smart_resize(800, 1280, 28, max 512 x 28 x 28): 784 x 476 = 373,184 pixels.
    expect(imageSizes(knobbed.body)).toEqual(["784x476"]);
    expect(declared(knobbed.body)).toBe("784x476");
    expect(knobbed.click).toEqual({ x: 500, y: 500 });
  });

  it("Qwen3-VL: minPixels/maxPixels smart-resize the screenshot (factor 32); coordinates stay thousandths", async () => {
    const plain = await firstTurn("qwen3");
    const knobbed = await firstTurn("qwen3-small");
    expect(imageSizes(plain.body)).toEqual(["1280x800"]);
    expect(imageSizes(knobbed.body)).toEqual(["640x384"]);
    expect(knobbed.click).toEqual({ x: 500, y: 500 });
  });

  it("UI-TARS: maxPixels smart-resizes the screenshot, and its points come back exact", async () => {
    const plain = await firstTurn("tars");
    const knobbed = await firstTurn("tars-small");
    expect(imageSizes(plain.body)).toEqual(["1280x800"]);
    expect(imageSizes(knobbed.body)).toEqual(["784x476"]);
    expect(plain.click).toEqual({ x: 500, y: 500 });
    expect(knobbed.click).toEqual({ x: 500, y: 500 });
  });
});
