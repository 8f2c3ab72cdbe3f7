/**
 * The reference model's rate limit: what a hosted endpoint does when a run sends too much, so
 * adaptive concurrency can be tested and benchmarked offline. Two token buckets (requests and
 * tokens), each holding `limit` units and refilled at `limit` per window, as OpenAI-style
 * limits are; a request that does not fit is answered 429 with the wait until it would.
 * The clock is injected so the arithmetic is testable without sleeping.
 */

export interface RateLimitOptions {
  /** Requests per window; absent = unlimited. */
  requests?: number;
  /** Tokens per window (prompt estimate + the requested response allowance); absent = unlimited. */
  tokens?: number;
  /** Window length; default 60 000 ms (a per-minute limit). Tests use a short one. */
  windowMs?: number;
}

export type RateDecision = { ok: true } | { ok: false; retryAfterMs: number; limit: "requests" | "tokens" };

class Bucket {
  private level: number;
  private at: number;

  constructor(
    private readonly capacity: number,
    private readonly windowMs: number,
    now: number,
  ) {
    this.level = capacity;
    this.at = now;
  }

  private refill(now: number): void {
    this.level = Math.min(this.capacity, this.level + ((now - this.at) * this.capacity) / this.windowMs);
    this.at = now;
  }

  /** Ms until `cost` units are available (0 = now). A cost above capacity is charged as a full bucket. */
  waitFor(cost: number, now: number): number {
    this.refill(now);
    const need = Math.min(cost, this.capacity) - this.level;
    return need <= 0 ? 0 : Math.ceil((need * this.windowMs) / this.capacity);
  }

  take(cost: number): void {
    this.level -= Math.min(cost, this.capacity);
  }
}

/** The rate window when none is given: a minute, as hosted endpoints count rpm and tpm. */
export const DEFAULT_RATE_WINDOW_MS = 60_000;

export class RateLimiter {
  private readonly requests: Bucket | null;
  private readonly tokens: Bucket | null;
  /** 429s answered so far (benchmarks report it). */
  rejected = 0;

  constructor(options: RateLimitOptions, now: number = Date.now()) {
    const windowMs = options.windowMs ?? DEFAULT_RATE_WINDOW_MS;
    if (!(windowMs > 0)) throw new Error(`rate limit window must be > 0 ms, got ${windowMs}`);
    this.requests = positive(options.requests) ? new Bucket(options.requests, windowMs, now) : null;
    this.tokens = positive(options.tokens) ? new Bucket(options.tokens, windowMs, now) : null;
  }

  /** Admits a request costing `tokens`, or says how long to wait; nothing is charged on a refusal. */
  admit(tokens: number, now: number = Date.now()): RateDecision {
    const requestWait = this.requests?.waitFor(1, now) ?? 0;
    const tokenWait = this.tokens?.waitFor(tokens, now) ?? 0;
    if (requestWait > 0 || tokenWait > 0) {
      this.rejected += 1;
      return requestWait >= tokenWait
        ? { ok: false, retryAfterMs: requestWait, limit: "requests" }
        : { ok: false, retryAfterMs: tokenWait, limit: "tokens" };
    }
    this.requests?.take(1);
    this.tokens?.take(tokens);
    return { ok: true };
  }
}

function positive(value: number | undefined): value is number {
  return typeof value === "number" && Number.isFinite(value) && value > 0;
}
