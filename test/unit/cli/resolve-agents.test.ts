/**
 * The default mode, both, means "every mode the model has", decided by the model table (not by
 * matching an error message); a mode someone chose (flag or config) is kept, and an impossible
 * one stays an error.
 */
import { describe, expect, it } from "vitest";
import { resolveAgents } from "../../../src/cli/run/agents.js";
import { isUmpireError } from "../../../src/errors.js";

const env = { HAI_API_KEY: "test-key-not-a-secret" };

describe("resolveAgents and the one --mode default", () => {
  it("the default gives both modes where the model has function calling, structured only where it has none", () => {
    expect(resolveAgents({ model: ["reference"] }, {}, env).map((a) => a.label)).toEqual([
      "reference/structured",
      "reference/tools",
    ]);
    expect(
      resolveAgents({ model: ["holo3-122b-a10b"], mode: "both" }, { mode: "default" }, env).map((a) => a.label),
    ).toEqual(["holo3-122b-a10b/structured"]);
  });

  it("both or tools chosen by a flag or the config file stays an error on a model without function calling", () => {
    for (const source of ["flag", "config"] as const) {
      let error: unknown;
      try {
        resolveAgents({ model: ["holo3-122b-a10b"], mode: "both" }, { mode: source }, env);
      } catch (e) {
        error = e;
      }
      expect(isUmpireError(error) && error.code).toBe("config");
    }
  });
});
