/** The lint of Gemini computer-use requests (#41): a conforming request is clean, each documented rule fires. */
import { PNG } from "pngjs";
import { describe, expect, it } from "vitest";
import { LINT_RULES } from "../../../src/sim/lint.js";
import { lintVendorRequest } from "../../../src/sim/vendor-lint.js";

const IMAGE = {
  inlineData: { mimeType: "image/png", data: PNG.sync.write(new PNG({ width: 8, height: 8 })).toString("base64") },
};
const tool = { computerUse: { environment: "ENVIRONMENT_BROWSER", excludedPredefinedFunctions: ["drag_and_drop"] } };

function request(overrides: Record<string, unknown> = {}) {
  return {
    contents: [
      { role: "user", parts: [{ text: "task" }, IMAGE] },
      {
        role: "model",
        parts: [
          {
            functionCall: {
              name: "click_at",
              args: { x: 1, y: 2, safety_decision: { decision: "require_confirmation" } },
            },
          },
          { functionCall: { name: "write_note", args: { name: "a.md", content: "x" } } },
        ],
      },
      {
        role: "user",
        parts: [
          {
            functionResponse: {
              name: "click_at",
              response: { url: "u", safety_acknowledgement: "true" },
              parts: [IMAGE],
            },
          },
          { functionResponse: { name: "write_note", response: { output: "saved" } } },
        ],
      },
    ],
    tools: [tool, { functionDeclarations: [{ name: "write_note" }] }],
    ...overrides,
  };
}

const rules = (body: unknown) => lintVendorRequest("gemini", body).map((v) => v.rule);

describe("Gemini's lint", () => {
  it("finds nothing in a conforming request, and its rules are listed", () => {
    expect(lintVendorRequest("gemini", request())).toEqual([]);
    for (const rule of rules(request({ contents: [], tools: [] }))) expect(LINT_RULES).toHaveProperty(rule);
  });

  it("wants one browser computerUse tool, real exclusions and no declared predefined name", () => {
    expect(rules(request({ tools: [] }))).toContain("gemini-computer-tool");
    expect(rules(request({ tools: [{ computerUse: { environment: "ENVIRONMENT_DESKTOP" } }] }))).toContain(
      "gemini-computer-tool",
    );
    expect(
      rules(request({ tools: [{ computerUse: { ...tool.computerUse, excludedPredefinedFunctions: ["fly"] } }] })),
    ).toContain("gemini-computer-tool");
    expect(rules(request({ tools: [tool, { functionDeclarations: [{ name: "click_at" }] }] }))).toContain(
      "gemini-computer-tool",
    );
  });

  it("checks roles, answers in order, the screenshot and the safety acknowledgement", () => {
    const body = request();
    const [first, model, answer] = body.contents as [any, any, any];
    expect(rules({ ...body, contents: [model, answer] })).toContain("gemini-contents");
    expect(rules({ ...body, contents: [first, model, model] })).toContain("gemini-contents");
    const swapped = { ...answer, parts: [answer.parts[1], answer.parts[0]] };
    expect(rules({ ...body, contents: [first, model, swapped] })).toContain("gemini-function-responses");
    const blind = {
      ...answer,
      parts: [{ functionResponse: { ...answer.parts[0].functionResponse, parts: undefined } }, answer.parts[1]],
    };
    expect(rules({ ...body, contents: [first, model, blind] })).toContain("gemini-screenshot");
    const unacked = {
      ...answer,
      parts: [{ functionResponse: { ...answer.parts[0].functionResponse, response: { url: "u" } } }, answer.parts[1]],
    };
    expect(rules({ ...body, contents: [first, model, unacked] })).toEqual(["gemini-safety-acknowledged"]);
    const notImage = { role: "user", parts: [{ inlineData: { mimeType: "image/gif", data: "R0lG" } }] };
    expect(rules({ ...body, contents: [notImage] })).toContain("gemini-screenshot");
  });
});
