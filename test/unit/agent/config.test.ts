import { describe, expect, it } from "vitest";
import { apiKeyEnvProblem, readApiKey, redactConfig, resolveAgentConfigs } from "../../../src/agent/config.js";
import { UmpireError } from "../../../src/errors.js";
import { createPriceBook } from "../../../src/pricing.js";

function errorOf(fn: () => unknown): UmpireError {
  try {
    fn();
  } catch (e) {
    if (e instanceof UmpireError) return e;
    throw e;
  }
  throw new Error("expected an UmpireError");
}

describe("resolveAgentConfigs", () => {
  it("defaults to the embedded reference model in structured mode, no key", () => {
    const [config, ...rest] = resolveAgentConfigs({ env: {} });
    expect(rest).toEqual([]);
    expect(config).toMatchObject({
      label: "reference/structured",
      model: "reference",
      provider: "reference",
      mode: "structured",
      endpoint: { kind: "embedded" },
      apiKeyEnv: null,
      temperature: 0.8,
      reasoningEffort: "medium",
      maxTokens: 2048,
      stream: false,
    });
    // Prices live in the one price list (src/pricing.ts), not in the agent config.
    expect(createPriceBook().lookup(config.model)).toEqual({ input: 0, output: 0 });
  });

  it("keeps a reference profile in the model id and label; --mode both gives two configs", () => {
    const configs = resolveAgentConfigs({ model: "reference:flaky", mode: "both", env: {} });
    expect(configs.map((c) => c.label)).toEqual(["reference:flaky/structured", "reference:flaky/tools"]);
    expect(configs.map((c) => c.model)).toEqual(["reference:flaky", "reference:flaky"]);
  });

  it("sends H's ids to H's endpoint with HAI_API_KEY, and caps max tokens by the model", () => {
    const [holo31] = resolveAgentConfigs({ model: "holo3-1-35b-a3b", mode: "tools", env: { HAI_API_KEY: "k" } });
    expect(holo31).toMatchObject({
      endpoint: { kind: "url", baseUrl: "https://api.hcompany.ai/v1" },
      apiKeyEnv: "HAI_API_KEY",
      provider: "hcompany",
    });
    expect(createPriceBook().lookup(holo31.model)).toEqual({ input: 0.25, output: 1.8 });
    const [holo3] = resolveAgentConfigs({ model: "holo3-122b-a10b", env: { HAI_API_KEY: "k" } });
    expect(createPriceBook().lookup(holo3.model)).toEqual({ input: 0.4, output: 3 });
    expect(holo3.maxTokens).toBe(2048);
    expect(
      resolveAgentConfigs({ model: "holo3-122b-a10b", maxTokens: "8000", env: { HAI_API_KEY: "k" } })[0].maxTokens,
    ).toBe(8000);
    const tooMany = errorOf(() =>
      resolveAgentConfigs({ model: "holo3-1-35b-a3b", maxTokens: 8000, env: { HAI_API_KEY: "k" } }),
    );
    expect(tooMany.code).toBe("config");
    expect(tooMany.message).toContain("4096");
  });

  it("tools mode on holo3-122b-a10b is a config error naming the model and the fix", () => {
    for (const mode of ["tools", "both"]) {
      const error = errorOf(() => resolveAgentConfigs({ model: "holo3-122b-a10b", mode, env: { HAI_API_KEY: "k" } }));
      expect(error.code).toBe("config");
      expect(error.message).toContain("holo3-122b-a10b");
      expect(error.hint).toContain("--mode structured");
    }
  });

  it("a missing key for H's endpoint is a config error that names the variable", () => {
    const error = errorOf(() => resolveAgentConfigs({ model: "holo3-1-35b-a3b", env: {} }));
    expect(error.code).toBe("config");
    expect(error.message).toContain("HAI_API_KEY");
    const named = errorOf(() =>
      resolveAgentConfigs({ model: "holo3-1-35b-a3b", apiKeyEnv: "MY_H_KEY", env: { HAI_API_KEY: "k" } }),
    );
    expect(named.message).toContain("MY_H_KEY");
    // An empty variable counts as missing.
    expect(errorOf(() => resolveAgentConfigs({ model: "holo3-1-35b-a3b", env: { HAI_API_KEY: "" } })).code).toBe(
      "config",
    );
  });

  it("other ids need --base-url; a custom endpoint needs a key only when --api-key-env is given", () => {
    const unknown = errorOf(() => resolveAgentConfigs({ model: "qwen3.5-35b", env: {} }));
    expect(unknown.code).toBe("config");
    expect(unknown.hint).toContain("--base-url");

    const [local] = resolveAgentConfigs({
      model: "qwen3.5-35b",
      baseUrl: "http://localhost:8000/v1/",
      env: { HAI_API_KEY: "h-key" },
    });
    expect(local).toMatchObject({
      provider: "custom",
      endpoint: { kind: "url", baseUrl: "http://localhost:8000/v1" },
      apiKeyEnv: null,
    });
    // Unknown prices are null, never 0.
    expect(createPriceBook().lookup(local.model)).toBeNull();
    // H's key is never sent to another server unasked.
    expect(readApiKey(local, { HAI_API_KEY: "h-key" })).toBeUndefined();

    const missing = errorOf(() =>
      resolveAgentConfigs({
        model: "qwen3.5-35b",
        baseUrl: "http://localhost:8000/v1",
        apiKeyEnv: "VLLM_KEY",
        env: {},
      }),
    );
    expect(missing.code).toBe("config");
    expect(missing.message).toContain("VLLM_KEY");
    const [keyed] = resolveAgentConfigs({
      model: "qwen3.5-35b",
      baseUrl: "http://localhost:8000/v1",
      apiKeyEnv: "VLLM_KEY",
      env: { VLLM_KEY: "v" },
    });
    expect(readApiKey(keyed, { VLLM_KEY: "v" })).toBe("v");
  });

  it("rejects malformed values as usage errors, never echoing a pasted key", () => {
    expect(errorOf(() => resolveAgentConfigs({ mode: "json", env: {} })).code).toBe("usage");
    expect(errorOf(() => resolveAgentConfigs({ temperature: "hot", env: {} })).code).toBe("usage");
    expect(errorOf(() => resolveAgentConfigs({ temperature: 3, env: {} })).code).toBe("usage");
    expect(errorOf(() => resolveAgentConfigs({ reasoningEffort: "max", env: {} })).code).toBe("usage");
    expect(errorOf(() => resolveAgentConfigs({ maxTokens: "1.5", env: {} })).code).toBe("usage");
    expect(errorOf(() => resolveAgentConfigs({ baseUrl: "localhost:8000", model: "x", env: {} })).code).toBe("usage");
    const pasted = errorOf(() => resolveAgentConfigs({ apiKeyEnv: "sk-live-abc123-secret", env: {} }));
    expect(pasted.code).toBe("usage");
    expect(`${pasted.message} ${pasted.hint}`).not.toContain("sk-live-abc123-secret");
  });
});

