/**
 * What the scale-out tests share: browsers in other processes (a Playwright browser server, a
 * Chromium with a CDP port, a TCP server that never answers), a provider wrapper that records
 * where each lease went, a run through `executeTrials` with any provider, and a CLI capture.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { resolveAgentConfigs, type AgentConfig } from "../../../src/agent/config.js";
import { CHROMIUM_FLAGS, requireChromium } from "../../../src/browser/chromium.js";
import { executeTrials, type Runtime } from "../../../src/runtime/suite-runtime.js";
import { createPriceBook } from "../../../src/pricing.js";
import type { BrowserLease, BrowserProvider } from "../../../src/runner/schedule/browser-pool.js";
import { planTrials, type PlannedTrial } from "../../../src/runner/schedule/trial-plan.js";
import type { RunHooks } from "../../../src/runner/schedule/run-hooks.js";
import type { SuiteResult } from "../../../src/runner/schedule/run-suite.js";
import type { Store } from "../../../src/store/store.js";
import type { Task } from "../../../src/task/schema.js";

export const ROOT = resolve(import.meta.dirname, "../../..");

export interface BrowserProcess {
  /** The URL to pass as --browser-endpoint. */
  endpoint: string;
  /** Kills the whole process group at once (node and Chromium): a machine going away. */
  kill(): void;
  stop(): Promise<void>;
}

/**
 * Collects a child's output until `pattern` matches; rejects if it exits first or hangs. The guard is for
 * a hang, sized for a node and a Chromium starting on a machine at load 20-30 (it was 30 s), and stays
 * under the hooks' 120 s so a hang is reported with what the child said.
 */
function waitForOutput(
  child: ChildProcess,
  stream: "stdout" | "stderr",
  pattern: RegExp,
  timeoutMs = 100_000,
): Promise<RegExpMatchArray> {
  return new Promise((resolvePromise, reject) => {
    let text = "";
    const timer = setTimeout(
      () => reject(new Error(`no ${pattern} from the child within ${timeoutMs} ms; it said: ${text}`)),
      timeoutMs,
    );
    child[stream]!.on("data", (chunk: Buffer) => {
      text += String(chunk);
      const match = pattern.exec(text);
      if (match) {
        clearTimeout(timer);
        resolvePromise(match);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the child exited (${code}) before printing ${pattern}: ${text}`));
    });
  });
}

function processGroup(child: ChildProcess, cleanup: () => void = () => {}): Pick<BrowserProcess, "kill" | "stop"> {
  let exited = false;
  const done = new Promise<void>((r) => child.once("exit", () => ((exited = true), r())));
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, sig);
    } catch {
      /* already gone */
    }
  };
  return {
    kill: () => signal("SIGKILL"),
    async stop() {
      if (!exited) signal("SIGKILL");
      await done;
      cleanup();
    },
  };
}

/** `chromium.launchServer` in another node process (test/integration/scale/browser-server.mjs). */
export async function startBrowserServer(): Promise<BrowserProcess> {
  const child = spawn(
    process.execPath,
    [join(import.meta.dirname, "browser-server.mjs"), requireChromium().path, ...CHROMIUM_FLAGS],
    {
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const [, json] = await waitForOutput(child, "stdout", /^(\{.*\})\n/m);
  return { endpoint: JSON.parse(json).wsEndpoint as string, ...processGroup(child) };
}

/** Chromium with `--remote-debugging-port=0`; the endpoint is the DevTools URL it prints on stderr. */
export async function startCdpBrowser(): Promise<BrowserProcess> {
  const profile = mkdtempSync(join(tmpdir(), "umpire-cdp-"));
  const child = spawn(
    requireChromium().path,
    [...CHROMIUM_FLAGS, "--headless", "--remote-debugging-port=0", `--user-data-dir=${profile}`, "about:blank"],
    {
      detached: true,
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  const [url] = await waitForOutput(child, "stderr", /ws:\/\/\S+\/devtools\/browser\/\S+/);
  return { endpoint: url, ...processGroup(child, () => rmSync(profile, { recursive: true, force: true })) };
}

/** A TCP server that accepts connections and never says a word. */
export async function startSilentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

/** Forwards to `inner`, recording the endpoint of every lease in order. */
export function recordingProvider(inner: BrowserProvider): BrowserProvider & { leases: string[] } {
  const leases: string[] = [];
  return {
    leases,
    start: inner.start ? () => inner.start!() : undefined,
    async acquire(signal) {
      const lease: BrowserLease = await inner.acquire(signal);
      leases.push(lease.endpoint);
      return lease;
    },
    close: () => inner.close(),
  };
}

export function agentsFor(mode: "structured" | "tools" | "both"): AgentConfig[] {
  return resolveAgentConfigs({ model: "reference", mode });
}

/** Plans and stores a run, then executes it through `executeTrials` (what `umpire run` does). */
export async function runThrough(options: {
  runtime: Runtime;
  store: Store;
  dir: string;
  runId: string;
  tasks: Task[];
  agents: AgentConfig[];
  concurrency?: number;
  reporters?: RunHooks[];
}): Promise<{ result: SuiteResult; trials: PlannedTrial[] }> {
  const { runtime, store, runId, agents } = options;
  const trials = planTrials(runId, options.tasks, agents, 1);
  store.createRun({ id: runId, umpireVersion: "test", folder: join(options.dir, runId) });
  store.addTrials(
    runId,
    trials.map((t) => ({
      id: t.id,
      seq: t.seq,
      taskId: t.task.id,
      taskFile: t.task.file,
      agentLabel: t.agent.label,
      model: t.agent.model,
      mode: t.agent.mode,
      repeat: t.repeat,
    })),
  );
  const result = await executeTrials({
    runtime,
    store,
    runId,
    runDir: join(options.dir, runId),
    trials,
    env: {},
    prices: createPriceBook(),
    concurrency: { mode: "pinned", trials: options.concurrency ?? 2 },
    modelConcurrency: 2,
    repetition: { window: 3, recoveryLimit: 1 },
    reporters: options.reporters ?? [],
    signal: new AbortController().signal,
  });
  return { result, trials };
}

/** A CommandIO whose output is kept as text (shared with every in-process CLI test). */
export { capture } from "../../support/cli-in-process.js";
