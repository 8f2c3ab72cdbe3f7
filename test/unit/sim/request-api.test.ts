/**
 * Which API `umpire lint` checks a recorded request as (src/sim/request-api.ts): every protocol's
 * request, as umpire's own protocol code builds it, is told by its shape; a recorded path decides as
 * the reference model's routes do; `--api` decides over both; a body that fits several APIs, or
 * none, or whose signs disagree, is not guessed.
 */
import { PNG } from "pngjs";
import { describe, expect, it } from "vitest";
import { resolveAgentConfigs } from "../../../src/agent/config.js";
import { PROTOCOLS } from "../../../src/agent/protocols/registry.js";
import type { OutputMode } from "../../../src/vocabulary.js";
import { LINT_RULES, type LintRule } from "../../../src/sim/lint.js";
import { LINT_RULE_FAMILIES, ruleApis } from "../../../src/sim/lint-families.js";
import { apiOfPath, decideApi, lintAs, recordedRequest, REQUEST_APIS } from "../../../src/sim/request-api.js";

const PNG_16x10 = PNG.sync.write(new PNG({ width: 16, height: 10 }));

/** The first request umpire's protocol `mode` builds (the SDK's parameters, as the session hands them over). */
function firstRequest(mode: OutputMode): Record<string, unknown> {
  const [config] = resolveAgentConfigs({ model: "reference", mode, baseUrl: "http://127.0.0.1:9/v1", env: {} });
  const conversation = PROTOCOLS[mode].open({
    config: config!,
    instruction: "Find BB-042.",
    offered: ["click", "write", "answer"],
    trialId: "t1",
  });
  conversation.observe({ screenshot: { data: PNG_16x10, mimeType: "image/png" }, url: "http://127.0.0.1/" });
  return conversation.request();
}

const ROUTES = {
  "chat-completions": "/v1/chat/completions",
  responses: "/v1/responses",
  messages: "/v1/v1/messages",
  "generate-content": "/v1/v1beta/models/gemini-2.5-computer-use-preview-10-2025:generateContent",
} as const;

describe("decideApi", () => {
  it.each(Object.keys(PROTOCOLS) as OutputMode[])("tells %s's request by its shape", (mode) => {
    const body = firstRequest(mode);
    expect(decideApi(recordedRequest(body))).toEqual({ api: PROTOCOLS[mode].api, by: "shape" });
  });

  it("tells Anthropic's HTTP body (its betas moved to the header) by its shape, with or without the header", () => {
    const { betas, ...body } = firstRequest("anthropic-computer") as { betas: string[] };
    expect(decideApi({ body })).toEqual({ api: "messages", by: "shape" });
    expect(decideApi({ body, headers: { "anthropic-beta": betas.join(",") } }).api).toBe("messages");
  });

  it.each(REQUEST_APIS)("routes the reference model's %s path as its server does", (api) => {
    expect(apiOfPath(ROUTES[api])).toBe(api);
    expect(apiOfPath(`${ROUTES[api]}?key=x`)).toBe(api);
    // The path decides over the shape, as the server's route does.
    expect(decideApi({ body: firstRequest("tools"), path: ROUTES[api] })).toEqual({ api, by: "path" });
  });

  it("refuses a path no API is routed to, and an unrecognised Gemini method", () => {
    expect(apiOfPath("/v1/embeddings")).toBeNull();
    expect(apiOfPath("/v1beta/models/gemini-2.5-flash:countTokens")).toBeNull();
    const decision = decideApi({ body: firstRequest("tools"), path: "/v1/embeddings" });
    expect(decision).toMatchObject({ api: null, problem: expect.stringContaining("/v1/embeddings") });
  });

  it("--api decides over the path and the shape", () => {
    expect(decideApi({ body: firstRequest("tools"), path: ROUTES.responses }, "messages")).toEqual({
      api: "messages",
      by: "--api",
    });
    expect(decideApi({ body: { model: "x", messages: [] } }, "chat-completions")).toEqual({
      api: "chat-completions",
      by: "--api",
    });
  });

  it("refuses a body both chat completions and the Messages API accept, naming the two", () => {
    const decision = decideApi({ body: { model: "m", max_tokens: 64, messages: [{ role: "user", content: "hi" }] } });
    expect(decision).toEqual({
      api: null,
      problem: expect.stringContaining("more than one API"),
      candidates: ["chat-completions", "messages"],
    });
  });

  it("an anthropic-version header tells that body apart", () => {
    const body = { model: "m", max_tokens: 64, messages: [{ role: "user", content: "hi" }] };
    expect(decideApi({ body, headers: { "anthropic-version": "2023-06-01" } })).toEqual({
      api: "messages",
      by: "shape",
    });
  });

  it("refuses signs that disagree, and a body with no sign of any API", () => {
    const mixed = { ...firstRequest("tools"), system: [{ type: "text", text: "x" }] };
    const disagree = decideApi({ body: mixed });
    expect(disagree).toMatchObject({ api: null, problem: expect.stringContaining("disagree") });
    expect(disagree.api === null && disagree.candidates).toEqual(["chat-completions", "messages"]);
    expect(decideApi({ body: { ...firstRequest("openai-computer"), contents: [] } }).api).toBeNull();
    expect(decideApi({ body: { model: "x" } })).toMatchObject({ api: null, candidates: REQUEST_APIS });
  });
});

describe("recordedRequest", () => {
  it("reads {body, headers, path} (header names in lower case), and a bare body as the body", () => {
    const body = firstRequest("openai-computer");
    expect(recordedRequest({ body, headers: { "Anthropic-Beta": "b" }, path: "/v1/responses" })).toEqual({
      body,
      headers: { "anthropic-beta": "b" },
      path: "/v1/responses",
    });
    expect(recordedRequest(body)).toEqual({ body });
    // An entry of the reference model's log: its path and body, the rest ignored.
    expect(recordedRequest({ seq: 1, method: "POST", path: "/v1/responses", body, lint: [] })).toEqual({
      body,
      path: "/v1/responses",
    });
  });
});

describe("lintAs", () => {
  it("checks Anthropic's beta header only when the headers were recorded", () => {
    const { betas, ...body } = firstRequest("anthropic-computer") as { betas: string[] };
    expect(lintAs("messages", { body })).toEqual([]);
    expect(lintAs("messages", { body, headers: { "anthropic-beta": betas.join(",") } })).toEqual([]);
    expect(lintAs("messages", { body, headers: { "anthropic-beta": "computer-use-2024-10-22" } })).toEqual([
      expect.objectContaining({ rule: "anthropic-computer-tool" }),
    ]);
  });

  it("checks a body with the rules of the API it is linted as", () => {
    const holo = firstRequest("tools");
    expect(lintAs("chat-completions", { body: holo })).toEqual([]);
    const asResponses = lintAs("responses", { body: holo }).map((v) => v.rule);
    expect(asResponses).toContain("openai-computer-tool");
  });
});

describe("each rule's family", () => {
  it("names the API of every rule, from its families", () => {
    for (const rule of Object.keys(LINT_RULES) as LintRule[])
      expect(LINT_RULE_FAMILIES[rule].length).toBeGreaterThan(0);
    expect(ruleApis("openai-safety-acknowledged")).toEqual(["responses"]);
    expect(ruleApis("anthropic-computer-tool")).toEqual(["messages"]);
    expect(ruleApis("gemini-contents")).toEqual(["generate-content"]);
    expect(ruleApis("qwen-screen")).toEqual(["chat-completions"]);
    expect(ruleApis("body-shape")).toEqual(REQUEST_APIS);
  });
});