describe("redactConfig", () => {
  it("never contains the key, nor credentials inside the base URL", () => {
    const secret = "sk-very-secret-value";
    const env = { HAI_API_KEY: secret, LOCAL_KEY: secret };
    const configs = [
      ...resolveAgentConfigs({ model: "holo3-1-35b-a3b", mode: "both", env }),
      ...resolveAgentConfigs({
        model: "m",
        baseUrl: `https://user:${secret}@example.test/v1?api-key=${secret}`,
        apiKeyEnv: "LOCAL_KEY",
        env,
      }),
    ];
    for (const config of configs) {
      const stored = JSON.stringify(redactConfig(config));
      expect(stored).not.toContain(secret);
      expect(JSON.parse(stored).apiKeyEnv).toBe(config.apiKeyEnv);
    }
    expect(redactConfig(configs[2]).endpoint).toEqual({ kind: "url", baseUrl: "https://example.test/v1" });
  });
});

describe("apiKeyEnvProblem: the shape of a value, not a prefix of a name (issue #38)", () => {
  it("accepts the names people give key variables, those whose first word is also a key prefix included", () => {
    for (const name of [
      "HAI_API_KEY",
      "HF_TOKEN",
      "XAI_API_KEY",
      "SK_KEY",
      "GSK_TOKEN",
      "OPENAI_API_KEY",
      "key_2",
      "MY_H_KEY",
    ])
      expect([name, apiKeyEnvProblem(name)]).toEqual([name, null]);
  });

  it("refuses keys: prefixed or not, a long random run, never repeating them", () => {
    const keys = [
      "sk-live-abc123-secret",
      ["hf", "AbCdEfGhIjKlMnOpQrStUvWxYz012345"].join("_"),
      ["gsk", "a1b2c3d4e5f6a7b8c9d0e1f2"].join("_"),
      ["xai", "Zx9Qw8Er7Ty6Ui5Op4As3Df2"].join("-"),
      "0123456789abcdef0123456789abcdef",
      "AbCdEfGhIjKlMnOpQrStUvWx",
    ];
    for (const key of keys) {
      const problem = apiKeyEnvProblem(key);
      expect([key, problem]).toEqual([key, expect.stringContaining("looks like a key")]);
      expect(problem).not.toContain(key);
    }
    expect(apiKeyEnvProblem("my key")).toContain("expected the NAME");
  });
});
