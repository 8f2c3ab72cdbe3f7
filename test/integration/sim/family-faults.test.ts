/**
 * The reference model's fault profiles in Qwen's protocols, through the real openai SDK over real
 * HTTP with the strict lint on: a refusal is `refused`, a cut-off `truncated`, every malformed
 * output refused and never run, HTTP faults retried to a good turn; and the lint passes umpire's
 * Qwen requests and flags a request that strays from the cookbook's tool or screen.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveAgentConfigs } from "../../../src/agent/config.js";
import { createAgentSession } from "../../../src/agent/session.js";
import { lintRequest } from "../../../src/sim/lint.js";
import { MALFORMED_KINDS } from "../../../src/sim/profiles.js";
import { startReferenceModel, type ReferenceModel } from "../../../src/sim/server.js";

const INSTRUCTION = "Open match BB-042 and answer with its result.";
const TASK = {
  id: "qwen-faults",
  instruction: INSTRUCTION,
  reference: [
    { tool: "click" as const, args: { element: "the match link", x: 400, y: 300 } },
    { tool: "answer" as const, args: { content: "Jaipur won" } },
  ],
};
const FAST_RETRY = { maxRetries: 3, baseDelayMs: 1, maxDelayMs: 5, retryAfterCapMs: 5 };

/** A PNG header of the given size: all the model side and the reference model read of a screenshot. */
function png(width: number, height: number): Buffer {
  const bytes = Buffer.alloc(33);
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13], 0);
  bytes.write("IHDR", 12, "ascii");
  bytes.writeUInt32BE(width, 16);
  bytes.writeUInt32BE(height, 20);
  return bytes;
}

let server: ReferenceModel;
beforeAll(async () => {
  server = await startReferenceModel({ tasks: [TASK], strict: true });
});
afterAll(async () => server.close());

function agent(mode: "qwen2.5-vl" | "qwen3-vl" | "ui-tars", model: string, trialId: string) {
  const [config] = resolveAgentConfigs({ model, mode, env: {}, retry: FAST_RETRY });
  return createAgentSession({
    config: config!,
    instruction: INSTRUCTION,
    tools: ["click", "write", "press", "answer"],
    trialId,
    baseUrl: server.baseUrl,
    random: () => 0.5,
  });
}

const observation = (dpr: number) => ({ screenshot: { data: png(1280 * dpr, 800 * dpr) } });

