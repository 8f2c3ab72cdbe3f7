/**
 * Issue 24, `modelProxy`: a command agent (test/fixtures/model-proxy-agent/agent.mjs, a real Node program)
 * calls the reference model through the proxy umpire runs for its trial, over the real CLI, in the sandbox.
 * The stored usage is what the reference model returned (plain and streamed calls), measured by umpire and
 * priced; the agent's false claim is not stored; the real key is nowhere in its environment, the store, the
 * trial folder or umpire's output; a request without the trial's token and a direct call upstream go nowhere.
 */
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReferenceModel, type ReferenceModel } from "../../../src/sim/server.js";
import { REPO_ROOT, runCli } from "../../support/cli.js";
import { events, scratch, trialFolder } from "./support.js";
import { readFixtureTask } from "../../support/fixture-tasks.js";

const s = scratch("model-proxy");
const KEY = "sk-upstream-key-held-by-umpire-only";
const AGENT = join(REPO_ROOT, "test/fixtures/model-proxy-agent/agent.mjs");
let model: ReferenceModel;
beforeAll(async () => {
  // The upstream refuses any call without umpire's key: a call that succeeds went through the proxy.
  model = await startReferenceModel({ tasks: [], apiKey: KEY });
});
afterAll(async () => {
  await model?.close();
  s.cleanup();
});

function config(agent: Record<string, unknown>): string {
  const dir = join(s.dir, "config");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "umpire.config.yaml");
  writeFileSync(
    file,
    stringify({ agents: { proxied: { kind: "command", command: [process.execPath, AGENT], ...agent } } }),
  );
  return file;
}

/** Every file under `dir`, recursively. */
function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

