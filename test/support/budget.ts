/**
 * A test's time limit, from the time its work takes on a quiet machine. CI runs on a 2-core
 * machine that may be shared: at load 5–15 CPU-bound tests were seen taking up to ~10 times
 * their quiet time, and a fixed 30 s limit then failed tests whose work was right. The limit
 * only catches a hang; what a test proves never rests on it.
 */
export const LOAD_SLOWDOWN = 15

/** vitest's options for work that takes `quietMs` on a quiet machine: never below its 30 s default. */
export function budget(quietMs: number): { timeout: number } {
  return { timeout: Math.max(30_000, quietMs * LOAD_SLOWDOWN) }
}
