/**
 * Remote browsers end to end: a Playwright browser server and a CDP Chromium, each in another
 * process on loopback, run real trials against the fixture site and the reference model; killing
 * the server mid-run turns its trials into environment errors that are retried locally with
 * nothing lost; an endpoint that never answers stops the run before it starts.
 */
import { readFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../../src/cli/main.js";
import { startRuntime, type Runtime } from "../../../src/runtime/suite-runtime.js";
import { isUmpireError } from "../../../src/errors.js";
import { parseBrowserEndpoint } from "../../../src/runner/schedule/browser-endpoint.js";
import { createRemoteBrowserProvider } from "../../../src/runner/schedule/browser-pool.js";
import { trialFolderName } from "../../../src/runner/schedule/trial-plan.js";
import { openStore } from "../../../src/store/open.js";
import type { Store } from "../../../src/store/store.js";
import { loadTasksOrThrow } from "../../../src/task/loader.js";
import type { Task } from "../../../src/task/schema.js";
import {
  agentsFor,
  capture,
  recordingProvider,
  ROOT,
  runThrough,
  startBrowserServer,
  startCdpBrowser,
  startSilentServer,
  type BrowserProcess,
} from "./support.js";

let dir: string;
let tasks: Task[];
const pick = (...ids: string[]) => tasks.filter((t) => ids.includes(t.id));
const cleanups: (() => Promise<void>)[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "umpire-remote-"));
  tasks = loadTasksOrThrow([], { cwd: ROOT });
});
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

async function withStore(name: string): Promise<Store> {
  const store = openStore(join(dir, `${name}.db`));
  cleanups.push(async () => store.close());
  return store;
}

describe("a Playwright browser server in another process", () => {
  let server: BrowserProcess;
  beforeAll(async () => {
    server = await startBrowserServer();
    cleanups.push(() => server.stop());
  });

  it("runs trials in its browser, and they pass", async () => {
    const provider = recordingProvider(createRemoteBrowserProvider({ endpoints: [`${server.endpoint}?capacity=2`] }));
    const runtime = await startRuntime({ tasks, agents: agentsFor("both"), browsers: provider });
    try {
      const store = await withStore("through-server");
      const { result } = await runThrough({
        runtime,
        store,
        dir,
        runId: "remote-pass",
        tasks: pick("answer-only-bb042"),
        agents: agentsFor("both"),
      });
      expect(result.ends.map((e) => e.verdict)).toEqual(["passed", "passed"]);
      expect(store.trials("remote-pass").every((t) => t.status === "done" && t.attempt === 1 && !t.retried)).toBe(true);
      // Every lease came from the server, under its label (never "local", never the token-like path).
      expect(provider.leases).toHaveLength(2);
      expect(new Set(provider.leases)).toEqual(new Set([parseBrowserEndpoint(server.endpoint).label]));
      expect(provider.leases[0]).not.toContain(new URL(server.endpoint).pathname.slice(1));
    } finally {
      await runtime.close();
    }
  });
});

describe("killing the browser server mid-run", () => {
  let runtime: Runtime;
  let store: Store;
  let provider: ReturnType<typeof recordingProvider>;
  let notices: string[];
  let killedWhile: Set<string>;
  let label: string;

  beforeAll(async () => {
    const server = await startBrowserServer();
    cleanups.push(() => server.stop());
    label = parseBrowserEndpoint(server.endpoint).label;
    notices = [];
    provider = recordingProvider(
      createRemoteBrowserProvider({ endpoints: [`${server.endpoint}?capacity=2`], onNotice: (m) => notices.push(m) }),
    );
    runtime = await startRuntime({ tasks, agents: agentsFor("both"), browsers: provider });
    cleanups.push(() => runtime.close());
    store = await withStore("killed");
    // Two long trials (9 turns) start on the server; the server dies once two running trials have taken a turn.
    const stepped = new Set<string>();
    killedWhile = new Set();
    await runThrough({
      runtime,
      store,
      dir,
      runId: "killed",
      tasks: pick("scorecard-note-bb042", "trap-date-bb042"),
      agents: agentsFor("both"),
      reporters: [
        {
          onStep(trial) {
            stepped.add(trial.id);
            if (stepped.size === 2 && killedWhile.size === 0) {
              for (const id of stepped) killedWhile.add(id);
              server.kill();
            }
          },
          onTrialEnd(end) {
            stepped.delete(end.trial.id); // only trials still running when it dies count
          },
        },
      ],
    });
    // A whole run of four 9-turn trials and their retries: the hook's guard is for a hang, not for a busy machine.
  }, 900_000);

  it("loses nothing: every trial ends done and passed", () => {
    const trials = store.trials("killed");
    expect(trials).toHaveLength(4);
    expect(trials.map((t) => [t.status, t.verdict])).toEqual(Array(4).fill(["done", "passed"]));
    expect(killedWhile.size).toBe(2);
  });

  it("ends the running trials as environment_error, keeps that attempt's rows, and flags the retry", () => {
    for (const t of store.trials("killed")) {
      if (!killedWhile.has(t.id)) {
        expect({ id: t.id, retried: t.retried, attempt: t.attempt }).toEqual({ id: t.id, retried: false, attempt: 1 });
        continue;
      }
      expect(t.retried).toBe(true);
      expect(t.attempt).toBe(2);
      // The first attempt's turns stay stored under attempt 1, beside the retry's.
      const first = store.turns(t.id, { attempt: 1 });
      expect(first.length).toBeGreaterThanOrEqual(1);
      expect(store.turns(t.id, { attempt: 2 })).toHaveLength(t.turns);
      // And its trial log says how it ended.
      const planned = {
        seq: t.seq,
        task: { id: t.taskId },
        agent: { label: t.agentLabel },
        repeat: t.repeat,
      } as Parameters<typeof trialFolderName>[0];
      const log = readFileSync(join(dir, "killed", trialFolderName(planned, 1), "events.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(log.at(-1)).toMatchObject({
        type: "AgentCompletionEvent",
        data: { reason: "stopped", stop_reason: "environment_error", verdict: "error" },
      });
    }
  });

  it("runs the retries and the rest locally once the only endpoint is gone", () => {
    // Two first attempts on the server; the two retries and the two later trials locally.
    expect(provider.leases).toEqual([label, label, "local", "local", "local", "local"]);
    expect(notices.some((n) => n.includes(label) && /disconnected/.test(n))).toBe(true);
    expect(notices.some((n) => /run on a local Chromium/.test(n))).toBe(true);
  });
});

