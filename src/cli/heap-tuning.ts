import { setFlagsFromString } from 'node:v8'

/**
 * The old generation may grow a fifth past what a full collection left live (V8's default
 * allows a small heap up to fourfold).
 */
export const OLD_GENERATION_GROWTH_FLAG = '--heap-growing-percent=20'

/**
 * Bounds how far V8 lets the old generation grow between full collections, for a bulk pull.
 *
 * A pull parses each batch's rows while the batch before is written to SQLite: rows in
 * flight outlive two young-generation collections, are promoted, and die one batch later.
 * The old generation is then mostly garbage, and V8, seeing a small live heap (~30 MB),
 * lets it grow several times over before it collects. Measured on a pull of 1,000,000
 * calls (the built CLI, before and after alternated, median of three; docs/team.md, stop 31):
 * peak resident memory 301 → 238 MiB, time 33.5 → 35.1 s: the full collections this adds
 * are of a small heap.
 *
 * V8 reads this factor at every collection, so setting it after start-up takes effect (the
 * young generation's size, read only at start-up, cannot be changed here). It holds for the
 * whole process, which is why the CLI's pull sets it and core does not: the app's main
 * process keeps V8's defaults.
 */
export function boundOldGenerationGrowth(): void {
  setFlagsFromString(OLD_GENERATION_GROWTH_FLAG)
}
