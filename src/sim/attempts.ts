/**
 * Counts attempts of identical requests, so `flaky-http` can fail a request and let its retry
 * through. A retry resends the same body, so the body's hash identifies it. Bounded: the
 * oldest keys are forgotten first.
 */
import { createHash } from "node:crypto";

export class AttemptCounter {
  private readonly counts = new Map<string, number>();

  constructor(private readonly capacity = 10_000) {}

  /** Returns how many times this body was seen before (0 the first time) and counts this one. */
  next(body: unknown): number {
    const key = createHash("sha1").update(JSON.stringify(body)).digest("hex");
    const seen = this.counts.get(key) ?? 0;
    this.counts.delete(key); // re-insert so the map's order is least recently used first
    this.counts.set(key, seen + 1);
    if (this.counts.size > this.capacity) this.counts.delete(this.counts.keys().next().value as string);
    return seen;
  }
}