describe("a CDP endpoint (Chromium with --remote-debugging-port)", () => {
  it("runs a trial that passes, and leaves the browser running", async () => {
    const cdp = await startCdpBrowser();
    cleanups.push(() => cdp.stop());
    expect(parseBrowserEndpoint(cdp.endpoint).protocol).toBe("cdp");
    const remote = createRemoteBrowserProvider({ endpoints: [cdp.endpoint] });
    const provider = recordingProvider(remote);
    const runtime = await startRuntime({ tasks, agents: agentsFor("structured"), browsers: provider });
    try {
      const store = await withStore("cdp");
      const { result } = await runThrough({
        runtime,
        store,
        dir,
        runId: "cdp",
        tasks: pick("answer-only-bb042"),
        agents: agentsFor("structured"),
      });
      expect(result.ends.map((e) => [e.verdict, e.stopReason])).toEqual([["passed", "answered"]]);
      expect(provider.leases).toEqual([parseBrowserEndpoint(cdp.endpoint).label]);
    } finally {
      await runtime.close();
    }
    // Closing umpire's connection must not close somebody else's browser: a new connection works.
    const again = createRemoteBrowserProvider({ endpoints: [cdp.endpoint] });
    await again.start();
    expect(again.status()[0].state).toBe("up");
    await again.close();
  });
});

describe("an endpoint that never answers", () => {
  it("fails the provider's start with a browser error naming the URL, without its token", async () => {
    const silent = await startSilentServer();
    cleanups.push(() => silent.close());
    const provider = createRemoteBrowserProvider({
      endpoints: [`ws://127.0.0.1:${silent.port}/pw?token=s3cret`],
      connectTimeoutMs: 1_500,
    });
    const error = await provider.start().then(
      () => null,
      (e: unknown) => e,
    );
    expect(isUmpireError(error) && error.code).toBe("browser");
    expect((error as Error).message).toContain(`ws://127.0.0.1:${silent.port}/pw did not answer`);
    expect((error as Error).message).not.toContain("s3cret");
  });

  it("stops `umpire run` before any trial, exit 2, with the message and no run stored", async () => {
    const silent = await startSilentServer();
    cleanups.push(() => silent.close());
    const db = join(dir, "never.db");
    const { io, text } = capture();
    const code = await main(
      [
        "run",
        "answer-only-bb042",
        "--mode",
        "structured",
        "--db",
        db,
        "--out",
        join(dir, "never"),
        "--browser-endpoint",
        `http://127.0.0.1:${silent.port}`,
      ],
      io,
    );
    expect(code).toBe(2);
    expect(text.err).toContain(`browser endpoint http://127.0.0.1:${silent.port} did not answer`);
    const store = openStore(db, { readonly: true });
    try {
      expect(store.listRuns()).toEqual([]);
    } finally {
      store.close();
    }
  });
});

describe("--fixtures-host", () => {
  it("serves the site on that host while the control API stays on 127.0.0.1 only", async () => {
    const runtime = await startRuntime({ tasks, agents: agentsFor("structured"), fixturesHost: "127.0.0.2" });
    try {
      const site = new URL(runtime.siteUrl);
      expect(site.hostname).toBe("127.0.0.2");
      expect((await fetch(`${runtime.siteUrl}/api/matches/BB-042`)).status).toBe(200);
      const control = new URL(runtime.fixtures.controlUrl);
      expect(control.hostname).toBe("127.0.0.1");
      const refused = await fetch(`http://127.0.0.2:${control.port}/sessions`).then(
        () => "answered",
        () => "refused",
      );
      expect(refused).toBe("refused");
    } finally {
      await runtime.close();
    }
  });
});
