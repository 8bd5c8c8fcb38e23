import Database from 'better-sqlite3'
import { CallsightError } from '../../errors'
import { makePrivateFile, SQLITE_SIDECARS, tightenFile } from '../../platform/private-files'
import { registerListFunctions } from '../analysis-lists'
import { settleIndexBuild } from '../ingest/deferred-index'
import { settleFtsMerging } from '../ingest/fts-buffer'
import { migrate, type MigrationProgress } from './migrate'
import { migrations, SCHEMA_VERSION } from './migrations'
import { SyncRuns } from '../sync-state/sync-runs'

export interface CacheDbOptions {
  readonly?: boolean
  /** Path of a better-sqlite3 addon built for this runtime (Electron), when not npm's. */
  nativeBinding?: string
  /**
   * Benchmarks only: migrate no further than this version, to measure the layout before a
   * later migration on the same data in the same run (bench/query.ts).
   */
  schemaVersion?: number
  /**
   * Told how far a long migration is (migration 7 rebuilds the whole search index: minutes at
   * 1,000,000 calls). Called synchronously during open.
   */
  onMigrationProgress?: (p: MigrationProgress) => void
  /**
   * Benchmarks only: the memory map's size instead of SEARCH_MMAP_BYTES (main's whole-file
   * map, WHOLE_FILE_MMAP_BYTES, measured against it in the same run).
   */
  mmapBytes?: number
}

/**
 * Opens a cache file and brings it to a state search and sync may use: its pragmas, its
 * migrations, an index build a killed pull left behind finished (deferred-index.ts), and sync
 * runs a killed process left "running" marked interrupted. A read-only open migrates nothing:
 * it refuses a file that is behind. The connection is closed again if any of it fails.
 */
export function openCacheDb(file: string, opts: CacheDbOptions, now: number): Database.Database {
  let db: Database.Database
  try {
    // Under Electron the app passes its Electron-ABI build of better-sqlite3 (nativeBinding);
    // Node (tests, CLI) uses the one npm built.
    const native = opts.nativeBinding === undefined ? {} : { nativeBinding: opts.nativeBinding }
    // The cache holds call summaries: 0600, created so before SQLite opens it (its -wal and
    // -shm take the database's mode); a file an older version left wider is tightened.
    if (opts.readonly) for (const f of [file, ...SQLITE_SIDECARS.map((s) => file + s)]) tightenFile(f)
    else makePrivateFile(file, SQLITE_SIDECARS)
    db = new Database(file, opts.readonly ? { readonly: true, fileMustExist: true, ...native } : native)
  } catch (e) {
    throw new CallsightError('Storage', `The cache file could not be opened (${file}).`, { cause: e })
  }
  try {
    configure(db, opts, now)
  } catch (e) {
    db.close()
    throw e
  }
  return db
}

/**
 * The memory map search reads through: the file's first 256 MB; a bulk pull turns it off
 * (cache.bulk.bulkWriting). Every mapped page search touched stays in the process's resident
 * set (clean, reclaimable, but counted): with the whole file mapped (up to SQLite's 2 GB
 * ceiling) a search over 5,000,000 calls held ~1.4 GB of file pages besides its heap. Pages
 * past the map are read into SQLite's page cache (cache_size, 64 MB) from the OS's, which
 * the process's resident set does not count.
 */
export const SEARCH_MMAP_BYTES = 256 * 2 ** 20

/** The whole file mapped up to SQLite's 2 GB ceiling (the map before it was bounded; benchmarks' baseline). */
export const WHOLE_FILE_MMAP_BYTES = 2147418112

function configure(db: Database.Database, opts: CacheDbOptions, now: number): void {
  db.pragma('busy_timeout = 5000')
  db.pragma('foreign_keys = ON')
  db.pragma('cache_size = -65536')
  db.pragma('temp_store = MEMORY')
  // Reads straight from the page cache of the OS, for the file's first SEARCH_MMAP_BYTES.
  db.pragma(`mmap_size = ${Math.trunc(opts.mmapBytes ?? SEARCH_MMAP_BYTES)}`)
  // Analysis filters test a call's list of value ids (analysis-lists.ts) in SQL.
  registerListFunctions(db)
  if (opts.readonly) {
    const v = db.pragma('user_version', { simple: true }) as number
    if (v > SCHEMA_VERSION) migrate(db) // throws DatabaseTooNew without writing
    if (v < SCHEMA_VERSION) {
      throw new CallsightError('Storage', 'This cache must be opened once for writing to bring it up to date.')
    }
    settleIndexBuild(db, true, opts.nativeBinding)
    return
  }
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
  const upTo = opts.schemaVersion
  const progress = opts.onMigrationProgress
  migrate(db, upTo === undefined ? migrations : migrations.filter((m) => m.version <= upTo), progress)
  if (upTo === undefined || upTo >= 12) {
    settleIndexBuild(db, false, opts.nativeBinding, (done, total) => progress?.({ version: 12, done, total }))
    settleFtsMerging(db)
  }
  new SyncRuns(db).interruptRunning(now)
}
