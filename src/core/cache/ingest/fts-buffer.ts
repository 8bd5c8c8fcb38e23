import type Database from 'better-sqlite3'

/** FTS5's own default for 'hashsize': the pending terms it holds before writing a segment. */
export const FTS_DEFAULT_BUFFER = 1024 * 1024

/** What a bulk pull uses: larger than a pull batch's pending terms (a few MB), so one segment per batch. */
export const FTS_BULK_BUFFER = 32 * 1024 * 1024

/**
 * Sets how many bytes of pending full-text terms FTS5 holds before it writes them out as a
 * segment ('hashsize'; stored in the index's config table, so it lasts until set again).
 * At the default (1 MB) a pull batch of 2,000 calls became three or four small segments,
 * each merged again later; held in memory until the commit, it is one. Measured on a
 * 100,000-call pull: 8–10 % less CPU in the pulling process (docs/team.md). The memory is
 * only used inside a transaction, up to what the transaction wrote.
 */
export function setFtsBuffer(db: Database.Database, bytes: number): void {
  if (!Number.isSafeInteger(bytes) || bytes <= 0) throw new Error('the full-text buffer must be a positive whole number of bytes')
  db.prepare(`INSERT INTO calls_fts (calls_fts, rank) VALUES ('hashsize', ${bytes})`).run()
}
