/** What this connection's writes since some write count changed (see ChangeJournal.since). */
export interface ChangeSet {
  /** Calls with ids from here on are new (null: no new call). */
  newFrom: number | null
  /** Calls stored before that changed: content, or the scopes that returned them. */
  touched: number[]
}

/** The journal keeps this many writes, and at most this many touched ids. */
const KEEP_WRITES = 1000
const KEEP_TOUCHED = 200_000

/**
 * This connection's recent writes, numbered by the cache's write count. Readers that keep
 * per-call data in memory (the facet columns) read again only what a write added or
 * changed. Other connections' writes are not in it; readers also watch PRAGMA data_version.
 */
export class ChangeJournal {
  private readonly entries: Array<{ write: number; newFrom: number | null; touched: readonly number[] }> = []
  /** Writes at or below this count are no longer in the journal. */
  private floor = 0
  /** Touched ids held, kept as entries come and go. */
  private touchedHeld = 0

  constructor(private readonly limits: { writes: number; touched: number } = { writes: KEEP_WRITES, touched: KEEP_TOUCHED }) {}

  /** Write number `write` (the cache's write count after it) added calls from `newFrom` and changed `touched`. */
  record(write: number, newFrom: number | null, touched: readonly number[]): void {
    this.entries.push({ write, newFrom, touched })
    this.touchedHeld += touched.length
    while (this.entries.length > this.limits.writes || this.touchedHeld > this.limits.touched) {
      const dropped = this.entries.shift()!
      this.touchedHeld -= dropped.touched.length
      this.floor = dropped.write
    }
  }

  /** Forgets everything up to write `write` (the cache was emptied). */
  restart(write: number): void {
    this.entries.length = 0
    this.touchedHeld = 0
    this.floor = write
  }

  /**
   * What writes after `write`, up to `current`, changed. Null when that is not known (too
   * long ago, the cache was emptied since, or `write` is from the future): read everything.
   */
  since(write: number, current: number): ChangeSet | null {
    if (write < this.floor || write > current) return null
    let newFrom: number | null = null
    const touched: number[] = []
    for (const e of this.entries) {
      if (e.write <= write) continue
      if (e.newFrom !== null && (newFrom === null || e.newFrom < newFrom)) newFrom = e.newFrom
      for (const id of e.touched) touched.push(id)
    }
    return { newFrom, touched }
  }
}
