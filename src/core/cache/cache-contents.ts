import { statSync } from 'node:fs'
import type Database from 'better-sqlite3'
import type { CacheInfo, CallRecord } from '../../shared/domain'
import { namedItems } from './analysis-lists'
import { toRecord, type CallRowDb } from './records'
import { clearIndex } from './ingest/reindex'

/** The cache's size on disk (database and WAL), its calls, and when it was last synced or stopped. */
export function readCacheInfo(db: Database.Database, file: string): CacheInfo {
  let size = 0
  for (const f of [file, `${file}-wal`]) {
    try {
      size += statSync(f).size
    } catch {
      // The WAL file exists only while the database is open for writing.
    }
  }
  const calls = db.prepare('SELECT count(*) FROM calls').pluck().get() as number
  const last = db.prepare('SELECT max(last_success_at) FROM sync_scopes').pluck().get() as number | null
  const stopped =
    last === null
      ? (db
          .prepare("SELECT max(coalesce(finished_at, started_at)) FROM sync_runs WHERE outcome IN ('cancelled', 'failed', 'interrupted')")
          .pluck()
          .get() as number | null)
      : null
  return { path: file, sizeBytes: size, calls, lastSyncAt: last, stoppedAt: stopped }
}

/** Deletes calls, scopes, runs, catalog and totals in one transaction; the review tables stay. */
export function deleteCachedCalls(db: Database.Database): void {
  db.transaction(() => {
    db.exec(`
        DELETE FROM scope_members; DELETE FROM analysis_lists; DELETE FROM analysis_values; DELETE FROM calls; DELETE FROM analysis_keys;
        DELETE FROM sync_scopes; DELETE FROM sync_runs; DELETE FROM call_types;
        DELETE FROM agg_hours; DELETE FROM agg_scope_hours; DELETE FROM agg_values; DELETE FROM team_source;
        -- The row ids of the calls are gone; the next sync writes them again (migration 11).
        UPDATE annotations SET call_row = NULL WHERE call_row IS NOT NULL;
      `)
    clearIndex(db)
  }).immediate()
}

/** A stored row as its record, analysis in the order the service sent it. */
export function hydrateRow(db: Database.Database, row: CallRowDb): CallRecord {
  const list = db.prepare('SELECT items FROM analysis_lists WHERE call = ?').pluck().get(row.id) as string | undefined
  const items = list === undefined ? [] : (namedItems(db, [[row.id, list]]).get(row.id) ?? [])
  return toRecord(
    row,
    items.map((i) => ({ key: i.key, friendly_name: i.friendlyName, value: i.value }))
  )
}

export function readCall(db: Database.Database, callId: string): CallRecord | null {
  const row = db.prepare('SELECT * FROM calls WHERE call_id = ?').get(callId) as CallRowDb | undefined
  return row === undefined ? null : hydrateRow(db, row)
}
