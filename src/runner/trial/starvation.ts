/**
 * Whether a wall-clock wait that decides what a trial shows or how it ends ran out because the
 * machine was starved rather than because the application or the agent was slow. The settle
 * after an input and the wait for the document an input asked for are wall-clock limits (the
 * trial's own time limit is not judged here: a slow model or agent stays slow on a busy machine):
 * on a machine whose cores are all busy (other trials, other programs) they
 * run out for a gold trajectory too, and the trial then fails through no fault of the agent.
 *
 * A wait that ran out is called starved when, over that wait, the machine's cores were at least
 * STARVED_CPU_BUSY busy, or umpire's own event loop answered its timer STARVED_LAG_MS late, or a
 * capture of this trial took far longer than its own baseline shortly before. A trial that would
 * fail with a starved wait ends `error` instead (infrastructure: retried, never the agent's).
 */
import { cpus } from "node:os";

/** The waits whose running out decides an observation or the trial's end. */
export type DecidingWait = "settle" | "navigation";

/** The machine over one wait: busy fraction of all cores, and how late this process's timers fired. */
export interface LoadReading {
  cpuBusy: number;
  lagMs: number;
}

/**
 * Starts reading the machine; the returned function reads it over the time since, told how late
 * the wait's own timer fired past its limit (this process's event-loop lag over the wait).
 */
export type LoadProbe = () => (overshootMs: number) => LoadReading;

/** Busy fraction of all cores over a wait at which the machine counts as starved. */
export const STARVED_CPU_BUSY = 0.9;
/** A timer of this process firing this late means umpire itself was not getting the CPU. */
export const STARVED_LAG_MS = 250;
/** A capture this many times the trial's fastest, and at least SLOW_CAPTURE_MIN_MS, is a starved one. */
export const SLOW_CAPTURE_RATIO = 5;
export const SLOW_CAPTURE_MIN_MS = 1_500;
/** How long a slow capture stands as evidence for a wait that runs out after it. */
const SLOW_CAPTURE_EVIDENCE_MS = 30_000;

export interface StarvedWait {
  wait: DecidingWait;
  limitMs: number;
  tookMs: number;
  cpuBusy: number;
  lagMs: number;
  /** A capture far slower than the trial's baseline shortly before: [took, baseline] ms. */
  slowCapture: [number, number] | null;
}

/** The whole machine's CPU over the wait, from the kernel's per-core times. */
export const machineLoadProbe: LoadProbe = () => {
  const before = cpuTimes();
  return (overshootMs) => {
    const after = cpuTimes();
    const total = after.total - before.total;
    return {
      cpuBusy: total > 0 ? Math.min(1, Math.max(0, 1 - (after.idle - before.idle) / total)) : 0,
      lagMs: Math.max(0, overshootMs),
    };
  };
};

function cpuTimes(): { idle: number; total: number } {
  let idle = 0;
  let total = 0;
  for (const { times: t } of cpus()) {
    idle += t.idle;
    total += t.user + t.nice + t.sys + t.idle + t.irq;
  }
  return { idle, total };
}

/** One trial's waits that ran out on a starved machine. */
export class StarvationWatch {
  readonly starved: StarvedWait[] = [];
  /** Every deciding wait that ran out, starved or not (for the trial log and tests). */
  ranOut = 0;
  private fastestCaptureMs = Infinity;
  private slowCapture: { at: number; tookMs: number; baselineMs: number } | null = null;

  constructor(private readonly probe: LoadProbe = machineLoadProbe) {}

  /** Call as a wait starts; call the result once it ended, with whether it ran out. */
  begin(wait: DecidingWait, limitMs: number): (ranOut: boolean) => StarvedWait | null {
    const started = performance.now();
    const read = this.probe();
    return (ranOut) => {
      if (!ranOut) return null;
      this.ranOut += 1;
      const tookMs = performance.now() - started;
      // How late the wait's own timer fired (a time limit is enforced elsewhere: no overshoot of its own).
      const reading = read(Number.isFinite(limitMs) ? tookMs - limitMs : 0);
      const lagMs = reading.lagMs;
      const recent =
        this.slowCapture && performance.now() - this.slowCapture.at <= SLOW_CAPTURE_EVIDENCE_MS
          ? this.slowCapture
          : null;
      if (reading.cpuBusy < STARVED_CPU_BUSY && lagMs < STARVED_LAG_MS && !recent) return null;
      const found: StarvedWait = {
        wait,
        limitMs: Number.isFinite(limitMs) ? limitMs : tookMs,
        tookMs,
        cpuBusy: reading.cpuBusy,
        lagMs,
        slowCapture: recent ? [recent.tookMs, recent.baselineMs] : null,
      };
      this.starved.push(found);
      return found;
    };
  }

  /** A capture's time: the fastest is the trial's baseline; one far slower is evidence of starvation. */
  capture(tookMs: number): void {
    if (tookMs >= SLOW_CAPTURE_MIN_MS && tookMs >= this.fastestCaptureMs * SLOW_CAPTURE_RATIO) {
      this.slowCapture = { at: performance.now(), tookMs, baselineMs: this.fastestCaptureMs };
    }
    this.fastestCaptureMs = Math.min(this.fastestCaptureMs, tookMs);
  }
}

/** "machine starved: the settle wait ran out (limit 2.5 s, took 2.6 s; CPU 97% busy, ...)". */
export function describeStarvation(starved: readonly StarvedWait[]): string {
  const first = starved[0];
  if (!first) return "";
  const more =
    starved.length > 1 ? `; ${starved.length - 1} more wait${starved.length > 2 ? "s" : ""} ran out starved` : "";
  return `machine starved: ${describeWait(first)}${more}`;
}

function describeWait(w: StarvedWait): string {
  const what = `the ${w.wait} wait`;
  const signs = [`CPU ${Math.round(w.cpuBusy * 100)}% busy`, `umpire's timers ${seconds(w.lagMs)} late`];
  if (w.slowCapture)
    signs.push(`a capture took ${seconds(w.slowCapture[0])} against ${seconds(w.slowCapture[1])} before`);
  return `${what} ran out (limit ${seconds(w.limitMs)}, took ${seconds(w.tookMs)}; ${signs.join(", ")})`;
}

function seconds(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}
