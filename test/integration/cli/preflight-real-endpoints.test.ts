/**
 * Issue 23 §5: the preflight against endpoints as real servers are, over real HTTP (node:http on
 * 127.0.0.1): a routing proxy whose `GET /models` lists nothing, a server that lists only aliases.
 * A model the list does not name is confirmed with the one-token request; only a definite "no such
 * model" refuses the run. Issue 24: a key in the base URL's query string goes after the path.
 * Issue 38: a transient failure (a dropped connection, 502/503) is retried before anything is refused.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { preflight } from "../../../src/agent/preflight.js";
import { runCli } from "../../support/cli-child.js";
import { answerStep, completion, startScriptedEndpoint, type SeenRequest } from "../../support/scripted-endpoint.js";

const ANSWER = "BB-042: Pune Pioneers 168/6, Jaipur Kites 169/4. Jaipur Kites won by 6 wickets.";
const isPing = (r: SeenRequest) => r.body?.max_tokens === 1;
const notFound = (model: string) => ({
  status: 404,
  json: { error: { message: `The model '${model}' does not exist`, code: "model_not_found" } },
});

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "umpire-preflight-real-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the preflight against real endpoints", () => {
  it("a routing proxy that lists nothing: the run goes on after the one-token request (CLI, key in the query string)", {
    timeout: 300_000,
  }, async () => {
    const proxy = await startScriptedEndpoint((r) =>
      r.method === "GET"
        ? { json: { object: "list", data: [] } }
        : { json: isPing(r) ? completion("p") : answerStep(ANSWER) },
    );
    try {
      const args = [
        "run",
        "answer-only-bb042",
        "--mode",
        "structured",
        "--db",
        join(dir, "a.db"),
        "--out",
        join(dir, "a"),
        "--json",
      ];
      const r = await runCli([
        ...args,
        "--base-url",
        `${proxy.baseUrl}?api_key=sk-query-key-0001`,
        "--model",
        "routed/holo",
      ]);
      expect(r.stderr).not.toContain("preflight failed");
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(
        /preflight: routed\/holo at http:\/\/127\.0\.0\.1:\d+\/v1: served \(GET \/models does not list it: the list is empty\)/,
      );
      const [list, ping] = proxy.requests;
      // The key in the query string goes after the path, as the model client sends it.
      expect(list!.url).toBe("/v1/models?api_key=sk-query-key-0001");
      expect(ping!.url).toBe("/v1/chat/completions?api_key=sk-query-key-0001");
      expect(ping!.body).toMatchObject({ model: "routed/holo", max_tokens: 1 });
      expect(r.stderr + r.stdout).not.toContain("sk-query-key-0001");
    } finally {
      await proxy.close();
    }
  });

  it("a server that lists only aliases serves the model it does not list", async () => {
    const server = await startScriptedEndpoint((r) =>
      r.method === "GET" ? { json: { data: [{ id: "holo-latest" }] } } : { json: completion("p") },
    );
    try {
      const result = await preflight({
        baseUrl: server.baseUrl,
        shownUrl: server.baseUrl,
        model: "holo3-35b-a3b-2026",
        apiKeyEnv: null,
      });
      expect(result).toMatchObject({ ok: true, via: "completion" });
      expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
        "GET /v1/models",
        "POST /v1/chat/completions",
      ]);
    } finally {
      await server.close();
    }
  });

  it("a definite 404 model_not_found refuses the run, naming what the list offers (CLI)", {
    timeout: 120_000,
  }, async () => {
    const server = await startScriptedEndpoint((r) =>
      r.method === "GET" ? { json: { data: [{ id: "holo-latest" }, { id: "holo-fast" }] } } : notFound(r.body?.model),
    );
    try {
      const r = await runCli([
        "run",
        "answer-only-bb042",
        "--mode",
        "structured",
        "--db",
        join(dir, "b.db"),
        "--out",
        join(dir, "b"),
        "--base-url",
        server.baseUrl,
        "--model",
        "holo-typo",
      ]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`does not serve the model 'holo-typo' (The model 'holo-typo' does not exist)`);
      expect(r.stderr).toMatch(/fix: use --model with one of: holo-latest, holo-fast/);
      expect(server.requests.filter(isPing)).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it("an inconclusive answer for an unlisted model is no refusal: the run goes on with a note", async () => {
    const server = await startScriptedEndpoint((r) =>
      r.method === "GET" ? { json: { data: [] } } : { status: 503, json: { error: { message: "warming up" } } },
    );
    try {
      const result = await preflight({
        baseUrl: server.baseUrl,
        shownUrl: server.baseUrl,
        model: "m",
        apiKeyEnv: null,
      });
      expect(result).toMatchObject({ ok: true, via: "completion" });
      expect(result.ok && result.note).toMatch(
        /GET \/models does not list it: the list is empty\): the one-token check got HTTP 503 \(warming up\)/,
      );
    } finally {
      await server.close();
    }
  });

  it("a dropped first connection is retried: the run goes on (CLI; it refused the run: 'other side closed')", {
    timeout: 300_000,
  }, async () => {
    let seen = 0;
    const flaky = await startScriptedEndpoint((r) => {
      seen += 1;
      if (seen === 1) return { json: null, drop: true };
      return r.method === "GET"
        ? { json: { data: [{ id: "holo-m" }] } }
        : { json: isPing(r) ? completion("p") : answerStep(ANSWER) };
    });
    try {
      const r = await runCli([
        "run",
        "answer-only-bb042",
        "--mode",
        "structured",
        "--db",
        join(dir, "d.db"),
        "--out",
        join(dir, "d"),
        "--base-url",
        flaky.baseUrl,
        "--model",
        "holo-m",
      ]);
      expect(r.stderr).not.toContain("cannot reach the model endpoint");
      expect(r.code, r.stderr).toBe(0);
      // The dropped GET /models was sent again and answered.
      expect(flaky.requests.slice(0, 2).map((q) => `${q.method} ${q.url}`)).toEqual([
        "GET /v1/models",
        "GET /v1/models",
      ]);
    } finally {
      await flaky.close();
    }
  });

  it("502 and 503 are retried before an answer counts; an endpoint that keeps dropping is still refused", async () => {
    let pings = 0;
    const busy = await startScriptedEndpoint((r) => {
      if (r.method === "GET") return { status: 502, json: { error: { message: "bad gateway" } } };
      pings += 1;
      return pings < 3 ? { status: 503, json: { error: { message: "warming up" } } } : notFound(r.body?.model);
    });
    const dropping = await startScriptedEndpoint(() => ({ json: null, drop: true }));
    try {
      const target = { shownUrl: "x", model: "gone", apiKeyEnv: null };
      const backoffMs = [10, 10, 10];
      // The definite answer behind two 503s is what counts: the model does not exist.
      const refused = await preflight({ ...target, baseUrl: busy.baseUrl }, { backoffMs });
      expect(refused).toMatchObject({ ok: false, problem: "model" });
      expect(busy.requests.filter((q) => q.method === "GET")).toHaveLength(4);
      expect(pings).toBe(3);
      const dead = await preflight({ ...target, baseUrl: dropping.baseUrl }, { backoffMs });
      expect(dead).toMatchObject({ ok: false, problem: "unreachable" });
      expect(dropping.requests).toHaveLength(4);
    } finally {
      await busy.close();
      await dropping.close();
    }
  });
});
