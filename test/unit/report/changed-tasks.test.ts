import { describe, expect, it } from "vitest";
import { main } from "../../../src/cli/main.js";
import { definitionHash } from "../../../src/definition-hash.js";
import type { Store } from "../../../src/store/store.js";
import { withTempStore } from "../store/fixtures.js";
import { fakeIO, seedRun, type SeedTrial } from "./seed.js";

let dir: string;
let db: string;
let store: Store;
withTempStore((t) => ({ dir, db, store } = t));

async function cli(argv: string[]) {
  const f = fakeIO(dir);
  const code = await main([...argv, "--db", db], f.io);
  return { code, out: f.out(), err: f.err() };
}

const OLD = definitionHash({ id: "save-bb042", instruction: "save a note" });
const NEW = definitionHash({ id: "save-bb042", instruction: "save a note, then delete it" });

/** save-bb042 passes 3/3 in the base and fails 3/3 in the candidate; the other task is steady. */
function seedPair(candidateHash: string | undefined) {
  const steady = (hash?: string): SeedTrial[] =>
    [0, 1, 2].map(() => ({ task: "lazy-scorecard", verdict: "passed", taskHash: hash }));
  const base = seedRun(store, {
    model: "reference",
    tags: ["gold"],
    startedAt: "2026-01-01T00:00:00Z",
    trials: [
      ...[0, 1, 2].map((): SeedTrial => ({ task: "save-bb042", verdict: "passed", taskHash: OLD })),
      ...steady("sha256:l"),
    ],
  });
  const cand = seedRun(store, {
    model: "reference",
    startedAt: "2026-01-02T00:00:00Z",
    trials: [
      ...[0, 1, 2].map((): SeedTrial => ({ task: "save-bb042", verdict: "failed", taskHash: candidateHash })),
      ...steady("sha256:l"),
    ],
  });
  return { base, cand };
}

describe("compare and changed tasks", () => {
  it("definitionHash ignores key order and sees any change of content", () => {
    expect(definitionHash({ a: 1, b: { c: [1, 2], d: "x" } })).toBe(definitionHash({ b: { d: "x", c: [1, 2] }, a: 1 }));
    expect(definitionHash({ a: 1, b: { c: [1, 2] } })).not.toBe(definitionHash({ a: 1, b: { c: [2, 1] } }));
    expect(definitionHash({ a: 1, u: undefined })).toBe(definitionHash({ a: 1 }));
    expect(OLD).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it("the same task content: the flip is a regression (exit 1)", async () => {
    const { base, cand } = seedPair(OLD);
    const r = await cli(["compare", base, cand, "--fail-on-regression"]);
    expect(r.code).toBe(1);
    expect(r.out).toContain("stable task save-bb042 now fails");
    expect(r.out).not.toContain("task changed");
  });

  it("a changed task is marked per task and ignored by the gate unless --include-changed-tasks", async () => {
    const { base, cand } = seedPair(NEW);
    const r = await cli(["compare", base, cand, "--fail-on-regression"]);
    expect(r.out).toContain("save-bb042: task changed; not a like-for-like comparison");
    expect(r.out).not.toContain("lazy-scorecard: task changed");
    expect(r.out).toContain("no regression");
    expect(r.code).toBe(0);

    const json = JSON.parse((await cli(["compare", base, cand, "--json"])).out);
    expect(json.comparison.tasks.map((t: { key: string; changed: boolean }) => [t.key, t.changed])).toEqual([
      ["save-bb042", true],
      ["lazy-scorecard", false],
    ]);
    expect(json.comparison.paired[0]).toMatchObject({
      changedTasks: ["save-bb042"],
      changedTasksIncluded: false,
      tasks: 1,
    });

    const md = (await cli(["compare", base, cand, "--markdown"])).out;
    expect(md).toContain("task changed; not a like-for-like comparison");

    const included = await cli(["compare", base, cand, "--fail-on-regression", "--include-changed-tasks"]);
    expect(included.code).toBe(1);
    expect(included.out).toContain("stable task save-bb042 now fails");
    expect(included.out).toContain("paired anyway");
  });

  it("a side without a stored hash (a schema-1 trial) is unknown, not changed", async () => {
    const { base, cand } = seedPair(undefined);
    const r = await cli(["compare", base, cand, "--fail-on-regression"]);
    expect(r.out).not.toContain("task changed");
    expect(r.code).toBe(1);
  });
});
