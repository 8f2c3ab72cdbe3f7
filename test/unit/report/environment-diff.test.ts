import { describe, expect, it } from "vitest";
import { environmentChanges } from "../../../src/report/environment-diff.js";

const env = (over: Record<string, unknown> = {}) => ({
  chromium: { version: "131.0.1", binary: "/usr/bin/chromium", endpoint: "local" },
  playwright: "1.65.1",
  os: { platform: "linux", release: "6.1.0", arch: "x64" },
  node: "v20.1.0",
  deviceScaleFactors: [1],
  fonts: { hash: "aaaa", count: 38 },
  targets: { shop: "1.4" },
  ...over,
});

describe("environmentChanges", () => {
  it("names each changed field, old -> new, and nothing when equal", () => {
    expect(environmentChanges(env(), env())).toEqual([]);
    expect(
      environmentChanges(
        env(),
        env({
          chromium: { version: "132.0.2", binary: "/usr/bin/chromium", endpoint: "local" },
          deviceScaleFactors: [1, 2],
          fonts: { hash: "bbbb", count: 40 },
          targets: { shop: "1.5", blog: "2" },
        }),
      ),
    ).toEqual([
      "chromium 131.0.1 -> 132.0.2",
      "device scale factor 1 -> 1, 2",
      "fonts aaaa -> bbbb",
      "target blog unknown -> 2",
      "target shop 1.4 -> 1.5",
    ]);
  });

  it("a run stored without an environment is unknown, never changed", () => {
    expect(environmentChanges(undefined, env())).toEqual([]);
    expect(environmentChanges(env(), undefined)).toEqual([]);
  });
});
