import { describe, expect, it } from "vitest";
import { MODE_CHOICES, OPTIONS } from "../../../src/config/options.js";
import { PROTOCOLS, protocolList } from "../../../src/agent/protocols/registry.js";
import { OUTPUT_MODES, TRIAL_MODES } from "../../../src/vocabulary.js";

describe("the protocol registry", () => {
  it("has one entry per protocol name, each under its own name, in the names' order", () => {
    expect(Object.keys(PROTOCOLS)).toEqual([...OUTPUT_MODES]);
    for (const [name, protocol] of Object.entries(PROTOCOLS)) expect(protocol.name).toBe(name);
    expect(protocolList().map((p) => p.name)).toEqual([...OUTPUT_MODES]);
  });

  it("is where --mode's choices, its help and the compare order come from", () => {
    expect(MODE_CHOICES).toEqual([...OUTPUT_MODES, "both"]);
    for (const p of protocolList()) expect(OPTIONS.mode.help).toContain(p.summary);
    expect(TRIAL_MODES.slice(0, OUTPUT_MODES.length)).toEqual([...OUTPUT_MODES]);
  });

  it("opens a conversation whose first request carries only its own output fields", () => {
    const setup = (mode: "structured" | "tools") => ({
      config: {
        label: `m/${mode}`,
        model: "m",
        provider: "custom" as const,
        mode,
        endpoint: { kind: "url" as const, baseUrl: "http://127.0.0.1:1/v1" },
        apiKeyEnv: null,
        temperature: 0.8,
        reasoningEffort: "medium" as const,
        maxTokens: 2048,
        stream: false,
        requestTimeoutMs: 1000,
        retry: { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 1, retryAfterCapMs: 1 },
      },
      instruction: "Do it.",
      offered: ["click", "answer"] as const,
      trialId: "t1",
    });
    const structured = PROTOCOLS.structured.open(setup("structured"));
    structured.observe({ screenshot: { data: "AAAA" } });
    const s = structured.request();
    expect(Object.keys(s)).toEqual([
      "model",
      "messages",
      "temperature",
      "max_tokens",
      "reasoning_effort",
      "chat_template_kwargs",
      "user",
      "structured_outputs",
    ]);
    const tools = PROTOCOLS.tools.open(setup("tools"));
    tools.observe({ screenshot: { data: "AAAA" } });
    const t = tools.request();
    expect(Object.keys(t).slice(-2)).toEqual(["tools", "tool_choice"]);
    expect(t).not.toHaveProperty("structured_outputs");
  });
});

describe("a vendor model's own protocol", () => {
  it("is inferred from known model ids, never for Holo or unknown ones", async () => {
    const { nativeProtocolOf } = await import("../../../src/agent/models.js");
    expect(nativeProtocolOf("gpt-5.4")).toBe("openai-computer");
    expect(nativeProtocolOf("computer-use-preview-2025-03-11")).toBe("openai-computer");
    expect(nativeProtocolOf("claude-opus-4-5")).toBe("anthropic-computer");
    expect(nativeProtocolOf("gpt-4o")).toBeNull();
    expect(nativeProtocolOf("holo3-1-35b-a3b")).toBeNull();
    expect(nativeProtocolOf("reference")).toBeNull();
    expect(nativeProtocolOf("ByteDance-Seed/UI-TARS-1.5-7B")).toBe("ui-tars");
    expect(nativeProtocolOf("bytedance-research/UI-TARS-7B-DPO")).toBeNull(); // 1.0: thousandths, not spoken
    expect(nativeProtocolOf("Qwen/Qwen2.5-VL-72B-Instruct")).toBe("qwen2.5-vl");
    expect(nativeProtocolOf("qwen3-vl-235b-a22b-instruct")).toBe("qwen3-vl");
    expect(nativeProtocolOf("Qwen/Qwen2.5-72B-Instruct")).toBeNull();
  });
});
