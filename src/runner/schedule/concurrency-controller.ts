/**
 * Adaptive concurrency for one model endpoint: pure decisions, no timers and no I/O. The
 * scheduler feeds it observations (a turn answered, a 429/503 with its retry-after, the
 * machine's CPU and memory headroom) and asks how many trials may be in flight.
 *
 * The policy is AIMD, as TCP's congestion control: rise by one after a full round of answered
 * turns at the current level while nothing pushes back and trials are waiting; cut by half on
 * a 429/503 (no rise again before the server's retry-after has passed), by a quarter when the
 * CPU is saturated or memory runs low, and stop rising (hold) when the CPU nears its limit or
 * the endpoint's latency grows well past its baseline (a server queueing requests). A pinned
 * controller (`--concurrency N`) never moves, but still counts what it saw.
 *
 * The CPU signal is smoothed: one 2-second sample is dominated by bursts (a trial's set-up, a
 * page load), and cutting on those kept the bench's adaptive run oscillating between 2 and 5 in
 * flight while concurrency 8 was measured faster on the same machine (README, Performance).
 * A machine is worth driving close to full: throughput still rose from 66% to 88% busy.
 *
 * But not past it: a starved machine stretches every wall-clock wait a trial has (starvation.ts).
 * So once the machine is sampled, a rise waits until RISE_AFTER_SAMPLES samples were taken at the
 * current level (the trend has seen what the last change did; an instant model answers a round of
 * turns far faster than that), and two raw samples in a row at the cut threshold cut the limit
 * without waiting for the trend to catch up (on a fresh 2-core machine the trend lagged a climb
 * that left the CPU saturated for 37% of the run).
 */

export type PressureKind = "rate_limited" | "overloaded" | "cpu" | "memory" | "latency";

export interface ControllerSettings {
  /** Where the limit starts. */
  start: number;
  /** Never above (browser capacity, a hard cap). */
  max: number;
  /** Never below; default 1. */
  min?: number;
  /** `--concurrency N`: the limit is `start` and never moves. */
  pinned?: boolean;
  /** Smoothed busy fraction of all cores at which rises stop (default 0.9) and the limit is cut (default 0.97). */
  cpuHold?: number;
  cpuCut?: number;
  /** Available fraction of memory below which rises stop (default 0.15) and the limit is cut (default 0.07). */
  memoryHold?: number;
  memoryCut?: number;
  /** Smoothed model latency over its baseline at which rises stop (default 1.5) and the limit is cut (default 2.5). */
  latencyHold?: number;
  latencyCut?: number;
  /** Latency growth below this many ms is noise, whatever the ratio (default 250). */
  latencyFloorMs?: number;
  /** No rise for this long after a cut when the server named no wait (default 5000 ms). */
  cooldownMs?: number;
}

export type Observation =
  /** A model turn answered without retries; `waiting` = trials of this endpoint queued for a slot. */
  | { kind: "turn"; modelMs: number; waiting: number; now: number }
  /** A 429 or 503 from the endpoint, with the wait it asked for (null when it named none). */
  | { kind: "throttled"; status: number; retryAfterMs: number | null; now: number }
  /** The machine: busy fraction of all cores over the last sample, available fraction of memory. */
  | { kind: "machine"; cpuBusy: number; memoryAvailable: number; cores: number; now: number };

export interface Decision {
  action: "rise" | "cut" | "hold";
  from: number;
  to: number;
  pressure: PressureKind | null;
  reason: string;
  now: number;
}

export interface ControllerReport {
  mode: "adaptive" | "pinned";
  start: number;
  peak: number;
  final: number;
  max: number;
  rises: number;
  cuts: number;
  throttled: number;
  /** Why the limit stopped rising (or, pinned, why it did not move). */
  stoppedRising: string;
  /**
   * Machine samples seen while trials ran, and the share of them with the smoothed CPU at or above
   * the cut threshold: a saturated machine stretches every wall-clock limit a trial has (its
   * timeout, the settle wait), so the run summary warns when the share is large.
   */
  machineSamples: number;
  cpuSaturatedShare: number;
  /** Every rise and cut, and the first hold of each kind in a row; kept short. */
  decisions: Decision[];
}

const DECISIONS_KEPT = 200;
const EWMA_ALPHA = 0.2;
/** Weight of the newest CPU sample: about three samples (6 s at the gate's 2 s) make a trend. */
const CPU_EWMA_ALPHA = 0.4;
/** Turns before the latency baseline is trusted. */
const BASELINE_TURNS = 5;
/** Machine samples at the current level before it may rise again (once the machine is sampled at all). */
export const RISE_AFTER_SAMPLES = 2;

