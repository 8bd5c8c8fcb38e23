import { setFlagsFromString } from 'node:v8'

/**
 * The old generation may grow a fifth past what a full collection left live (V8's default
 * allows a small heap up to fourfold).
 */
export const BOUNDED_GROWTH_FLAG = '--heap-growing-percent=20'
/** 0 is V8's default: the growth factor V8 chooses from the heap's size and its GC speed. */
export const DEFAULT_GROWTH_FLAG = '--heap-growing-percent=0'

/**
 * Bounds how far V8 lets the old generation grow between full collections, while a bulk pull
 * runs (pullTeamCache).
 *
 * A pull parses each batch's rows while the batch before is written to SQLite: rows in
 * flight outlive two young-generation collections, are promoted, and die one batch later.
 * The old generation is then mostly garbage, and V8, seeing a small live heap (~30 MB),
 * lets it grow several times over before it collects. Measured on a pull of 1,000,000
 * calls (the built CLI, before and after alternated, median of three; docs/perf-log.md, 2026-11-28):
 * peak resident memory 301 → 238 MiB, time 33.5 → 35.1 s: the full collections this adds
 * are of a small heap.
 *
 * V8 reads this factor at every collection, so setting it after start-up takes effect. It
 * holds for the whole process (the app's main process too), so it is set only while a bulk
 * pull runs: the last pull to end gives V8 its default back.
 */
export function createHeapGrowthBound(setFlags: (flags: string) => void = setFlagsFromString): () => () => void {
  let holders = 0
  return () => {
    if (holders++ === 0) setFlags(BOUNDED_GROWTH_FLAG)
    let released = false
    return () => {
      if (released) return
      released = true
      if (--holders === 0) setFlags(DEFAULT_GROWTH_FLAG)
    }
  }
}

/** The process's one bound: returns its release. */
export const boundHeapGrowth = createHeapGrowthBound()