for (const mode of ["qwen2.5-vl", "qwen3-vl"] as const) {
  describe(`${mode} fault profiles`, () => {
    it("gold: the planned click arrives as umpire's thousandths at DPR 1 and 2, then the answer", async () => {
      for (const dpr of [1, 2]) {
        const a = agent(mode, "reference", `gold-${mode}-${dpr}`);
        const first = await a.nextTurn(observation(dpr));
        expect(first.outcome).toBe("actions");
        expect(first.actions[0]).toMatchObject({ tool: "click", args: { x: 400, y: 300 } });
        expect(first.toolCalls[0]!.name).toBe("computer_use");
        a.addResults([{ id: first.actions[0]!.id, status: "success", output: "clicked" }]);
        const second = await a.nextTurn(observation(dpr));
        expect(second.actions[0]).toMatchObject({ tool: "answer", args: { content: "Jaipur won" } });
        expect(second.usage.inputTokens).toBeGreaterThan(0);
      }
    });

    it("refuse is refused and truncate is truncated, nothing run", async () => {
      const refused = await agent(mode, "reference:refuse", `refuse-${mode}`).nextTurn(observation(1));
      expect(refused).toMatchObject({ outcome: "refused", actions: [] });
      const cut = await agent(mode, "reference:truncate", `truncate-${mode}`).nextTurn(observation(1));
      expect(cut).toMatchObject({ outcome: "truncated", actions: [] });
    });

    it("every malformed output is refused with a kind, never run", async () => {
      const a = agent(mode, "reference:malformed", `malformed-${mode}`);
      const kinds: string[] = [];
      for (let turn = 0; turn < MALFORMED_KINDS.length; turn++) {
        const t = await a.nextTurn(observation(1));
        expect(t.outcome, `turn ${turn}`).toBe("invalid");
        expect(t.actions).toEqual([]);
        kinds.push(t.invalid[0]!.kind);
        a.addResults([]);
      }
      expect(new Set(kinds)).toEqual(
        new Set([
          "invalid_json",
          "unknown_tool",
          "missing_fields",
          "unsupported_action",
          "wrong_type",
          "out_of_range",
          // xy-as-list is a nested coordinate list (wrong_type); <think> with no call is an empty reply.
          "empty_output",
        ]),
      );
    });

    it("flaky HTTP is retried to a good turn", async () => {
      const a = agent(mode, "reference:flaky-http", `flaky-${mode}`);
      for (let turn = 0; turn < 3; turn++) {
        const t = await a.nextTurn(observation(1));
        expect(t.outcome).toBe("actions");
        a.addResults([]);
      }
    });

    it("the lint passes umpire's request and flags one that strays from the cookbook", async () => {
      const a = agent(mode, "reference", `lint-${mode}`);
      await a.nextTurn(observation(2));
      const body = server.log.forUser(`lint-${mode}`).at(-1)!.body as Record<string, unknown>;
      expect(lintRequest(body)).toEqual([]);
      const tools = structuredClone(body.tools) as { function: { description: string } }[];
      tools[0]!.function.description = tools[0]!.function.description.replace(
        /resolution is \d+x\d+/,
        "resolution is 1280x800",
      );
      const strayed = { ...body, tools, tool_choice: "required", chat_template_kwargs: { enable_thinking: true } };
      expect(lintRequest(strayed).map((v) => v.rule)).toEqual([
        "qwen-screen",
        "qwen-computer-use",
        "qwen-computer-use",
      ]);
    });
  });
}

describe("ui-tars fault profiles", () => {
  it("gold clicks are umpire's thousandths at DPR 1 and 2; refuse, truncate and flaky HTTP as for every protocol", async () => {
    for (const dpr of [1, 2]) {
      const first = await agent("ui-tars", "reference", `uitars-gold-${dpr}`).nextTurn(observation(dpr));
      expect(first.actions[0]).toMatchObject({ tool: "click", args: { x: 400, y: 300 } });
      expect(first.content).toMatch(/^Thought: .*\nAction: click\(point='<point>\d+ \d+<\/point>'\)$/s);
    }
    expect((await agent("ui-tars", "reference:refuse", "uitars-refuse").nextTurn(observation(1))).outcome).toBe(
      "refused",
    );
    expect((await agent("ui-tars", "reference:truncate", "uitars-cut").nextTurn(observation(1))).outcome).toBe(
      "truncated",
    );
    const flaky = agent("ui-tars", "reference:flaky-http", "uitars-flaky");
    for (let turn = 0; turn < 3; turn++) {
      expect((await flaky.nextTurn(observation(1))).outcome).toBe("actions");
      flaky.addResults([]);
    }
  });

  it("every malformed output is refused, never run; the lint passes umpire's request and flags a changed prompt", async () => {
    const a = agent("ui-tars", "reference:malformed", "uitars-malformed");
    const kinds = new Set<string>();
    for (let turn = 0; turn < MALFORMED_KINDS.length; turn++) {
      const t = await a.nextTurn(observation(1));
      expect(t.outcome, `turn ${turn}`).toBe("invalid");
      kinds.add(t.invalid[0]!.kind);
      a.addResults([]);
    }
    expect(kinds).toEqual(
      new Set([
        "invalid_json",
        "unknown_tool",
        "missing_fields",
        "unsupported_action",
        "wrong_type",
        "out_of_range",
        "empty_output",
      ]),
    );
    const body = server.log.forUser("uitars-malformed").at(-1)!.body as { messages: { content: unknown }[] };
    expect(lintRequest(body)).toEqual([]);
    const changed = structuredClone(body);
    changed.messages[1]!.content = [{ type: "text", text: "You are a GUI agent.\n## Action Space\nclick(x, y)" }];
    expect(lintRequest(changed).map((v) => v.rule)).toContain("ui-tars-prompt");
  });
});
