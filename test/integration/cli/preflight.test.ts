/**
 * Issue 12 §2 through the real CLI process: a dead endpoint, a wrong model id and a wrong key stop
 * the run within seconds, before any browser starts, naming the URL, the model and the fix (exit 2);
 * --no-preflight skips the check, and then the trials end in `error` and the run exits 3, not 1.
 * Plus the preflight itself against the reference model over real HTTP, and the connect timeout.
 * (The wrong model and wrong key cases run the CLI in-process: the same refusal without a node start.)
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { spawn } from "node:child_process";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { preflight } from "../../../src/agent/preflight.js";
import { createEndpointFetch } from "../../../src/agent/http-fetch.js";
import { startReferenceModel, type ReferenceModel } from "../../../src/sim/server.js";
import { runCli, startCli, waitFor, type CliChild } from "../../support/cli-child.js";
import { runInProcess } from "../../support/cli-in-process.js";

let dir: string;
let served: CliChild;
let baseUrl: string;
const KEY = "sk-umpire-right-key-1234";
const WRONG = "sk-umpire-wrong-key-5678";

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "umpire-preflight-"));
  // The reference model as a user would serve it, requiring a key.
  served = startCli(["serve-model", "--quiet", "--api-key-env", "SIM_KEY"], { env: { SIM_KEY: KEY } });
  baseUrl = await waitFor(() => /^(http:\/\/\S+\/v1)$/m.exec(served.stdout())?.[1], "serve-model's base URL", 60_000);
}, 90_000);
afterAll(async () => {
  served?.child.kill("SIGINT");
  await served?.done;
  rmSync(dir, { recursive: true, force: true });
});

const out = () => join(dir, "runs");
const db = () => join(dir, "umpire.db");
const common = () => ["answer-only-bb042", "--mode", "structured", "--db", db(), "--out", out()];

describe("preflight through the CLI", () => {
  it("a dead endpoint stops the run before any browser starts: exit 2, URL, model and fix named", {
    timeout: 120_000,
  }, async () => {
    const r = await runCli(["run", ...common(), "--base-url", "http://127.0.0.1:1/v1", "--model", "my-model"]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(
      /preflight failed: cannot reach the model endpoint http:\/\/127\.0\.0\.1:1\/v1 \(model my-model\)/,
    );
    expect(r.stderr).toMatch(/fix: .*--base-url/);
    // Nothing was stored and no trial folder made: the run never started.
    expect(existsSync(out())).toBe(false);
  });

  it("a wrong model id: exit 2, the served models listed", { timeout: 120_000 }, async () => {
    const r = await runInProcess(
      ["run", ...common(), "--base-url", baseUrl, "--model", "refrence", "--api-key-env", "MY_KEY"],
      { env: { MY_KEY: KEY } },
    );
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`does not serve the model 'refrence'`);
    expect(r.stderr).toContain(baseUrl);
    expect(r.stderr).toMatch(/fix: use --model with one of: reference, /);
  });

  it("a wrong key: exit 2, the variable named, the key itself never printed", { timeout: 120_000 }, async () => {
    const r = await runInProcess(
      ["run", ...common(), "--base-url", baseUrl, "--model", "reference", "--api-key-env", "MY_KEY"],
      { env: { MY_KEY: WRONG } },
    );
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/refused the request for reference with HTTP 401: Incorrect API key provided/);
    expect(r.stderr).toMatch(/fix: check that MY_KEY holds a valid key/);
    expect(r.stderr + r.stdout).not.toContain(WRONG);
    // And without any key at all.
    const none = await runInProcess(["run", ...common(), "--base-url", baseUrl, "--model", "reference"]);
    expect(none.code, none.stderr).toBe(2);
    expect(none.stderr).toMatch(/HTTP 401.*\n.*fix: this endpoint wants a key: .*--api-key-env/);
  });

  it("--no-preflight skips it: the trial then ends in error after its retry, and the run exits 3, not 1", {
    timeout: 300_000,
  }, async () => {
    const r = await runCli([
      "run",
      ...common(),
      "--base-url",
      "http://127.0.0.1:1/v1",
      "--model",
      "my-model",
      "--no-preflight",
      "--json",
    ]);
    expect(r.code, r.stderr).toBe(3);
    const body = JSON.parse(r.stdout);
    expect(body.trials.map((t: { verdict: string }) => t.verdict)).toEqual(["error"]);
  });
});

describe("preflight and connect timeout over real HTTP", () => {
  let model: ReferenceModel;
  beforeAll(async () => {
    model = await startReferenceModel({ tasks: [], apiKey: KEY });
  });
  afterAll(async () => model?.close());
  const target = (over: Partial<Parameters<typeof preflight>[0]> = {}) => ({
    baseUrl: model.baseUrl,
    shownUrl: model.baseUrl,
    model: "reference:slow",
    apiKey: KEY,
    apiKeyEnv: "K",
    ...over,
  });

  it("passes with the right key and a served model; names the problem otherwise", async () => {
    expect(await preflight(target())).toEqual({ ok: true, via: "models" });
    expect(await preflight(target({ apiKey: WRONG }))).toMatchObject({ ok: false, problem: "auth" });
    expect(await preflight(target({ model: "gpt-9" }))).toMatchObject({ ok: false, problem: "model" });
  });

  it("falls back to a one-token request when the endpoint has no model list", async () => {
    // The chat route of the reference model answers a ping; /models is hidden behind a wrong path.
    const noList: typeof fetch = (input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      return url.endsWith("/models")
        ? Promise.resolve(new Response("not here", { status: 404 }))
        : createEndpointFetch()(input, init);
    };
    const result = await preflight(target({ model: "gpt-9" }), { fetch: noList });
    expect(result).toMatchObject({ ok: false, problem: "model" });
    expect(await preflight(target(), { fetch: noList })).toMatchObject({ ok: true, via: "completion" });
  });

  it("a host that never completes the TCP handshake fails with a connect timeout, not the response timeout", async () => {
    // A listening socket whose backlog is full: further SYNs are dropped, so connecting hangs.
    const blackhole = await fullBacklog();
    try {
      const result = await preflight(target({ baseUrl: `http://127.0.0.1:${blackhole.port}/v1` }), {
        connectTimeoutMs: 300,
        timeoutMs: 60_000,
      });
      expect(result).toMatchObject({ ok: false, problem: "unreachable" });
      expect(!result.ok && result.message).toMatch(/connect timeout: no connection to 127\.0\.0\.1:\d+ within 300 ms/);
    } finally {
      await blackhole.close();
    }
  });
});

/**
 * A listening socket that never accepts (Python's listen(0): Node's libuv would accept everything),
 * its tiny backlog filled by a few connections: the kernel then drops further SYNs, so a connect hangs.
 */
async function fullBacklog(): Promise<{ port: number; close(): Promise<void> }> {
  const py = spawn(
    "python3",
    [
      "-c",
      "import socket,time\ns=socket.socket()\ns.bind(('127.0.0.1',0))\ns.listen(0)\nprint(s.getsockname()[1], flush=True)\ntime.sleep(600)",
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const port = await new Promise<number>((resolve, reject) => {
    py.stdout!.once("data", (d) => resolve(Number(String(d).trim())));
    py.once("error", reject);
  });
  const fillers: Socket[] = [];
  for (let i = 0; i < 3; i++) {
    const s = connect({ port, host: "127.0.0.1" });
    s.on("error", () => undefined);
    fillers.push(s);
  }
  await new Promise((r) => setTimeout(r, 300));
  return {
    port,
    close: async () => {
      for (const s of fillers) s.destroy();
      py.kill();
    },
  };
}
