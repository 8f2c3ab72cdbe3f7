/**
 * Where the scheduler asks for a trial slot. Trials queue in plan order; a trial starts when its
 * endpoint's controller (concurrency-controller.ts) has room and the run-wide cap (browser
 * capacity) is not reached. Each model endpoint (keyed by its base URL) has its own controller,
 * because agents in one run may use different servers with different limits. The gate turns
 * what the trials see (turns, 429/503s) and the machine's load into observations, and starts
 * waiting trials whenever a limit rises or a trial ends.
 */
import { ConcurrencyController, type ControllerReport, type ControllerSettings } from "./concurrency-controller.js";
import type { MachineSampler } from "./machine-load.js";
import type { ConcurrencyPolicy } from "../../vocabulary.js";

export interface GateOptions {
  /** Settings of the controller for an endpoint key. */
  settingsFor: (key: string) => ControllerSettings;
  /** Trials in flight across all endpoints, at most (e.g. browser capacity). */
  globalMax: number;
  /** Machine headroom; sampled every `sampleMs` while trials run. Absent: no CPU/memory signal. */
  sampler?: MachineSampler;
  sampleMs?: number;
  /** The clock (tests). */
  now?: () => number;
}

/**
 * The gate's cap and per-endpoint settings for a run's policy. Pinned: every endpoint at `trials`,
 * never moving. Adaptive: an endpoint starts where `startOf` puts it (given the policy's start) and
 * rises up to `max`, which also caps all endpoints together.
 */
export function policyGate(
  policy: ConcurrencyPolicy,
  startOf: (key: string, start: number) => number = (_key, start) => start,
): Pick<GateOptions, "globalMax" | "settingsFor"> {
  if (policy.mode === "pinned") {
    const trials = Math.max(1, policy.trials);
    return { globalMax: trials, settingsFor: () => ({ start: trials, max: trials, pinned: true }) };
  }
  return { globalMax: policy.max, settingsFor: (key) => ({ start: startOf(key, policy.start), max: policy.max }) };
}

/** What a model turn reported, as the loop sees it. */
export interface TurnTiming {
  timing: { modelMs: number; retries: number };
  failures?: { status?: number; kind: string; waitMs: number | null }[];
}

export interface EndpointReport extends ControllerReport {
  endpoint: string;
  /** Where a pinned value came from, as the summary says it (default "--concurrency"). */
  pinnedBy?: string;
}

interface Waiting {
  key: string;
  start: () => void;
}

export class ConcurrencyGate {
  private readonly controllers = new Map<string, ConcurrencyController>();
  private readonly inFlight = new Map<string, number>();
  private readonly queue: Waiting[] = [];
  private running = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly now: () => number;

  constructor(private readonly options: GateOptions) {
    this.now = options.now ?? (() => performance.now());
  }

  controller(key: string): ConcurrencyController {
    let c = this.controllers.get(key);
    if (!c) {
      c = new ConcurrencyController(this.options.settingsFor(key));
      this.controllers.set(key, c);
    }
    return c;
  }

  /** Runs `fn` once a slot for `key` is free. */
  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    this.controller(key);
    this.startSampling();
    return new Promise<T>((resolve, reject) => {
      this.queue.push({
        key,
        start: () => {
          fn()
            .then(resolve, reject)
            .finally(() => {
              this.running -= 1;
              this.inFlight.set(key, (this.inFlight.get(key) ?? 1) - 1);
              if (this.running === 0 && this.queue.length === 0) this.stopSampling();
              this.pump();
            });
        },
      });
      this.pump();
    });
  }

  /** Feeds one model turn of a trial on `key` to its controller. */
  observeTurn(key: string, turn: TurnTiming): void {
    const controller = this.controller(key);
    const now = this.now();
    for (const f of turn.failures ?? []) {
      if (f.status === 429 || f.status === 503)
        controller.observe({ kind: "throttled", status: f.status, retryAfterMs: f.waitMs, now });
    }
    // A turn that waited out retries says nothing about the server's own latency.
    const modelMs = turn.timing.retries === 0 ? turn.timing.modelMs : -1;
    controller.observe({ kind: "turn", modelMs, waiting: this.waiting(key), now });
    this.pump();
  }

  /** Feeds a machine sample to every controller (the machine is shared by all endpoints). */
  observeMachine(sample: { cpuBusy: number; memoryAvailable: number; cores: number }): void {
    const now = this.now();
    for (const c of this.controllers.values()) c.observe({ kind: "machine", ...sample, now });
    this.pump();
  }

  report(): EndpointReport[] {
    return [...this.controllers].map(([endpoint, c]) => ({ endpoint, ...c.report() }));
  }

  close(): void {
    this.stopSampling();
  }

  private waiting(key: string): number {
    return this.queue.filter((w) => w.key === key).length;
  }

  /** Starts, in plan order, every waiting trial whose endpoint has room. */
  private pump(): void {
    for (let i = 0; i < this.queue.length && this.running < this.options.globalMax; ) {
      const w = this.queue[i];
      if ((this.inFlight.get(w.key) ?? 0) < this.controller(w.key).limit()) {
        this.queue.splice(i, 1);
        this.running += 1;
        this.inFlight.set(w.key, (this.inFlight.get(w.key) ?? 0) + 1);
        w.start();
      } else i += 1;
    }
  }

  private startSampling(): void {
    const sampler = this.options.sampler;
    if (!sampler || this.timer) return;
    sampler(); // the first reading is the baseline of the next
    this.timer = setInterval(() => this.observeMachine(sampler()), this.options.sampleMs ?? 2_000);
    this.timer.unref();
  }

  private stopSampling(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}

/** Share of the run's machine samples with the CPU saturated above which the summary warns. */
export const SATURATION_WARNING_SHARE = 0.25;

/**
 * One line per endpoint for the run summary: what was used and why it stopped rising; then, when
 * the machine's CPU was saturated for a good part of the run, a warning. Every trial's wall-clock
 * limits (its timeout, the settle wait after an input) stretch on a saturated machine: at pinned
 * concurrency 16 on 2 cores half the reference model's gold trials failed by timeout or by a
 * save that had not answered in 2.5 s, none of it the agent's doing.
 */
export function describeConcurrency(reports: readonly EndpointReport[]): string[] {
  const lines = reports.map((r) =>
    r.mode === "pinned"
      ? `concurrency ${r.final} on ${r.endpoint} (pinned by ${r.pinnedBy ?? "--concurrency"})${r.throttled ? `; ${r.throttled} request(s) throttled (429/503)` : ""}`
      : `concurrency adaptive on ${r.endpoint}: started at ${r.start}, peak ${r.peak}, ended at ${r.final} (max ${r.max}; ${r.rises} rise(s), ${r.cuts} cut(s), ${r.throttled} throttled request(s)); stopped rising: ${r.stoppedRising}`,
  );
  // The machine is shared by every endpoint: its samples are the same in each report.
  const saturated = Math.max(0, ...reports.map((r) => r.cpuSaturatedShare));
  if (saturated >= SATURATION_WARNING_SHARE) {
    const pinned = reports.some((r) => r.mode === "pinned");
    lines.push(
      `warning: the machine's CPU was saturated for ${Math.round(saturated * 100)}% of the run; trials' timeouts and settle waits ran on a starved machine, ` +
        `so a timeout or an unanswered input may be the harness's, not the agent's. ` +
        (pinned
          ? "Run again with fewer trials at once (a lower --concurrency, or none: adaptive)."
          : "Run again on a quieter machine or with fewer trials at once (--concurrency)."),
    );
  }
  return lines;
}
