/** What this connection's review writes since some review version changed (see ReviewJournal.since). */
export interface ReviewChanges {
  /** The call ids whose annotation (or its tags) was written. */
  calls: string[]
  /** Whether a review list was created, changed or deleted. */
  lists: boolean
}

/** The journal keeps this many writes, and at most this many call ids. */
const KEEP_WRITES = 1000
const KEEP_CALLS = 20_000

/**
 * This connection's review writes, numbered by the review version. Search keeps the
 * annotations in memory (search/review-set.ts) and, after a save, reads again only the
 * annotation it changed: a save stays O(1) (it records one id), and the next filtered query
 * pays one row's read instead of reloading every annotation. Writes of many calls at once (a
 * delete of all, a long import) record "unknown": read everything again.
 */
export class ReviewJournal {
  private entries: Array<{ version: number; calls: readonly string[]; lists: boolean }> = []
  private callsHeld = 0
  /** Versions at or below this are no longer in the journal. */
  private floor = 0
  private current = 0

  /** Moves with every write to annotations or review lists through this connection. */
  get version(): number {
    return this.current
  }

  /** A write: the annotations of `calls` changed (null: any, or too many to list), and lists when `lists`. */
  record(calls: readonly string[] | null, lists = false): void {
    this.current++
    if (calls === null || calls.length > KEEP_CALLS) {
      this.entries = []
      this.callsHeld = 0
      this.floor = this.current
      return
    }
    this.entries.push({ version: this.current, calls, lists })
    this.callsHeld += calls.length
    while (this.entries.length > KEEP_WRITES || this.callsHeld > KEEP_CALLS) {
      const dropped = this.entries.shift()!
      this.callsHeld -= dropped.calls.length
      this.floor = dropped.version
    }
  }

  /** What writes after `version` changed; null when not known (too long ago, or a write of everything). */
  since(version: number): ReviewChanges | null {
    if (version < this.floor || version > this.current) return null
    const calls: string[] = []
    let lists = false
    for (const e of this.entries) {
      if (e.version <= version) continue
      for (const c of e.calls) calls.push(c)
      lists ||= e.lists
    }
    return { calls, lists }
  }
}
