/**
 * The lease book of a target's instances: which trial runs on which copy of the app, and what the
 * run summary says about it. A target whose trials share state (`isolated: false`) lends each
 * instance to one trial at a time, the others wait in line; an isolated one spreads its trials over
 * the instances, fewest first, and nobody waits. See docs/scale-out.md ("A pool of instances").
 */

/** What the run summary says of one target's pool (src/targets/pool-report.ts words it). */
export interface PoolReport {
  target: string;
  instances: number;
  isolated: boolean;
  /** How `instances: auto` chose the size; undefined when it was given. */
  sizedBy?: string;
  /** Trials leased (attempts share their trial's lease). */
  trials: number;
  /**
   * Most trials PLAYING on the target at once (between `playing()` and its end): a lease is taken
   * before the trial's concurrency slot, so leases held can far exceed the trials running (issue 36).
   */
  peak: number;
  /** Summed wait for an instance, over all leases. */
  waitedMs: number;
  /** Resets run, and their summed time (a failed reset counts too). */
  resets: number;
  resetMs: number;
  /** Resident memory of one instance's process group at start (bytes), when it could be read. */
  memoryBytes?: number;
}

export interface PoolLease {
  instance: number;
  waitedMs: number;
  /** The trial starts playing on its instance (it got its run slot); call the returned function when it stops. */
  playing(): () => void;
  release(): void;
}

interface Waiter {
  resolve: (index: number) => void;
  reject: (error: Error) => void;
  signal?: AbortSignal;
}

export class InstancePool {
  private readonly active: number[];
  private readonly queue: Waiter[] = [];
  /** Signals the pool listens to: one listener each, however many trials wait on it. */
  private readonly watched = new WeakSet<AbortSignal>();
  private playingNow = 0;
  private readonly stats = { trials: 0, peak: 0, waitedMs: 0, resets: 0, resetMs: 0 };

  constructor(
    readonly size: number,
    /** Exclusive: one trial per instance at a time (a target whose trials share state). */
    private readonly exclusive: boolean,
  ) {
    this.active = Array.from({ length: size }, () => 0);
  }

  /** One instance for a trial: a free one (exclusive), else the least busy; waits in line while all are taken. */
  async lease(signal?: AbortSignal): Promise<PoolLease> {
    const asked = performance.now();
    const index = await this.take(signal);
    const waitedMs = performance.now() - asked;
    this.stats.trials += 1;
    this.stats.waitedMs += waitedMs;
    let released = false;
    return {
      instance: index,
      waitedMs,
      playing: () => {
        this.playingNow += 1;
        this.stats.peak = Math.max(this.stats.peak, this.playingNow);
        let stopped = false;
        return () => {
          if (!stopped) this.playingNow -= 1;
          stopped = true;
        };
      },
      release: () => {
        if (released) return;
        released = true;
        this.active[index]! -= 1;
        const next = this.exclusive ? this.queue.shift() : undefined;
        if (next) {
          this.active[index]! += 1;
          next.resolve(index);
        }
      },
    };
  }

  /** Counts one reset and its time for the summary. */
  recordReset(ms: number): void {
    this.stats.resets += 1;
    this.stats.resetMs += ms;
  }

  report(): Omit<PoolReport, "target" | "isolated" | "sizedBy" | "memoryBytes"> {
    return { instances: this.size, ...this.stats };
  }

  private take(signal?: AbortSignal): Promise<number> {
    if (signal?.aborted) return Promise.reject(new Error("the run was stopped"));
    const least = this.active.indexOf(Math.min(...this.active));
    if (!this.exclusive || this.active[least] === 0) {
      this.active[least]! += 1;
      return Promise.resolve(least);
    }
    return new Promise<number>((resolve, reject) => {
      this.queue.push({ resolve, reject, signal });
      this.watch(signal);
    });
  }

  /**
   * Every trial of a shared-state target waits here at once, on the run's one signal: a listener per
   * waiter would pile up there (Node warns past 10; a long run would keep one per trial). One per signal.
   */
  private watch(signal?: AbortSignal): void {
    if (!signal || this.watched.has(signal)) return;
    this.watched.add(signal);
    const stop = () => {
      for (let at = this.queue.length - 1; at >= 0; at--) {
        const waiter = this.queue[at]!;
        if (waiter.signal !== signal) continue;
        this.queue.splice(at, 1);
        waiter.reject(new Error("the run was stopped"));
      }
    };
    signal.addEventListener("abort", stop, { once: true });
  }
}
