/**
 * Issue 24, secrets round two, through the real CLI against an endpoint that echoes what it was
 * sent (its Authorization header and the URL as sent) in every error: the encodings umpire itself
 * makes of a key (Basic `base64(user:password)` for user info in a base URL, the URL-encoded query
 * value) and a named agent's `apiKeyEnv` value and `baseUrl` credentials must reach neither SQLite,
 * either attempt's events.jsonl, the HTML report nor the terminal.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../support/cli-child.js";
import { startScriptedEndpoint, type ScriptedEndpoint } from "../../support/scripted-endpoint.js";

const BASIC_PASSWORD = "pw-basic-5e1c9a";
const NAMED_KEY = "sk-named-agent-key-31b7";
const QUERY_KEY = "tk named/secret-77";

let dir: string;
let server: ScriptedEndpoint;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "umpire-secret-encodings-"));
  server = await startScriptedEndpoint((r) =>
    r.method === "GET"
      ? { json: { data: [{ id: "echo-model" }] } }
      : {
          status: 400,
          json: { error: { message: `bad request: authorization ${String(r.headers.authorization)} url ${r.url}` } },
        },
  );
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

function filesUnder(root: string): string[] {
  return readdirSync(root).flatMap((name) => {
    const path = join(root, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe("the encodings of a key umpire makes, and a named agent's key, echoed by the endpoint", () => {
  it("reach neither the store, the trial logs, the report nor the terminal", { timeout: 600_000 }, async () => {
    const host = `127.0.0.1:${server.port}`;
    writeFileSync(
      join(dir, "umpire.config.yaml"),
      [
        "agents:",
        "  basic:",
        "    model: echo-model",
        `    baseUrl: http://agent:${BASIC_PASSWORD}@${host}/v1`,
        "  named:",
        "    model: echo-model",
        `    baseUrl: http://${host}/v1?token=${encodeURIComponent(QUERY_KEY)}`,
        "    apiKeyEnv: NAMED_KEY",
        "",
      ].join("\n"),
    );
    const db = join(dir, "umpire.db");
    const r = await runCli(
      [
        "run",
        "answer-only-bb042",
        "--config",
        join(dir, "umpire.config.yaml"),
        "--agent",
        "basic",
        "--agent",
        "named",
        "--db",
        db,
        "--out",
        join(dir, "runs"),
        "--run-id",
        "echo-run",
        "--report",
      ],
      {
        env: { NAMED_KEY },
      },
    );

    // What was sent, so the forms below are the ones the endpoint echoed.
    const chats = server.requests.filter((q) => q.method === "POST");
    const basic = `Basic ${Buffer.from(`agent:${BASIC_PASSWORD}`).toString("base64")}`;
    expect(chats.map((q) => q.headers.authorization)).toEqual(expect.arrayContaining([basic, `Bearer ${NAMED_KEY}`]));
    const queryForms = [
      ...new Set(chats.flatMap((q) => (q.url.includes("?") ? [q.url.split("token=")[1]!.split("&")[0]!] : []))),
    ];
    expect(queryForms.length).toBeGreaterThan(0);
    // Each trial failed on the echo and was retried: two attempts' logs per agent.
    expect(r.stderr + r.stdout).toContain("[redacted]");

    const forbidden = [
      BASIC_PASSWORD,
      basic.slice("Basic ".length).replace(/=+$/, ""),
      NAMED_KEY,
      QUERY_KEY,
      ...queryForms,
    ];
    for (const secret of forbidden) {
      expect(r.stderr, secret).not.toContain(secret);
      expect(r.stdout, secret).not.toContain(secret);
    }
    const written = filesUnder(dir).filter((f) => !f.endsWith(".png") && !f.endsWith("umpire.config.yaml"));
    expect(written.filter((f) => f.endsWith("events.jsonl")).length).toBeGreaterThanOrEqual(4);
    expect(written.some((f) => f.endsWith(".html"))).toBe(true);
    expect(written.some((f) => f.endsWith("umpire.db"))).toBe(true);
    for (const file of written) {
      const bytes = readFileSync(file).toString("latin1");
      for (const secret of forbidden) expect(bytes.includes(secret), `${secret} in ${file}`).toBe(false);
    }
  });
});
