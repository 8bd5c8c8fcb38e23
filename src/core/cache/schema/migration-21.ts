import type Database from 'better-sqlite3'
import { fillTermList, TERMS_SQL } from '../ingest/term-list'

/**
 * Version 21: the kept term list (ingest/term-list.ts), filled from the index in one read of
 * it (fts5vocab in term order: about 2 s at 1,000,000 calls, docs/perf-log.md; short enough
 * to say nothing of). Safe to run again (tests lower user_version on a file of today's
 * layout): the table is kept and terms already listed are skipped.
 */
export function addTermList(db: Database.Database): void {
  db.exec(TERMS_SQL)
  fillTermList(db)
}
