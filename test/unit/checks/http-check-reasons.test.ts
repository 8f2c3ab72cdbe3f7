/**
 * The http check's reasons, against a real HTTP server on 127.0.0.1: a wrong status is the whole
 * story (an error page is not also "not JSON"), and a pass names what held.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpCheck, type HttpCheckSpec } from "../../../src/checks/http-check.js";
import { HttpCheck } from "../../../src/task/schema.js";
import type { CheckContext } from "../../../src/checks/types.js";

let server: Server;
let ctx: CheckContext;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === "/api/items")
      res.writeHead(200, { "content-type": "application/json" }).end('[{"name":"pear","qty":2}]');
    else res.writeHead(404).end();
  });
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  ctx = {
    workspaceDir: "/nowhere",
    effects: [],
    answer: null,
    target: { name: "shop", baseUrl, isAllowedUrl: (u) => u.startsWith(baseUrl) },
  };
});

afterAll(() => new Promise<void>((done) => server.close(() => done())));

const spec = (fields: Record<string, unknown>): HttpCheckSpec => HttpCheck.parse({ kind: "http", ...fields });

describe("http check reasons", () => {
  it("a 404 fails on its status alone, without 'the body is not JSON'", async () => {
    const judged = await httpCheck.judge(spec({ url: "/api/gone", json: [{ path: "/0/name", equals: "pear" }] }), ctx);
    expect(judged.pass).toBe(false);
    expect(judged.reason).toBe("GET /api/gone: answered 404, expected 2xx");
  });

  it("a pass names each expectation that held: the status, the body text and every JSON value", async () => {
    const judged = await httpCheck.judge(
      spec({
        url: "/api/items",
        contains: ["pear"],
        json: [
          { path: "", length: 1 },
          { path: "/0/name", equals: "pear" },
          { path: "/0/qty", number: { value: 2 } },
        ],
      }),
      ctx,
    );
    expect(judged.pass).toBe(true);
    expect(judged.reason).toBe(
      'GET /api/items: answered 200 (expected 2xx); the body contains "pear"; the value has 1 item; /0/name = "pear"; /0/qty = 2',
    );
  });

  it("an expected status whose body is not JSON still says so", async () => {
    const judged = await httpCheck.judge(
      spec({ url: "/api/gone", status: 404, json: [{ path: "/x", exists: true }] }),
      ctx,
    );
    expect(judged.reason).toMatch(/^GET \/api\/gone: the body is not JSON \(/);
  });
});