export class ConcurrencyController {
  private value: number;
  private peak: number;
  private readonly min: number;
  private readonly s: Required<Omit<ControllerSettings, "pinned" | "min">> & { pinned: boolean };
  private answered = 0;
  private noRiseBefore = -Infinity;
  private lastCutAt = -Infinity;
  private cpu: { busy: number; cores: number } | null = null;
  private machineSamples = 0;
  private saturatedSamples = 0;
  /** Machine samples since the limit last changed, and raw saturated samples in a row. */
  private samplesAtLevel = 0;
  private rawSaturatedRun = 0;
  private memory: number | null = null;
  private ewma: number | null = null;
  private baseline: number | null = null;
  private samples = 0;
  private lastHold: string | null = null;
  private stopped: { reason: string; at: number } | null = null;
  private counts = { rises: 0, cuts: 0, throttled: 0 };
  readonly decisions: Decision[] = [];

  constructor(settings: ControllerSettings) {
    this.min = Math.max(1, settings.min ?? 1);
    const max = Math.max(this.min, settings.max);
    this.s = {
      start: settings.start,
      max,
      pinned: settings.pinned ?? false,
      cpuHold: settings.cpuHold ?? 0.9,
      cpuCut: settings.cpuCut ?? 0.97,
      memoryHold: settings.memoryHold ?? 0.15,
      memoryCut: settings.memoryCut ?? 0.07,
      latencyHold: settings.latencyHold ?? 1.5,
      latencyCut: settings.latencyCut ?? 2.5,
      latencyFloorMs: settings.latencyFloorMs ?? 250,
      cooldownMs: settings.cooldownMs ?? 5_000,
    };
    this.value = clamp(Math.round(settings.start), this.min, max);
    this.peak = this.value;
  }

  /** Trials allowed in flight now. */
  limit(): number {
    return this.value;
  }

  /** Takes one observation; returns the decision it led to, or null when nothing changed. */
  observe(o: Observation): Decision | null {
    if (o.kind === "throttled") {
      this.counts.throttled += 1;
      if (this.s.pinned) return null;
      const wait = o.retryAfterMs ?? this.s.cooldownMs;
      this.noRiseBefore = Math.max(this.noRiseBefore, o.now + wait);
      const what = o.status === 429 ? "rate limited" : "overloaded";
      const reason = `the endpoint answered ${o.status} (${what}${o.retryAfterMs !== null ? `, retry-after ${formatMs(o.retryAfterMs)}` : ""}) at ${this.value} in flight`;
      // One cut per burst: every trial in flight may meet the same limit within one retry-after.
      if (o.now < this.lastCutAt + Math.max(wait, 1_000)) return null;
      return this.cut(0.5, o.status === 429 ? "rate_limited" : "overloaded", reason, o.now);
    }
    if (o.kind === "machine") {
      const busy = this.cpu === null ? o.cpuBusy : this.cpu.busy + CPU_EWMA_ALPHA * (o.cpuBusy - this.cpu.busy);
      this.cpu = { busy, cores: o.cores };
      this.memory = o.memoryAvailable;
      this.machineSamples += 1;
      this.samplesAtLevel += 1;
      this.rawSaturatedRun = o.cpuBusy >= this.s.cpuCut ? this.rawSaturatedRun + 1 : 0;
      if (busy >= this.s.cpuCut) this.saturatedSamples += 1;
      if (this.s.pinned) return null;
      const cpu = `CPU ${Math.round(busy * 100)}% busy on ${o.cores} core${o.cores === 1 ? "" : "s"}`;
      const mem = `${Math.round(o.memoryAvailable * 100)}% of memory available`;
      const calm = o.now >= this.lastCutAt + this.s.cooldownMs;
      if (busy >= this.s.cpuCut && calm)
        return this.cut(0.75, "cpu", `${cpu} at ${this.value} in flight (saturated)`, o.now);
      if (this.rawSaturatedRun >= 2 && calm) {
        const raw = `CPU ${Math.round(o.cpuBusy * 100)}% busy on ${o.cores} core${o.cores === 1 ? "" : "s"}`;
        return this.cut(
          0.75,
          "cpu",
          `${raw} in ${this.rawSaturatedRun} samples in a row at ${this.value} in flight (saturated)`,
          o.now,
        );
      }
      if (o.memoryAvailable <= this.s.memoryCut && calm)
        return this.cut(0.75, "memory", `${mem} at ${this.value} in flight`, o.now);
      return null;
    }
    // A turn answered.
    const latencyCut = this.track(o.modelMs, o.now);
    if (this.s.pinned) return null;
    if (latencyCut) return latencyCut;
    this.answered += 1;
    const hold = this.holdReason(o.now);
    if (hold) {
      if (o.waiting > 0) return this.hold(hold.kind, hold.reason, o.now);
      return null;
    }
    // A full round of answered turns at this level, trials waiting for a slot, and (when the machine is
    // sampled) the machine read at this level: one more.
    const machineRead = this.machineSamples === 0 || this.samplesAtLevel >= RISE_AFTER_SAMPLES;
    if (this.answered >= this.value && o.waiting > 0 && this.value < this.s.max && machineRead) {
      this.lastHold = null;
      return this.rise(o.now);
    }
    if (this.value >= this.s.max && o.waiting > 0) return this.noteStop(`reached the maximum of ${this.s.max}`, o.now);
    return null;
  }

