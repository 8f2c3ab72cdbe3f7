/**
 * `umpire run`'s agent configs: the default mode is "every mode this model has", decided by the
 * model table (src/agent/models.ts), not by catching an error and reading its message.
 */
import { describe, expect, it } from "vitest";
import { resolveAgents } from "../../../src/cli/commands/run.js";
import { UmpireError } from "../../../src/errors.js";

const env = { HAI_API_KEY: "k" };

describe("resolveAgents", () => {
  it("with no --mode, a model with function calling runs both modes and one without runs structured only", () => {
    expect(resolveAgents({ model: ["holo3-1-35b-a3b"] }, env).map((c) => c.label)).toEqual(["holo3-1-35b-a3b/structured", "holo3-1-35b-a3b/tools"]);
    expect(resolveAgents({ model: ["holo3-122b-a10b"] }, env).map((c) => c.label)).toEqual(["holo3-122b-a10b/structured"]);
    // Unknown function-calling support (a custom server) is allowed: both modes.
    expect(resolveAgents({ model: ["my-vllm"], "base-url": "http://127.0.0.1:9/v1" }, env).map((c) => c.mode)).toEqual(["structured", "tools"]);
  });

  it("an explicit --mode tools or both on a model without function calling stays a config error", () => {
    for (const mode of ["tools", "both"]) {
      let error: unknown;
      try {
        resolveAgents({ model: ["holo3-122b-a10b"], mode }, env);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(UmpireError);
      expect((error as UmpireError).code).toBe("config");
      expect((error as UmpireError).hint).toContain("--mode structured");
    }
  });

  it("other config errors are not swallowed by the default mode", () => {
    expect(() => resolveAgents({ model: ["holo3-122b-a10b"] }, {})).toThrow(/HAI_API_KEY/);
  });
});
