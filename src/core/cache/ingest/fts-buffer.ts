import type Database from 'better-sqlite3'
import { SHORT_INDEX_TABLE } from './short-prefixes'

const FTS_TABLES = ['calls_fts', SHORT_INDEX_TABLE]

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

/**
 * Turns FTS5's incremental merging ('automerge', stored in each index's config table) off on
 * the cache's full-text indexes, where it is on. With it (FTS5's default of 4), every
 * transaction's commit went on to merge the last few segments into a larger one, so each
 * posting of a long sync was rewritten level after level; a sync ends with a merge of the
 * whole index into one segment anyway (optimizeIndex). Without it, segments pile up to FTS5's
 * own bound ('crisismerge', 16 a level) and are then merged at once: measured on the sync's
 * path, about 6 of 22 CPU-µs a call of full-text work less (docs/perf-log.md). Searches give
 * the same answers on any number of segments; between a sync's transactions they read up to
 * 16 a level instead of about 4.
 */
export function settleFtsMerging(db: Database.Database): void {
  for (const table of FTS_TABLES) {
    const config = db.prepare('SELECT 1 FROM sqlite_schema WHERE name = ?').get(`${table}_config`)
    if (config === undefined) continue
    const automerge = db.prepare(`SELECT v FROM ${table}_config WHERE k = 'automerge'`).pluck().get()
    if (automerge !== 0) db.prepare(`INSERT INTO ${table} (${table}, rank) VALUES ('automerge', 0)`).run()
  }
  // A long run that never reached its end (a kill, a cancel) left its setting (run-merging.ts).
  setCrisisMerge(db, FTS_CRISIS_MERGE)
}

/** FTS5's own 'crisismerge': the segments a level holds before they are merged into one. */
export const FTS_CRISIS_MERGE = 16

/** Sets 'crisismerge' on the cache's full-text indexes (stored in their config tables, so it lasts until set again). */
export function setCrisisMerge(db: Database.Database, segments: number): void {
  for (const table of FTS_TABLES) {
    if (db.prepare('SELECT 1 FROM sqlite_schema WHERE name = ?').get(`${table}_config`) === undefined) continue
    const now = db.prepare(`SELECT v FROM ${table}_config WHERE k = 'crisismerge'`).pluck().get() ?? FTS_CRISIS_MERGE
    // A literal: FTS5 takes only an integer, and a bound JavaScript number is a real.
    if (now !== segments) db.prepare(`INSERT INTO ${table} (${table}, rank) VALUES ('crisismerge', ${Math.trunc(segments)})`).run()
  }
}