describe("modelProxy: a command agent's model calls through umpire", () => {
  it("stores the usage the reference model returned, measured and priced; the key never reaches the agent", async () => {
    const file = config({
      env: { UPSTREAM: model.baseUrl },
      modelProxy: { baseUrl: model.baseUrl, apiKeyEnv: "UPSTREAM_KEY" },
    });
    const run = await runCli(
      [
        "run",
        "tasks/scorecard-note-bb042.yaml",
        "--config",
        file,
        "--agent",
        "proxied",
        "--price-in",
        "3",
        "--price-out",
        "15",
        "--run-id",
        "proxied",
        "--out",
        s.out,
        "--db",
        s.db,
        "--json",
      ],
      { killAfterMs: 240_000, env: { UPSTREAM_KEY: KEY } },
    );
    expect(run.code, run.stderr).toBe(1); // the agent does not do the task
    const [trial] = JSON.parse(run.stdout).trials as Record<string, any>[];
    const folder = trialFolder(s.out, "proxied", trial!.id ?? trial!.trialId);
    const log = events(folder);
    expect(log.find((e) => e.type === "AgentStartedEvent")!.data.sandbox).toBe("bwrap");
    const { seen, env } = JSON.parse(readFileSync(join(folder, "agent/stdout.log"), "utf8"));

    // Both calls through the proxy reached the upstream with umpire's key; the streamed one got a usage chunk it did not ask for.
    expect(seen.statuses).toMatchObject({ plain: 200, streamed: 200, models: 200, withoutToken: 403 });
    expect(seen.usages).toHaveLength(2);
    // Around the proxy: the upstream's port is not open in the sandbox's network (only the relay's and the proxy's are).
    expect(seen.statuses.direct).toBe("unreachable: ECONNREFUSED");
    expect(log.filter((e) => e.data.origin === "model_proxy" && e.data.kind === "error_event")).toHaveLength(1);

    // The stored usage is the sum of what the reference model returned, not the agent's claim (1 and 1).
    const input = seen.usages.reduce((n: number, u: any) => n + u.prompt_tokens, 0);
    const output = seen.usages.reduce((n: number, u: any) => n + u.completion_tokens, 0);
    expect(input).toBeGreaterThan(2);
    expect(trial!.usage).toMatchObject({ inputTokens: input, outputTokens: output });
    expect(trial!.costUsd).toBeCloseTo((input * 3 + output * 15) / 1e6, 12);
    expect(trial!.metrics.modelProxy).toMatchObject({ source: "measured", requests: 3, refused: 1 });
    expect(trial!.metrics.modelProxy.calls.map((c: any) => [c.route, c.stream, c.status])).toEqual([
      ["chat/completions", false, 200],
      ["chat/completions", true, 200],
      ["models", false, 200],
    ]);
    expect(trial!.metrics.modelProxy.calls[1].ttftMs).not.toBeNull();

    // The agent got the proxy's URL and a placeholder key; umpire's key is nowhere it or a reader could look.
    expect(env.OPENAI_BASE_URL).toBe(env.UMPIRE_MODEL_BASE_URL);
    expect(env.OPENAI_BASE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[\w-]+\/v1$/);
    expect(JSON.stringify(env)).not.toContain(KEY);
    expect(env.UPSTREAM_KEY).toBeUndefined();
    for (const path of [...files(s.out), s.db]) expect(readFileSync(path).includes(KEY), path).toBe(false);
    expect(run.stdout + run.stderr).not.toContain(KEY);
  });

  it("an agent that crashes because its model endpoint is dead ends model_error (the harness's), not failed", async () => {
    const file = config({ modelProxy: { baseUrl: "http://127.0.0.1:9/v1" } });
    const run = await runCli(
      [
        "run",
        "tasks/scorecard-note-bb042.yaml",
        "--config",
        file,
        "--agent",
        "proxied",
        "--retries",
        "0",
        "--run-id",
        "dead",
        "--out",
        s.out,
        "--db",
        s.db,
        "--json",
      ],
      { killAfterMs: 240_000 },
    );
    const [trial] = JSON.parse(run.stdout).trials as Record<string, any>[];
    expect(trial!.stopReason, run.stderr).toBe("model_error");
    expect(trial!.verdict).toBe("error");
    expect(JSON.stringify(trial)).toContain("the upstream model endpoint could not be reached");
    expect(JSON.stringify(trial)).toContain("exited with code 1");
  });

  it("stops the trial token_budget once the measured calls reach the task's token limit, and forwards no call past it", async () => {
    const file = config({
      env: { SPEND_BUDGET: "1" },
      modelProxy: { baseUrl: model.baseUrl, apiKeyEnv: "UPSTREAM_KEY" },
    });
    const task = parse(readFixtureTask(join(REPO_ROOT, "tasks/scorecard-note-bb042.yaml")));
    delete task.$schema;
    task.limits = { ...task.limits, tokens: 5_000 };
    const tasks = join(s.dir, "budget-tasks");
    mkdirSync(tasks, { recursive: true });
    writeFileSync(join(tasks, `${task.id}.yaml`), stringify(task));
    const run = await runCli(
      [
        "run",
        tasks,
        "--config",
        file,
        "--agent",
        "proxied",
        "--run-id",
        "budget",
        "--out",
        s.out,
        "--db",
        s.db,
        "--json",
      ],
      {
        killAfterMs: 240_000,
        env: { UPSTREAM_KEY: KEY },
      },
    );
    const [trial] = JSON.parse(run.stdout).trials as Record<string, any>[];
    expect(trial!.stopReason, run.stderr).toBe("token_budget");
    const calls = trial!.metrics.modelProxy.calls as { usage: { inputTokens: number; outputTokens: number } }[];
    const sums = calls.map((_, i) =>
      calls.slice(0, i + 1).reduce((n, c) => n + c.usage.inputTokens + c.usage.outputTokens, 0),
    );
    expect(calls.length).toBeGreaterThan(1);
    expect(sums.at(-1)).toBeGreaterThanOrEqual(5_000);
    // Every forwarded call began under the limit: none was forwarded once it was reached.
    expect(sums.at(-2)).toBeLessThan(5_000);
    expect(trial!.usage.inputTokens + trial!.usage.outputTokens).toBe(sums.at(-1));
  });

  it("refuses a config that passes the proxy's key to the agent or lets it reach the upstream directly", async () => {
    const passes = await runCli([
      "run",
      "tasks/scorecard-note-bb042.yaml",
      "--config",
      config({ passEnv: ["UPSTREAM_KEY"], modelProxy: { baseUrl: model.baseUrl, apiKeyEnv: "UPSTREAM_KEY" } }),
      "--agent",
      "proxied",
      "--out",
      s.out,
      "--db",
      s.db,
    ]);
    expect(passes.code).toBe(2);
    expect(passes.stderr).toMatch(/passEnv.*UPSTREAM_KEY is modelProxy's key/s);
    const reaches = await runCli([
      "run",
      "tasks/scorecard-note-bb042.yaml",
      "--config",
      config({ network: [new URL(model.baseUrl).origin], modelProxy: { baseUrl: model.baseUrl } }),
      "--agent",
      "proxied",
      "--out",
      s.out,
      "--db",
      s.db,
    ]);
    expect(reaches.code).toBe(2);
    expect(reaches.stderr).toMatch(/network.*modelProxy's upstream/s);
    const unset = await runCli([
      "run",
      "tasks/scorecard-note-bb042.yaml",
      "--config",
      config({ modelProxy: { baseUrl: model.baseUrl, apiKeyEnv: "NOT_SET_ANYWHERE" } }),
      "--agent",
      "proxied",
      "--out",
      s.out,
      "--db",
      s.db,
    ]);
    expect(unset.code).toBe(2);
    expect(unset.stderr).toContain("agents.proxied.modelProxy.apiKeyEnv: NOT_SET_ANYWHERE is not set");
  });
});
