/**
 * Deadlines on the calls a trial waits for, so no trial outlives its time limit (issue 37 §4).
 *
 * A browser can stop answering a call for good: a native dialog holds Chromium's reply to a page
 * command, a script that loops forever holds every evaluation and input, a page whose main thread
 * is blocked never hands out a frame to capture. Playwright's evaluations and raw CDP sends have
 * no timeout of their own, so before this a trial stuck in one waited forever, past its limit,
 * and a SIGTERM waited on it too. Every browser call of the loop therefore runs under
 * `TrialDeadline.call`: it is abandoned (rejected with `StuckCall`, naming the call) once the
 * trial's time limit plus `TRIAL_GRACE_MS` has passed, or `CANCEL_GRACE_MS` after the user
 * stopped the run. `watchdog()` is the backstop for whatever is not wrapped: it fires a little
 * later and tells the loop to end with what is in flight. So that it can name even what no call
 * covers, the loop labels its steps with `during` (a label only: nothing is abandoned by it).
 */

/** Past the trial's time limit, how long a call in flight may still take before it is abandoned. */
export const TRIAL_GRACE_MS = 15_000;
/** After Ctrl-C or SIGTERM, how long the current call may still take (the run must end within 10 s). */
export const CANCEL_GRACE_MS = 3_000;
/** The watchdog fires this long after the calls' own deadline, so a call's rejection ends the loop first. */
const WATCHDOG_LAG_MS = 2_000;

/** Who a call waits for: umpire's own browser work, or the agent (the model's turn). */
export type Waiter = "umpire" | "agent";

/** A call abandoned at its deadline. Its message names the call and says how long it was waited for. */
export class StuckCall extends Error {
  constructor(
    /** The call that did not answer, e.g. "capturing the screenshot (Page.captureScreenshot)". */
    readonly what: string,
    readonly waiter: Waiter,
    readonly waitedMs: number,
    /** Why it was abandoned: the time limit (plus grace), the user's stop, or the page broke. */
    readonly why: "limit" | "cancelled" | "broken",
    detail: string,
  ) {
    super(
      why === "broken"
        ? `${what} failed: ${detail}`
        : `umpire was stuck: ${what} did not answer in ${(waitedMs / 1000).toFixed(1)} s (${detail})`,
    );
    this.name = "StuckCall";
  }
}

export function isStuckCall(error: unknown): error is StuckCall {
  return error instanceof StuckCall;
}

/**
 * `work`, or a rejection with `StuckCall` naming `what` once `ms` have passed. The abandoned work's
 * late settling is swallowed: nobody waits for it any more.
 */
