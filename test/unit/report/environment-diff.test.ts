import { describe, expect, it } from "vitest";
import { environmentChanges, environmentLines, environmentSummary } from "../../../src/report/environment-diff.js";
import type { RunRecord } from "../../../src/store/records.js";

const env = (over: Record<string, unknown> = {}) => ({
  umpire: "0.2.0",
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

describe("umpire's own version (issue 36)", () => {
  const run = (id: string, umpireVersion: string, environment?: Record<string, unknown>): RunRecord => ({
    id,
    startedAt: "2026-01-01T00:00:00.000Z",
    endedAt: null,
    status: "finished",
    tags: [],
    options: {},
    umpireVersion,
    folder: null,
    ...(environment ? { environment } : {}),
  });

  it("is part of the diff, with Node's; an environment stored before it carried umpire's version takes the run's", () => {
    expect(environmentChanges(env(), env({ umpire: "0.3.0", node: "v22.0.0" }))).toEqual([
      "umpire 0.2.0 -> 0.3.0",
      "node v20.1.0 -> v22.0.0",
    ]);
    const { umpire: _, ...older } = env();
    expect(environmentLines([run("A", "0.1.0", older), run("B", "0.2.0", env())])).toEqual([
      "environment changed (A -> B): umpire 0.1.0 -> 0.2.0",
    ]);
    expect(environmentLines([run("A", "0.1.0"), run("B", "0.2.0", env())])).toEqual([]);
  });

  it("the one-line summary names every part, and says when nothing was recorded", () => {
    expect(environmentSummary(env())).toBe(
      "umpire 0.2.0, chromium 131.0.1 (local), playwright 1.65.1, node v20.1.0, linux 6.1.0 x64, fonts aaaa (38), device scale 1, targets shop 1.4",
    );
    expect(environmentSummary(undefined)).toMatch(/^not recorded/);
  });
});
