import type Database from 'better-sqlite3'
import { CallsightError } from '../../errors'
import { migrations } from './migrations'

/**
 * Versioned schema changes, keyed on PRAGMA user_version. Each runs in one transaction at
 * open, so a crash mid-migration leaves the previous version intact.
 */
export interface Migration {
  version: number
  /** `progress(done, total)`: a long step (an index rebuilt) says how far it is. */
  up(db: Database.Database, progress: (done: number, total: number) => void): void
}

/** How far a long migration step is, for a "rebuilding the search index" line or screen. */
export interface MigrationProgress {
  version: number
  done: number
  total: number
}

/** Brings the database up to SCHEMA_VERSION, or refuses one written by a newer Callsight. */
export function migrate(db: Database.Database, list: readonly Migration[] = migrations, onProgress?: (p: MigrationProgress) => void): void {
  const latest = list.reduce((v, m) => Math.max(v, m.version), 0)
  const current = db.pragma('user_version', { simple: true }) as number
  if (current > latest) {
    throw new CallsightError(
      'DatabaseTooNew',
      `This cache was written by a newer version of Callsight (schema ${current}; this version understands up to ${latest}).`,
      { hint: 'Update Callsight, or clear the cache to sync again with this version.' }
    )
  }
  for (const m of [...list].sort((a, b) => a.version - b.version)) {
    if (m.version <= current) continue
    db.transaction(() => {
      m.up(db, (done, total) => onProgress?.({ version: m.version, done, total }))
      db.pragma(`user_version = ${m.version}`)
    })()
  }
}
