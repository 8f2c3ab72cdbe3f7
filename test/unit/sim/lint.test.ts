import { describe, expect, it } from "vitest";
import { LINT_RULES, lintRequest, type LintRule } from "../../../src/sim/lint.js";
import { samplePng, sampleRequest, type SampleStep } from "../../../src/sim/sample-request.js";

const png = samplePng(16, 10);
const instruction = "Find match BB-042 and report its result line.";
const history: SampleStep[] = [
  { tool: "click", args: { element: "search box", x: 500, y: 300 } },
  { tool: "write", args: { content: "BB-042", press_enter: true } },
  { tool: "click", args: { element: "result link", x: 200, y: 210 } },
  { tool: "wait", args: { seconds: 1 } },
];

type Body = Record<string, any>;
const structured = (): Body => sampleRequest({ mode: "structured", instruction, screenshot: png, history });
const tools = (): Body => sampleRequest({ mode: "tools", instruction, screenshot: png, history });
const rules = (body: unknown, headers?: Record<string, string>) => lintRequest(body, headers).map((v) => v.rule);

/** Asserts the mutated request breaks exactly `rule` (and nothing else), with a path. */
function expectOnly(body: unknown, rule: LintRule) {
  const violations = lintRequest(body);
  expect(violations.map((v) => v.rule)).toEqual(violations.map(() => rule));
  expect(violations.length).toBeGreaterThan(0);
  for (const v of violations) {
    expect(v.path).not.toBe("");
    expect(v.message.length).toBeGreaterThan(10);
  }
  return violations;
}

describe("lintRequest on conformant requests", () => {
  it("passes a five-turn structured request and a five-turn tools request", () => {
    expect(lintRequest(structured())).toEqual([]);
    expect(lintRequest(tools())).toEqual([]);
  });

  it("passes a first turn with no history", () => {
    expect(lintRequest(sampleRequest({ mode: "structured", instruction, screenshot: png }))).toEqual([]);
  });

  it("accepts a well-formed bearer header", () => {
    expect(lintRequest(tools(), { authorization: "Bearer sk-test" })).toEqual([]);
  });

  it("has a description for every rule", () => {
    for (const text of Object.values(LINT_RULES)) expect(text.length).toBeGreaterThan(20);
  });
});

