/** Checks from what the gold changed: stable values leaf by leaf, volatile ones (ids, times) left out. */
import { describe, expect, it } from "vitest";
import { judgeJson } from "../../../src/checks/json-expect.js";
import { stateChecks } from "../../../src/importer/state-diff.js";
import type { StateSnapshot } from "../../../src/importer/state-snapshot-check.js";

const snap = (localStorage: Record<string, unknown>, http: Record<string, unknown> = {}): StateSnapshot => ({
  localStorage: Object.fromEntries(
    Object.entries(localStorage).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]),
  ),
  sessionStorage: {},
  http,
});

describe("checks from the state the gold changed", () => {
  const gold = (at: number) =>
    snap({
      todos: [
        { title: "Walk the dog", completed: true, id: at },
        { title: "Feed the cat", completed: false, id: at + 1 },
      ],
      theme: "dark",
    });

  it("expects every value both gold runs left the same, and leaves out what differs between them", () => {
    const checks = stateChecks(snap({ theme: "dark" }), [gold(100), gold(200)]);
    expect(checks).toEqual([
      {
        kind: "storage",
        name: 'state: localStorage "todos" as the gold left it',
        area: "localStorage",
        key: "todos",
        json: [
          { path: "", length: 2 },
          { path: "/0/title", equals: "Walk the dog" },
          { path: "/0/completed", equals: true },
          { path: "/1/title", equals: "Feed the cat" },
          { path: "/1/completed", equals: false },
        ],
      },
    ]);
  });

  it("fails the wrong record and the toggle-both state, passes the gold's", () => {
    const check = stateChecks(snap({ theme: "dark" }), [gold(1), gold(2)]).find(
      (c) => c.kind === "storage" && c.key === "todos",
    );
    const json = (check as { json: Parameters<typeof judgeJson>[1] }).json;
    expect(json.length).toBe(5);
    const state = (first: boolean, second: boolean) => [
      { title: "Walk the dog", completed: first, id: 9 },
      { title: "Feed the cat", completed: second, id: 10 },
    ];
    expect(judgeJson(state(true, false), json).failures).toEqual([]);
    expect(judgeJson(state(false, true), json).failures.length).toBeGreaterThan(0);
    expect(judgeJson(state(true, true), json).failures.length).toBeGreaterThan(0);
    expect(judgeJson([], json).failures.length).toBeGreaterThan(0);
  });

  it("reads a removed key as exists: false and an HTTP body the gold changed as an http check", () => {
    const before = snap({ draft: "x" }, { "/api/books": ["Dune", "Emma"] });
    const after = snap({}, { "/api/books": [] });
    expect(stateChecks(before, [after, after])).toEqual([
      {
        kind: "storage",
        name: 'state: localStorage "draft" removed, as the gold did',
        area: "localStorage",
        key: "draft",
        exists: false,
      },
      {
        kind: "http",
        name: "state: GET /api/books as the gold left it",
        method: "GET",
        url: "/api/books",
        json: [{ path: "", length: 0 }],
      },
    ]);
  });

  it("makes no check when the gold changed nothing", () => {
    expect(stateChecks(snap({ a: "1" }), [snap({ a: "1" }), snap({ a: "1" })])).toEqual([]);
  });
});