  report(): ControllerReport {
    const stoppedRising = this.s.pinned
      ? `pinned at ${this.value} (--concurrency)`
      : this.stopped
        ? `${this.stopped.reason}`
        : this.counts.rises === 0
          ? `nothing pushed back, and it never needed to rise: no trial waited through a full round of ${this.value} answered turns`
          : `nothing pushed back; it rose while trials were waiting (peak ${this.peak})`;
    return {
      mode: this.s.pinned ? "pinned" : "adaptive",
      start: clamp(Math.round(this.s.start), this.min, this.s.max),
      peak: this.peak,
      final: this.value,
      max: this.s.max,
      rises: this.counts.rises,
      cuts: this.counts.cuts,
      throttled: this.counts.throttled,
      stoppedRising,
      machineSamples: this.machineSamples,
      cpuSaturatedShare: this.machineSamples > 0 ? this.saturatedSamples / this.machineSamples : 0,
      decisions: this.decisions,
    };
  }

  private holdReason(now: number): { kind: PressureKind; reason: string } | null {
    if (now < this.noRiseBefore)
      return {
        kind: "rate_limited",
        reason: `waiting out the endpoint's retry-after (${formatMs(this.noRiseBefore - now)} left)`,
      };
    if (this.cpu && this.cpu.busy >= this.s.cpuHold) {
      return {
        kind: "cpu",
        reason: `CPU ${Math.round(this.cpu.busy * 100)}% busy on ${this.cpu.cores} core${this.cpu.cores === 1 ? "" : "s"} at ${this.value} in flight`,
      };
    }
    if (this.memory !== null && this.memory <= this.s.memoryHold)
      return {
        kind: "memory",
        reason: `${Math.round(this.memory * 100)}% of memory available at ${this.value} in flight`,
      };
    if (
      this.ewma !== null &&
      this.baseline !== null &&
      this.ewma - this.baseline > this.s.latencyFloorMs &&
      this.ewma >= this.baseline * this.s.latencyHold
    ) {
      return {
        kind: "latency",
        reason: `model latency grew from ${formatMs(this.baseline)} to ${formatMs(this.ewma)} at ${this.value} in flight`,
      };
    }
    return null;
  }

  /** Smooths the latency, keeps its baseline, and cuts when it grew far past it (a server queueing). */
  private track(modelMs: number, now: number): Decision | null {
    if (!(modelMs >= 0)) return null;
    this.ewma = this.ewma === null ? modelMs : this.ewma + EWMA_ALPHA * (modelMs - this.ewma);
    this.samples += 1;
    if (this.samples >= BASELINE_TURNS)
      this.baseline = this.baseline === null ? this.ewma : Math.min(this.baseline, this.ewma);
    if (this.s.pinned || this.baseline === null) return null;
    const grown = this.ewma - this.baseline > this.s.latencyFloorMs && this.ewma >= this.baseline * this.s.latencyCut;
    if (!grown || now < this.lastCutAt + this.s.cooldownMs) return null;
    const decision = this.cut(
      0.75,
      "latency",
      `model latency grew from ${formatMs(this.baseline)} to ${formatMs(this.ewma)} at ${this.value} in flight`,
      now,
    );
    // Judge the smaller load afresh rather than cutting again on the same slow turns.
    this.ewma = this.baseline;
    return decision;
  }

  private rise(now: number): Decision {
    const from = this.value;
    this.value += 1;
    this.peak = Math.max(this.peak, this.value);
    this.answered = 0;
    this.samplesAtLevel = 0;
    this.counts.rises += 1;
    return this.record({
      action: "rise",
      from,
      to: this.value,
      pressure: null,
      reason: "a full round of turns answered without pressure",
      now,
    });
  }

  private cut(factor: number, pressure: PressureKind, reason: string, now: number): Decision {
    const from = this.value;
    this.value = clamp(Math.floor(this.value * factor), this.min, this.s.max);
    this.answered = 0;
    this.samplesAtLevel = 0;
    this.rawSaturatedRun = 0;
    this.lastCutAt = now;
    this.counts.cuts += 1;
    this.stopped = { reason, at: from };
    return this.record({ action: "cut", from, to: this.value, pressure, reason, now });
  }

  private hold(pressure: PressureKind, reason: string, now: number): Decision | null {
    this.answered = 0;
    // Waiting out a retry-after is the 429's consequence: the 429 stays the reason.
    if (pressure !== "rate_limited" || !this.stopped) this.stopped = { reason, at: this.value };
    if (this.lastHold === pressure) return null;
    this.lastHold = pressure;
    return this.record({ action: "hold", from: this.value, to: this.value, pressure, reason, now });
  }

  private noteStop(reason: string, now: number): null {
    this.stopped = { reason, at: this.value };
    void now;
    return null;
  }

  private record(decision: Decision): Decision {
    if (this.decisions.length < DECISIONS_KEPT) this.decisions.push(decision);
    return decision;
  }
}

function clamp(n: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, n));
}

function formatMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}
