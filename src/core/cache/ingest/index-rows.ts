import type Database from 'better-sqlite3'
import { hasShortIndex, SHORT_INDEX_TABLE, shortPrefixesOf } from './short-prefixes'
import { hasTermList, KeptTerms } from './term-list'

/** A call's folded text for the index: title, summary, analysis values. */
export type IndexRow = [string, string, string]

/**
 * The full-text rows of one transaction, written at its end. FTS5 keeps a transaction's rows
 * in memory and writes them out as one segment at commit, but any later statement that opens
 * a savepoint (every multi-row INSERT does) makes it write what it holds first: writing the
 * index row by page between the other inserts cost a segment per statement and made those
 * inserts four times slower (measured). So the rows wait here until every other insert of the
 * transaction is done. They then go one single-row INSERT each (a single-row INSERT opens no
 * savepoint, so FTS5 still writes one segment at commit): that costs less than one statement
 * over a JSON array of all of them, which built and parsed a megabyte of JSON per transaction
 * and the arrays behind it (docs/perf-log.md). Deleting in rowid order, then inserting in
 * rowid order, keeps FTS5 from flushing on a rowid that goes backwards.
 */
export class IndexRows {
  /** Rows by call id (null: the row is not built here, see divert). */
  private readonly pending = new Map<number, IndexRow | null>()
  /** Calls whose index row from before the transaction must go. */
  private readonly stale: number[] = []
  private readonly remove: Database.Statement
  private readonly insert: Database.Statement<[number, string, string, string]>
  /** The short-prefix index's statements (short-prefixes.ts); null on a schema without it. */
  private readonly short: { remove: Database.Statement; insert: Database.Statement<[number, string]> } | null
  /** The kept term list's side (term-list.ts); null on a schema without it. */
  private readonly terms: KeptTerms | null
  /**
   * While set (a first bulk pull: deferred-index.ts), no row is built or inserted: write()
   * hands over which calls to index (and which stale rows to drop), and the caller sends
   * them on once the transaction committed; the index build reads and folds those calls
   * itself from the committed rows, on its own thread.
   */
  divert: ((batch: { stale: number[]; ids: number[] }) => void) | null = null

  constructor(db: Database.Database) {
    this.remove = db.prepare('DELETE FROM calls_fts WHERE rowid = ?')
    this.insert = db.prepare<[number, string, string, string]>(
      'INSERT INTO calls_fts (rowid, title, summary, analysis) VALUES (?, ?, ?, ?)'
    )
    this.short = hasShortIndex(db)
      ? {
          remove: db.prepare(`DELETE FROM ${SHORT_INDEX_TABLE} WHERE rowid = ?`),
          insert: db.prepare<[number, string]>(`INSERT INTO ${SHORT_INDEX_TABLE} (rowid, p) VALUES (?, ?)`)
        }
      : null
    this.terms = hasTermList(db) ? new KeptTerms(db) : null
  }

  /** Whether rows are built and inserted here (false while diverted: only ids are needed). */
  get wantsRows(): boolean {
    return this.divert === null
  }

  /** A new call's row (null while diverted). */
  add(id: number, row: IndexRow | null): void {
    this.pending.set(id, row)
  }

  /** A changed call's row: its stored one goes at the end, unless it was written in this transaction. */
  replace(id: number, row: IndexRow | null): void {
    if (!this.pending.has(id)) this.stale.push(id)
    this.pending.set(id, row)
  }

  /** Forgets what a rolled-back transaction left. */
  reset(): void {
    this.pending.clear()
    this.stale.length = 0
  }

  /** After a rollback or the index emptied: the terms remembered as stored may not be. */
  forgetTerms(): void {
    this.terms?.forget()
  }

  /** Writes the transaction's rows (inside it). */
  write(): void {
    this.stale.sort((a, b) => a - b)
    if (this.divert !== null) {
      const stale = this.stale.splice(0)
      const ids = this.sortedIds()
      this.pending.clear()
      this.divert({ stale, ids })
      return
    }
    for (const id of this.stale) {
      this.remove.run(id)
      this.short?.remove.run(id)
    }
    this.stale.length = 0
    if (this.pending.size === 0) return
    const short = this.short?.insert ?? null
    const met = this.terms?.met ?? null
    for (const id of this.sortedIds()) {
      // Rows are null only while diverted, and write() hands those over before this: an
      // empty row in their place would make a stored call unsearchable without a word.
      const row = this.pending.get(id)!
      const [title, summary, analysis] = row
      this.insert.run(id, title, summary, analysis)
      // One scan of the texts gives both the short prefixes and the words for the term list.
      if (short !== null || met !== null) {
        const prefixes = shortPrefixesOf(row, met)
        if (short !== null) short.run(id, prefixes)
      }
    }
    this.pending.clear()
    this.terms?.write()
  }

  /** The pending calls' ids in order. New ids arrive in order; only changed calls of earlier pages need the sort. */
  private sortedIds(): number[] {
    const ids = [...this.pending.keys()]
    for (let i = 1; i < ids.length; i++) if (ids[i]! < ids[i - 1]!) return ids.sort((a, b) => a - b)
    return ids
  }
}
