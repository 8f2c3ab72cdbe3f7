/**
 * Item 6 of issue 13, through the real CLI against a real hostile OpenAI-compatible server on
 * 127.0.0.1: the key sits in --base-url (user info and query string) and in the key variable, and
 * the server's error body echoes all of them. None may reach stderr, stdout, the stop detail, the
 * run's stored options, events.jsonl, any byte of the database, or the HTML report; the query
 * string keeps working (sent on the request after the path, not with the path appended to it).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../../src/store/open.js";
import { runCli } from "../../support/cli-child.js";
import { startRecordingModel, type RecordingModel } from "../../support/recording-model.js";

const ENV_KEY = "sk-envsecret-7f3a9c";
const URL_PASSWORD = "pw-urlsecret-41d2";
const QUERY_KEY = "q-querysecret-88e1";
const SECRETS = [ENV_KEY, URL_PASSWORD, QUERY_KEY];

let dir: string;
let model: RecordingModel;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "umpire-secrets-"));
  model = await startRecordingModel();
});
afterAll(async () => {
  await model.close();
  rmSync(dir, { recursive: true, force: true });
});

function filesUnder(root: string): string[] {
  return readdirSync(root).flatMap((name) => {
    const path = join(root, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe("secrets in --base-url, the key variable and an echoing error body", () => {
  it("never reach the terminal, the store, the trial log or the report; the query string still works", async () => {
    // A 400 that echoes every credential it was sent (some servers do exactly this).
    const echo = {
      kind: "json" as const,
      status: 400,
      body: { error: { message: `invalid request for key ${ENV_KEY}, password ${URL_PASSWORD}, query ${QUERY_KEY}` } },
    };
    for (let i = 0; i < 6; i++) model.enqueue(echo);
    const port = new URL(model.baseUrl).port;
    const baseUrl = `http://agent:${URL_PASSWORD}@127.0.0.1:${port}/v1?api-key=${QUERY_KEY}&api-version=2024`;
    const db = join(dir, "umpire.db");
    const out = join(dir, "runs");
    const result = await runCli(
      [
        "run",
        "answer-only-bb042",
        "--model",
        "hostile-model",
        "--mode",
        "structured",
        "--base-url",
        baseUrl,
        "--api-key-env",
        "MY_KEY",
        "--db",
        db,
        "--out",
        out,
        "--run-id",
        "secret-run",
        "--report",
      ],
      { env: { MY_KEY: ENV_KEY } },
    );

    // The query string went on the request, after the path; the key went as a Bearer header.
    expect(model.requests.length).toBeGreaterThan(0);
    // The preflight's model-list request comes first; the first chat request carries the query too.
    const first = model.requests.find((r) => r.path === "/v1/chat/completions")!;
    expect(first).toBeDefined();
    expect(first.headers.authorization).toBe(`Bearer ${ENV_KEY}`);
    const sentUrl = new URL(first.url, "http://x");
    expect(sentUrl.searchParams.get("api-key")).toBe(QUERY_KEY);
    expect(sentUrl.searchParams.get("api-version")).toBe("2024");

    // The trial ran and its model error was recorded (so the echo had every chance to leak).
    expect(result.stderr + result.stdout).toContain("[redacted]");
    for (const secret of SECRETS) {
      expect(result.stderr).not.toContain(secret);
      expect(result.stdout).not.toContain(secret);
    }
    const store = openStore(db, { readonly: true });
    try {
      const run = store.getRun("secret-run");
      expect(JSON.stringify(run.options)).not.toContain(URL_PASSWORD);
      expect(JSON.stringify(run.options)).not.toContain(QUERY_KEY);
      const [trial] = store.trials("secret-run");
      expect(trial!.stopReason).toBe("model_error");
      expect(trial!.stopDetail).toContain("[redacted]");
    } finally {
      store.close();
    }
    // Every byte written: the database (and its WAL), events.jsonl, checks.json, the report.
    const written = [...filesUnder(dir)].filter((f) => !f.endsWith(".png"));
    expect(written.some((f) => f.endsWith("events.jsonl"))).toBe(true);
    expect(written.some((f) => f.endsWith(".html"))).toBe(true);
    for (const file of written) {
      const bytes = readFileSync(file).toString("latin1");
      for (const secret of SECRETS) expect(bytes.includes(secret), `${secret} in ${file}`).toBe(false);
    }
  });
});
