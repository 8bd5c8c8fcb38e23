import type Database from 'better-sqlite3'
import { FTS_CRISIS_MERGE, setCrisisMerge } from './fts-buffer'
import { callSpan, OPTIMIZE_SHARE } from './reindex'

/**
 * 'crisismerge' while a long run writes: a level's segments are merged 64 at a time, so a
 * million calls written in transactions of 2,000 reach a second level of merges (eight
 * million) never instead of at 512,000, and each posting is rewritten once on the way
 * instead of twice. Measured at 1,000,000 calls: about a tenth less CPU and 14 % fewer bytes
 * written (docs/perf-log.md). A search between the run's transactions reads up to 64 small
 * segments a level instead of 16; the run's end merges them all (settleIndexes).
 */
export const LONG_RUN_CRISIS_MERGE = 64

/**
 * The calls a run writes before it counts as long. Below it a run cannot reach a second
 * level with FTS5's default (16 transactions of 2,000 calls make the first), so the setting
 * would change nothing but the searches during it.
 */
export const LONG_RUN_CALLS = 50_000

/**
 * Follows the calls written since the index was last settled, and merges FTS5's segments
 * fewer at a time once they are many: a run that has written a tenth of the cache (and at
 * least LONG_RUN_CALLS) ends with a merge of the whole index into one segment anyway
 * (settleIndexes), so merging its segments level after level on the way mostly rewrote
 * postings that the end rewrites again. Searches during it still see every committed call.
 * settled() puts FTS5's default back; so does the next open, after a run that never ended.
 */
export class RunMerging {
  private written = 0
  private long = false

  constructor(
    private readonly db: Database.Database,
    private readonly longRun = LONG_RUN_CALLS
  ) {}

  /** After a committed transaction that stored `calls` calls (new or changed). */
  committed(calls: number): void {
    this.written += calls
    if (this.long || this.written < this.longRun) return
    if (this.written < callSpan(this.db) * OPTIMIZE_SHARE) return
    this.long = this.set(LONG_RUN_CRISIS_MERGE)
  }

  /** The run's end merged the index (or the cache was emptied): FTS5's default again. */
  settled(): void {
    this.written = 0
    if (!this.long) return
    this.long = !this.set(FTS_CRISIS_MERGE)
  }

  /**
   * After the caller's transaction committed: a setting that cannot be written now (the file
   * busy past the timeout) must not fail a write that succeeded. Only the speed differs, and
   * the next open puts FTS5's default back.
   */
  private set(segments: number): boolean {
    try {
      setCrisisMerge(this.db, segments)
      return true
    } catch {
      return false
    }
  }

  /** Whether the current run counts as long: its end may merge only its small segments (settleIndexes). */
  get isLong(): boolean {
    return this.long
  }
}
