/**
 * A small, fast, seedable pseudo-random generator (mulberry32), for test and
 * benchmark fixtures that must be the same on every run.
 *
 * @module
 */

/**
 * Creates a generator.
 *
 * @param seed Any number; only its low 32 bits count.
 * @returns A function returning the next value, in [0, 1).
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
