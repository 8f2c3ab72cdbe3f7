/**
 * Structured mode through the real openai SDK: the exact request after five turns (roles,
 * wrappers, image eviction, tool outputs), the schema in both places, H's top-level fields,
 * and that reasoning never returns to history.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildStepSchema } from "../../../src/agent/step-schema.js";
import { startRecordingModel, stepReply, type RecordingModel } from "../../support/recording-model.js";
import { INSTRUCTION, TOOLS, b64, fakePng, session } from "./harness.js";

let server: RecordingModel;
beforeAll(async () => {
  server = await startRecordingModel();
});
afterAll(async () => {
  await server.close();
});

const steps = [
  {
    note: null,
    thought: "Click the search box.",
    tool_call: { tool_name: "click", element: "search box", x: 500, y: 300 },
  },
  { note: null, thought: "Type the id.", tool_call: { tool_name: "write", content: "BB-042", press_enter: true } },
  {
    note: "Search shows BB-042.",
    thought: "Open it.",
    tool_call: { tool_name: "click", element: "result BB-042", x: 210, y: 420 },
  },
  {
    note: "Pune 168/6, Jaipur 169/4.",
    thought: "Scroll to the result.",
    tool_call: { tool_name: "scroll", direction: "down", amount: 3 },
  },
  { note: null, thought: "Done.", tool_call: { tool_name: "answer", content: "Jaipur Kites won by 6 wickets" } },
];

const observation = (n: number) => [
  { type: "text", text: "<observation>\n" },
  { type: "image_url", image_url: { url: `data:image/png;base64,${b64(n)}` } },
  { type: "text", text: "\n</observation>" },
];
const evicted = [
  { type: "text", text: "<observation>\n" },
  { type: "text", text: "[screenshot evicted]" },
  { type: "text", text: "\n</observation>" },
];
const output = (tool: string, text: string) => ({
  role: "user",
  content: `<tool_output tool="${tool}">\n${text}\n</tool_output>`,
});

describe("structured mode, five turns", () => {
  it("sends H's documented layout and keeps only the parsed steps", async () => {
    const agent = session(server.baseUrl, { mode: "structured", trialId: "trial-7" });
    const results = [
      "Clicked at (640, 240)",
      "Typed 6 characters and pressed Enter",
      "Clicked at (269, 336)",
      "Scrolled down 3",
    ];
    const turns = [];
    for (let i = 0; i < 5; i++) {
      server.enqueue(stepReply(steps[i], { reasoning: `SECRET-REASONING-${i}` }));
      const turn = await agent.nextTurn({ screenshot: { data: fakePng(i + 1) } });
      turns.push(turn);
      if (i < 4) agent.addResults([{ id: turn.actions[0].id, status: "success", output: results[i] }]);
    }

    expect(turns.map((t) => t.outcome)).toEqual(["actions", "actions", "actions", "actions", "actions"]);
    expect(turns.map((t) => t.actions[0].id)).toEqual([
      "trial-7-t1-a1",
      "trial-7-t2-a1",
      "trial-7-t3-a1",
      "trial-7-t4-a1",
      "trial-7-t5-a1",
    ]);
    expect(turns[0].actions[0]).toEqual({
      id: "trial-7-t1-a1",
      tool: "click",
      args: { element: "search box", x: 500, y: 300 },
    });
    expect(turns[2].note).toBe("Search shows BB-042.");
    expect(turns[2].thought).toBe("Open it.");
    expect(turns[4].reasoning).toBe("SECRET-REASONING-4");

    const body = server.requests[4].body;
    const schema = buildStepSchema(TOOLS);
    const system = body.messages[0];
    expect(system.role).toBe("system");
    expect(system.content).toContain(`<task>\n${INSTRUCTION}\n</task>`);
    expect(
      system.content.endsWith(`\n\n<output_format>\n\`\`\`json\n${JSON.stringify(schema)}\n\`\`\`\n</output_format>`),
    ).toBe(true);

    // Parsed steps go back, with defaults filled (scroll has no x/y; write keeps press_enter).
    const assistant = (i: number) => ({ role: "assistant", content: JSON.stringify(steps[i]) });
    expect(body.messages.slice(1)).toEqual([
      { role: "user", content: evicted },
      assistant(0),
      output("click", results[0]),
      { role: "user", content: evicted },
      assistant(1),
      output("write", results[1]),
      { role: "user", content: observation(3) },
      assistant(2),
      output("click", results[2]),
      { role: "user", content: observation(4) },
      assistant(3),
      output("scroll", results[3]),
      { role: "user", content: observation(5) },
    ]);
    const images = JSON.stringify(body.messages).match(/data:image\/png;base64/g) ?? [];
    expect(images).toHaveLength(3);

    // Top-level H fields, schema in structured_outputs, no tools, no literal extra_body.
    expect(body.structured_outputs).toEqual({ json: schema });
    expect(body.chat_template_kwargs).toEqual({ enable_thinking: true });
    expect(body.reasoning_effort).toBe("medium");
    expect(body.temperature).toBe(0.8);
    expect(body.max_tokens).toBe(2048);
    expect(body.user).toBe("trial-7");
    expect(body.model).toBe("reference");
    expect(body).not.toHaveProperty("tools");
    expect(body).not.toHaveProperty("tool_choice");
    expect(body).not.toHaveProperty("stream");
    for (const request of server.requests) {
      expect(request.raw).not.toContain("extra_body");
      expect(request.raw).not.toContain("SECRET-REASONING");
      expect(request.path).toBe("/v1/chat/completions");
    }
    // No key configured for the reference model: no Authorization header at all.
    expect(server.requests[0].headers.authorization).toBeUndefined();
  });

  it("puts the rejection of an invalid step back as a <tool_output> user message", async () => {
    server.requests.length = 0;
    const agent = session(server.baseUrl, { mode: "structured" });
    const bad = { note: null, thought: "t", tool_call: { tool_name: "click", element: "box", x: [512, 300], y: 300 } };
    server.enqueue(stepReply(bad), stepReply(steps[4]));
    const first = await agent.nextTurn({ screenshot: { data: fakePng(1) } });
    expect(first.outcome).toBe("invalid");
    expect(first.invalid[0]).toMatchObject({ id: "trial-1-t1-a1", tool: "click", kind: "coordinate_list" });
    agent.addResults([]);
    await agent.nextTurn({ screenshot: { data: fakePng(2) } });
    const messages = server.requests[1].body.messages;
    expect(messages[2]).toEqual({ role: "assistant", content: JSON.stringify(bad) });
    expect(messages[3].role).toBe("user");
    expect(messages[3].content).toMatch(
      /^<tool_output tool="click">\nRejected: click: x must be one integer in \[0, 1000\], not a list/,
    );
    expect(messages[4].role).toBe("user");
  });
});
