/**
 * A small deterministic pseudo-random generator (mulberry32). The fixture data must be the same
 * on every machine and every start, so nothing here ever touches Math.random.
 */
export interface Prng {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max], both ends included. */
  int(min: number, max: number): number;
  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T;
  /** A float in [min, max). */
  between(min: number, max: number): number;
}

/** Creates a generator from a 32-bit seed. */
export function createPrng(seed: number): Prng {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => items[Math.floor(next() * items.length)],
    between: (min, max) => min + next() * (max - min),
  };
}

/** Mixes a text into a seed (FNV-1a), so each match gets its own stream independent of order. */
export function seedFrom(base: number, text: string): number {
  let hash = (0x811c9dc5 ^ base) >>> 0;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}
