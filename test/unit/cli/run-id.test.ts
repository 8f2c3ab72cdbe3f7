/** `--run-id` names one folder under --out (issue 24): the rule itself, every shape of escape. */
import { describe, expect, it } from "vitest";
import { checkedRunId } from "../../../src/cli/run/run-id.js";
import { newRunId } from "../../../src/vocabulary.js";

describe("checkedRunId", () => {
  it("accepts umpire's own ids and plain names", () => {
    for (const id of [newRunId(), "nightly-2026.12.01_a", "A1"]) expect(checkedRunId(id)).toBe(id);
  });
  it("refuses .., separators, a leading dot, empty and control characters", () => {
    for (const id of ["..", "../x", "a/b", "a\\b", "x..y", ".hidden", "", "a\nb", "/abs", "a".repeat(101)]) {
      expect(() => checkedRunId(id), JSON.stringify(id)).toThrow(/is not a run id/);
    }
  });
});