export function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const started = Date.now();
    const timer = setTimeout(() => {
      work.catch(() => undefined);
      reject(new StuckCall(what, "umpire", Date.now() - started, "limit", `its deadline was ${ms / 1000} s`));
    }, ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/** What the watchdog says when it fires: the call the trial was stuck in (if any), and why it fired. */
export interface Expiry {
  why: "limit" | "cancelled";
  /** The innermost call in flight when it fired; `untracked` when only a step label (`during`) was. */
  stuck?: { what: string; waiter: Waiter; waitedMs: number; untracked?: boolean };
}

interface InFlight {
  what: string;
  waiter: Waiter;
  since: number;
  /** A wrapper around calls of its own (`around`): named only when none of those is in flight. */
  wrapper: boolean;
  abandon: (why: StuckCall["why"], detail: string) => void;
}

/** The deadline of one trial's calls: its time limit, plus grace, or the user's stop, plus a shorter grace. */
export class TrialDeadline {
  private endsAt = Number.POSITIVE_INFINITY;
  private limitMs = 0;
  private cancelledAt: number | undefined;
  private broken: string | undefined;
  private seq = 0;
  private readonly inflight = new Map<number, InFlight>();
  /** Steps labelled by `during`: named by the watchdog when no tracked call is in flight. */
  private readonly steps = new Map<number, { what: string; since: number }>();
  private readonly rearm = new Set<() => void>();
  private readonly onAbort = () => {
    this.cancelledAt = Date.now();
    for (const arm of [...this.rearm]) arm();
  };

  constructor(
    private readonly signal?: AbortSignal,
    private readonly graceMs = TRIAL_GRACE_MS,
    private readonly cancelGraceMs = CANCEL_GRACE_MS,
  ) {
    signal?.addEventListener("abort", this.onAbort, { once: true });
    if (signal?.aborted) this.cancelledAt = Date.now();
  }

  /**
   * Stops listening on the run's signal. The run's signal outlives every trial: a deadline that kept
   * its listener would leave one per trial ever run on it (Node warns at 11: MaxListenersExceededWarning).
   */
  dispose(): void {
    this.signal?.removeEventListener("abort", this.onAbort);
  }

  /** Starts (or restarts) the time limit: calls may run until `limitMs` plus the grace from now. */
  start(limitMs: number): void {
    this.limitMs = limitMs;
    this.endsAt = Date.now() + limitMs;
    for (const arm of [...this.rearm]) arm();
  }

  /** Milliseconds until calls are abandoned (0 when past it). */
  remainingMs(): number {
    const byLimit = this.endsAt + this.graceMs - Date.now();
    const byCancel =
      this.cancelledAt === undefined ? Number.POSITIVE_INFINITY : this.cancelledAt + this.cancelGraceMs - Date.now();
    return Math.max(0, Math.min(byLimit, byCancel));
  }

  get cancelled(): boolean {
    return this.cancelledAt !== undefined;
  }

  /**
   * The page can no longer answer (its renderer crashed): every call in flight fails now with
   * `reason`, and so does every later one, instead of waiting for the deadline.
   */
  fail(reason: string): void {
    this.broken ??= reason;
    for (const call of [...this.inflight.values()]) call.abandon("broken", reason);
  }

  /**
   * `work` under the trial's deadline. Rejects with `StuckCall` naming the innermost call still in
   * flight (the one that hung, when calls nest) once the deadline passes.
   */
  call<T>(what: string, work: Promise<T>, waiter: Waiter = "umpire"): Promise<T> {
    return this.track(what, work, waiter, false);
  }

  /**
   * `call` for a step made of calls of its own (an observation): when it hangs, the call inside it
   * that is still in flight is named, not the step (its first inner call may start before it).
   */
  around<T>(what: string, work: Promise<T>): Promise<T> {
    return this.track(what, work, "umpire", true);
  }

  /**
   * Labels `work` for the watchdog without a deadline of its own: when the trial is stuck in
   * something no `call` covers (the backstop's case), the watchdog names this step instead of
   * saying "no call it tracks". The work is never abandoned by it.
   */
  during<T>(what: string, work: Promise<T>): Promise<T> {
    const id = ++this.seq;
    this.steps.set(id, { what, since: Date.now() });
    return work.finally(() => this.steps.delete(id));
  }

  private track<T>(what: string, work: Promise<T>, waiter: Waiter, wrapper: boolean): Promise<T> {
    if (this.broken !== undefined) {
      work.catch(() => undefined);
      return Promise.reject(new StuckCall(what, waiter, 0, "broken", this.broken));
    }
    const id = ++this.seq;
    const since = Date.now();
    return new Promise<T>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const finish = () => {
        clearTimeout(timer);
        this.inflight.delete(id);
        this.rearm.delete(arm);
      };
      const abandon = (why: StuckCall["why"], detail: string) => {
        const innermost = why === "broken" ? { what, waiter, since } : (this.innermost() ?? { what, waiter, since });
        finish();
        work.catch(() => undefined);
        reject(new StuckCall(innermost.what, innermost.waiter, Date.now() - innermost.since, why, detail));
      };
      const arm = () => {
        clearTimeout(timer);
        const ms = this.remainingMs();
        if (ms !== Number.POSITIVE_INFINITY) timer = setTimeout(() => abandon(...this.expiryWords()), ms);
      };
      this.inflight.set(id, { what, waiter, since, wrapper, abandon });
      this.rearm.add(arm);
      arm();
      work.then(
        (value) => {
          finish();
          resolve(value);
        },
        (error: unknown) => {
          finish();
          reject(error);
        },
      );
    });
  }

  /**
   * Resolves when the trial is past its deadline (plus a little, so a call's own rejection ends
   * the loop first), with the call it was stuck in; never resolves while the trial is on time.
   */
  watchdog(): { expired: Promise<Expiry>; dispose: () => void } {
    let timer: NodeJS.Timeout | undefined;
    let arm: () => void = () => undefined;
    const expired = new Promise<Expiry>((resolve) => {
      arm = () => {
        clearTimeout(timer);
        const ms = this.remainingMs();
        if (ms === Number.POSITIVE_INFINITY) return;
        timer = setTimeout(() => {
          this.rearm.delete(arm);
          const [why] = this.expiryWords();
          resolve({ why: why === "cancelled" ? "cancelled" : "limit", ...this.stuckWhere() });
        }, ms + WATCHDOG_LAG_MS);
      };
      this.rearm.add(arm);
      arm();
    });
    return {
      expired,
      dispose: () => {
        clearTimeout(timer);
        this.rearm.delete(arm);
      },
    };
  }

  /** How long the conclusion (checks, teardown) may wait on the browser: short after a stop. */
  conclusionMs(normalMs: number): number {
    if (this.cancelledAt === undefined) return normalMs;
    return Math.max(500, this.cancelledAt + this.cancelGraceMs - Date.now());
  }

  /** What the watchdog names: the innermost tracked call, else the latest labelled step (untracked). */
  private stuckWhere(): Pick<Expiry, "stuck"> {
    const call = this.innermost();
    if (call) return { stuck: { what: call.what, waiter: call.waiter, waitedMs: Date.now() - call.since } };
    const step = [...this.steps.values()].at(-1);
    if (!step) return {};
    return { stuck: { what: step.what, waiter: "umpire", waitedMs: Date.now() - step.since, untracked: true } };
  }

  /** The call started last among those still in flight, wrappers only when nothing else is. */
  private innermost(): InFlight | undefined {
    let last: InFlight | undefined;
    let lastWrapper: InFlight | undefined;
    for (const call of this.inflight.values()) {
      if (call.wrapper) lastWrapper = call;
      else last = call;
    }
    return last ?? lastWrapper;
  }

  private expiryWords(): [StuckCall["why"], string] {
    if (this.cancelledAt !== undefined && this.cancelledAt + this.cancelGraceMs <= this.endsAt + this.graceMs)
      return ["cancelled", `the run was stopped; ${this.cancelGraceMs / 1000} s allowed to finish`];
    return ["limit", `the trial's time limit of ${this.limitMs / 1000} s + ${this.graceMs / 1000} s grace`];
  }
}
