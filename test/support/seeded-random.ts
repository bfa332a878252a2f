/**
 * Seeded randomness for the crash suites: the seed is printed, and the environment variable named replays it, so a
 * failing run's moments can be run again.
 */

/** mulberry32: a small seeded generator of numbers in [0, 1). */
export function seeded(state: number): () => number {
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** The seed in `variable`, else a random one; printed, with how to replay it. */
export function seedFrom(variable: string, suite: string): number {
  const seed = Number(process.env[variable] ?? Math.floor(Math.random() * 2 ** 31));
  console.info(`${suite} seed: ${seed} (${variable}=${seed} replays these moments)`);
  return seed;
}
