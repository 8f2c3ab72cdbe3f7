import { describe, expect, it } from "vitest";
import { RateLimiter } from "../../../src/sim/rate-limit.js";
import { turnLatencyMs } from "../../../src/sim/profiles.js";

describe("reference model rate limit (token buckets, injected clock)", () => {
  it("admits up to the request limit, then refuses with the wait until one refills", () => {
    const limiter = new RateLimiter({ requests: 4, windowMs: 1000 }, 0);
    for (let i = 0; i < 4; i++) expect(limiter.admit(10, 0)).toEqual({ ok: true });
    expect(limiter.admit(10, 0)).toEqual({ ok: false, retryAfterMs: 250, limit: "requests" });
    expect(limiter.admit(10, 100)).toEqual({ ok: false, retryAfterMs: 150, limit: "requests" });
    expect(limiter.admit(10, 250)).toEqual({ ok: true });
    expect(limiter.rejected).toBe(2);
  });

  it("charges tokens; a refusal charges nothing; a request larger than the bucket waits for a full one", () => {
    const limiter = new RateLimiter({ tokens: 6000, windowMs: 60_000 }, 0);
    expect(limiter.admit(4000, 0).ok).toBe(true);
    expect(limiter.admit(4000, 0)).toEqual({ ok: false, retryAfterMs: 20_000, limit: "tokens" });
    expect(limiter.admit(2000, 0).ok).toBe(true);
    expect(limiter.admit(1_000_000, 0)).toEqual({ ok: false, retryAfterMs: 60_000, limit: "tokens" });
    expect(limiter.admit(1_000_000, 60_000).ok).toBe(true);
  });

  it("without limits admits everything", () => {
    const limiter = new RateLimiter({}, 0);
    for (let i = 0; i < 1000; i++) expect(limiter.admit(1e6, 0).ok).toBe(true);
  });
});

describe("latency profile wait", () => {
  it("stays within base +/- jitter, is the same for the same (seed, trial, turn) and varies across turns", () => {
    const waits = Array.from({ length: 50 }, (_, turn) => turnLatencyMs(0, "run-0001", turn, 2000, 400));
    for (const w of waits) expect(w).toBeGreaterThanOrEqual(1600), expect(w).toBeLessThanOrEqual(2400);
    expect(new Set(waits).size).toBeGreaterThan(10);
    expect(turnLatencyMs(0, "run-0001", 7, 2000, 400)).toBe(waits[7]);
    expect(turnLatencyMs(0, "run-0002", 7, 2000, 400)).not.toBe(waits[7]);
    expect(turnLatencyMs(0, "x", 1, 2000, 0)).toBe(2000);
  });
});
