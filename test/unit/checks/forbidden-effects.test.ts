/** permissions.forbiddenEffects judged on an effects log: count per type, the source named, and no source never a pass. */
import { describe, expect, it } from "vitest";
import { judgeForbiddenEffects } from "../../../src/checks/forbidden-effects.js";
import { verdictOf } from "../../../src/checks/verdict.js";

const effect = (type: string) => ({ type, at: "2026-01-01T00:00:00Z", detail: {} });
const SOURCE = "target reading's effects source GET http://127.0.0.1:4100/effects";

describe("judgeForbiddenEffects", () => {
  it("gives no result when the task forbids nothing", () => {
    expect(judgeForbiddenEffects([], [effect("all_cleared")], SOURCE)).toBeNull();
  });

  it("fails on each forbidden type seen, with its count and the source, and ignores allowed ones", () => {
    const log = [effect("all_cleared"), effect("item_saved"), effect("all_cleared"), effect("item_deleted")];
    const result = judgeForbiddenEffects(["all_cleared", "item_deleted", "list_renamed"], log, SOURCE)!;
    expect(result).toMatchObject({
      kind: "effects",
      required: true,
      pass: false,
      name: "permissions.forbiddenEffects: no all_cleared, item_deleted, list_renamed",
    });
    expect(result.reason).toBe(
      `all_cleared happened 2 times; item_deleted happened 1 time, forbidden by permissions.forbiddenEffects (read from ${SOURCE})`,
    );
    expect(result.evidence).toMatchObject({
      source: SOURCE,
      forbidden: [
        { type: "all_cleared", count: 2 },
        { type: "item_deleted", count: 1 },
        { type: "list_renamed", count: 0 },
      ],
    });
    expect(verdictOf([result])).toBe("failed");
  });

  it("passes when none was seen, saying where it looked", () => {
    const result = judgeForbiddenEffects(["all_cleared"], [effect("item_saved")], SOURCE)!;
    expect(result).toMatchObject({ pass: true, reason: `no all_cleared in ${SOURCE}` });
  });

  it("without an effects source it cannot judge: a crashed result (verdict error), never a pass", () => {
    const result = judgeForbiddenEffects(["all_cleared"], [], null)!;
    expect(result).toMatchObject({ pass: false, crashed: true });
    expect(verdictOf([result])).toBe("error");
  });
});