describe("lintRequest: each rule can fail", () => {
  it("body-shape: not an object, no model, no messages", () => {
    expect(rules("hello")).toEqual(["body-shape"]);
    const body = structured();
    delete body.model;
    expectOnly(body, "body-shape");
    expect(rules({ model: "reference", messages: [] })).toEqual(["body-shape"]);
  });

  it("no-extra-body: a literal extra_body, top-level or nested", () => {
    const body = structured();
    body.extra_body = { structured_outputs: body.structured_outputs };
    const [v] = expectOnly(body, "no-extra-body");
    expect(v.path).toBe("extra_body");
    const nested = tools();
    nested.metadata = { extra_body: { chat_template_kwargs: { enable_thinking: true } } };
    expect(expectOnly(nested, "no-extra-body")[0].path).toBe("metadata.extra_body");
  });

  it("enable-thinking: missing or false", () => {
    const body = structured();
    body.chat_template_kwargs.enable_thinking = false;
    expectOnly(body, "enable-thinking");
    const missing = tools();
    delete missing.chat_template_kwargs;
    expectOnly(missing, "enable-thinking");
  });

  it("reasoning-effort: an unknown level", () => {
    const body = structured();
    body.reasoning_effort = "maximal";
    expectOnly(body, "reasoning-effort");
  });

  it("schema-in-both-places: block missing, differing, or unparseable", () => {
    const noBlock = structured();
    noBlock.messages[0].content = noBlock.messages[0].content.replace(/<output_format>[\s\S]*<\/output_format>/, "");
    expect(expectOnly(noBlock, "schema-in-both-places")[0].message).toMatch(/no <output_format>/);

    const differs = structured();
    differs.structured_outputs.json.properties.thought.description = "something else";
    expect(expectOnly(differs, "schema-in-both-places")[0].message).toMatch(/differs/);

    const broken = structured();
    broken.messages[0].content = broken.messages[0].content.replace('"type":"object"', '"type":object');
    expect(expectOnly(broken, "schema-in-both-places")[0].message).toMatch(/parseable/);

    const noJson = structured();
    noJson.structured_outputs = { grammar: "x" };
    expectOnly(noJson, "schema-in-both-places");
  });

  it("schema-in-both-places ignores key order", () => {
    const body = structured();
    const { type, properties, required } = body.structured_outputs.json;
    body.structured_outputs.json = { required, properties, type };
    expect(lintRequest(body)).toEqual([]);
  });

  it("output-format: neither structured_outputs nor tools; a prompt schema alone is a missing copy", () => {
    const bare = tools();
    delete bare.tools;
    delete bare.tool_choice;
    expect(expectOnly(bare, "output-format")[0].path).toBe("$");
    const promptOnly = structured();
    delete promptOnly.structured_outputs;
    expect(expectOnly(promptOnly, "schema-in-both-places")[0].path).toBe("structured_outputs");
  });

  it("no-structured-with-tools: both output formats at once", () => {
    const body = tools();
    body.structured_outputs = structured().structured_outputs;
    expect(rules(body)).toContain("no-structured-with-tools");
  });

  it("tool-choice-required: auto or absent in tools mode", () => {
    const body = tools();
    body.tool_choice = "auto";
    expectOnly(body, "tool-choice-required");
    delete body.tool_choice;
    expectOnly(body, "tool-choice-required");
  });

  it("no-tool-format-examples: an example call in the tools-mode system prompt", () => {
    const body = tools();
    body.messages[0].content += '\nExample: {"name": "click", "arguments": {"x": 1, "y": 2}}';
    expectOnly(body, "no-tool-format-examples");
    const tagged = tools();
    tagged.messages[0].content += "\nReply as <tool_call>{...}</tool_call>";
    expectOnly(tagged, "no-tool-format-examples");
  });

  it("tool-result-layout: a tool message in structured mode, a missing result, user results in tools mode", () => {
    const body = structured();
    const resultIndex = body.messages.findIndex(
      (m: Body) => typeof m.content === "string" && m.content.startsWith("<tool_output"),
    );
    body.messages[resultIndex] = { role: "tool", tool_call_id: "x", content: "ok" };
    const violations = expectOnly(body, "tool-result-layout");
    expect(violations.map((v) => v.path)).toContain(`messages[${resultIndex}]`);

    const unwrapped = structured();
    unwrapped.messages[resultIndex] = { role: "user", content: "<tool_output>\nok\n</tool_output>" };
    expectOnly(unwrapped, "tool-result-layout");

    const userResults = tools();
    const toolIndex = userResults.messages.findIndex((m: Body) => m.role === "tool");
    const id = userResults.messages[toolIndex].tool_call_id;
    userResults.messages[toolIndex] = { role: "user", content: '<tool_output tool="click">\nok\n</tool_output>' };
    const found = lintRequest(userResults)
      .map((v) => v.rule)
      .sort();
    expect(found).toEqual(["tool-call-ids", "tool-result-layout"]);
    expect(lintRequest(userResults).find((v) => v.rule === "tool-call-ids")!.message).toContain(id);
  });

  it("tool-call-ids: an unknown id, a call never answered, an answer given twice", () => {
    const unknown = tools();
    const toolIndex = unknown.messages.findIndex((m: Body) => m.role === "tool");
    unknown.messages[toolIndex].tool_call_id = "call_nobody";
    const violations = expectOnly(unknown, "tool-call-ids");
    expect(violations.map((v) => v.message).join(" ")).toMatch(/call_nobody.*no earlier assistant/);

    const unanswered = tools();
    unanswered.messages.splice(toolIndex, 1);
    expect(expectOnly(unanswered, "tool-call-ids")[0].message).toMatch(/never answered/);

    const twice = tools();
    twice.messages.splice(toolIndex + 1, 0, { ...twice.messages[toolIndex] });
    expect(expectOnly(twice, "tool-call-ids")[0].message).toMatch(/twice/);
  });

  it("image-budget: four images", () => {
    const body = structured();
    const evicted = body.messages.findIndex(
      (m: Body) => Array.isArray(m.content) && m.content.some((c: Body) => c.text === "[screenshot evicted]"),
    );
    const chunk = body.messages[evicted].content.findIndex((c: Body) => c.text === "[screenshot evicted]");
    body.messages[evicted].content[chunk] = {
      type: "image_url",
      image_url: { url: `data:image/png;base64,${png.toString("base64")}` },
    };
    expectOnly(body, "image-budget");
  });

  it("observation-wrapper: an evicted placeholder without its wrapper, and a dropped observation", () => {
    const body = structured();
    const evicted = body.messages.findIndex(
      (m: Body) => Array.isArray(m.content) && m.content.some((c: Body) => c.text === "[screenshot evicted]"),
    );
    body.messages[evicted].content = [{ type: "text", text: "[screenshot evicted]" }];
    // The message is no longer an observation, so the step after it also lost its observation.
    const violations = expectOnly(body, "observation-wrapper");
    expect(violations.map((v) => v.path)).toEqual([`messages[${evicted}].content`, `messages[${evicted + 1}]`]);

    const dropped = structured();
    dropped.messages.splice(evicted, 1);
    expect(expectOnly(dropped, "observation-wrapper")[0].message).toMatch(/dropped/);
  });

  it("no-reasoning-in-history: reasoning fields and <think> text on assistant messages", () => {
    const body = structured();
    const assistant = body.messages.findIndex((m: Body) => m.role === "assistant");
    body.messages[assistant].reasoning_content = "I thought about it";
    expect(expectOnly(body, "no-reasoning-in-history")[0].path).toBe(`messages[${assistant}].reasoning_content`);

    const think = tools();
    const tAssistant = think.messages.findIndex((m: Body) => m.role === "assistant");
    think.messages[tAssistant].content = "<think>plan</think>Clicked the box";
    expectOnly(think, "no-reasoning-in-history");

    const nulled = tools();
    nulled.messages[tAssistant].reasoning = null;
    expect(lintRequest(nulled)).toEqual([]);
  });

  it("image-decodes: bad base64, wrong bytes, mismatched type", () => {
    const last = (body: Body) => body.messages[body.messages.length - 1].content[1].image_url;
    const bad = structured();
    last(bad).url = "data:image/png;base64,@@@";
    expectOnly(bad, "image-decodes");

    const gif = structured();
    last(gif).url = `data:image/gif;base64,${Buffer.from("GIF89a....").toString("base64")}`;
    expect(expectOnly(gif, "image-decodes")[0].message).toMatch(/not PNG, JPEG or WebP/);

    const mislabelled = structured();
    last(mislabelled).url = `data:image/jpeg;base64,${png.toString("base64")}`;
    expect(expectOnly(mislabelled, "image-decodes")[0].message).toMatch(/image\/jpeg.*PNG/);

    const remote = structured();
    last(remote).url = "https://example.com/shot.png";
    expect(lintRequest(remote)).toEqual([]);
  });

  it("auth-header: not a bearer token, and the key never appears in the message", () => {
    const violations = lintRequest(tools(), { authorization: "sk-secret-value" });
    expect(violations.map((v) => v.rule)).toEqual(["auth-header"]);
    expect(JSON.stringify(violations)).not.toContain("sk-secret-value");
  });
});
