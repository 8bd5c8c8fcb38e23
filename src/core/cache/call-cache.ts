import type Database from 'better-sqlite3'
import { type CallType, type CacheInfo, type CallRecord } from '../../shared/domain'
import { CallsightError } from '../errors'
import type { Clock } from '../platform'
import { systemClock } from '../platform/node'
import { CallTypeCatalog, type CallTypeEntry, type CatalogImport } from './call-types/call-type-catalog'
import { ChangeJournal, type ChangeSet } from './change-journal'
import { RecordWriter, type PageCounts } from './ingest/ingest'
import { openCacheDb, SEARCH_MMAP_BYTES, type CacheDbOptions } from './schema/cache-db'
import { applyPulled, readTeamSource, type PulledBatch, type TeamSource } from './ingest/pulled'
import { DeferredIndexing } from './ingest/deferred-indexing'
import type { CallRowDb } from './records'
import { deleteCachedCalls, hydrateRow, readCacheInfo, readCall } from './cache-contents'
import { optimizeIndexes, settleIndexes } from './ingest/reindex'
import { BulkPull } from './bulk-pull'
import { CacheSyncStore } from './sync-store'
import type { ReviewChanges } from './review/review-journal'
import { ReviewStores } from './review/review-stores'
import { SyncRuns } from './sync-state/sync-runs'
import { rangeCounts, SyncScopes, type ScopeFilters } from './sync-state/sync-scopes'
import {
  chooseWindowScopes,
  narrowWindow,
  readWindow,
  readWindowScopes,
  type WindowScope,
  type WindowState
} from './sync-state/team-window'
import { WalCheckpointer, type CheckpointerOptions } from './ingest/wal-checkpointer'
import { RunMerging } from './ingest/run-merging'

export type { ScopeFilters } from './sync-state/sync-scopes'
export type { SyncRunInfo } from './sync-state/sync-runs'

export interface WritePageInput {
  scopeKey: string
  records: readonly CallRecord[]
  includeAnalysis: boolean
  /** Stored with the page, in the same transaction. */
  checkpoint: unknown
  runId?: string
  /** The run's totals after this page, stored with it. */
  runCounts?: { stored: number; requests: number }
}

/**
 * A cache's connection, for the cache layer's own reads (read/, review/) and for tests that
 * inspect the schema. Not exported from the cache's index: callers outside the layer use the
 * cache's methods.
 */
export function connectionOf(cache: CallCache): Database.Database {
  return cache['db']
}

/**
 * One account's call cache: a single SQLite file in WAL mode. Everything the sync engine
 * writes goes through writePage, which stores records, scope membership, the checkpoint and
 * the run's counts in one transaction, so a kill at any moment resumes without loss.
 */
export class CallCache {
  /** The connection: only the cache layer speaks SQL (callers use the methods below). */
  private readonly db: Database.Database
  readonly file: string
  private readonly clock: Clock
  private readonly writer: RecordWriter | null
  /** Writes made through this connection: moves with every change search must see. */
  private writes = 0
  /** What each recent write changed (see changesSince). */
  private readonly journal = new ChangeJournal()
  private readonly runs: SyncRuns
  private readonly scopeRows: SyncScopes
  private readonly catalog: CallTypeCatalog
  private readonly pageTx: Database.Transaction<(inputs: readonly WritePageInput[]) => PageCounts[]>
  /** The user's review work: never touched by writes of calls or by clear() (docs/review.md). */
  readonly review: ReviewStores
  /** What a pull of many calls switches on: the index built beside it, the bulk write settings. */
  readonly bulk: BulkPull
  /** The sync engine's store port on this cache: checkpoints, coverage marks, runs (sync-store.ts). */
  readonly sync: CacheSyncStore
  /** Checkpoints the WAL from a worker while the cache is idle (null: read-only, or turned off). */
  readonly checkpointer: WalCheckpointer | null = null
  /** A full-text index built beside a first bulk pull (deferred-indexing.ts). */
  private readonly indexing = new DeferredIndexing()
  /** FTS5's merge setting while a long run writes (run-merging.ts); null: read-only. */
  private readonly merging: RunMerging | null

  constructor(file: string, opts: CacheOpenOptions = {}) {
    this.file = file
    this.clock = opts.clock ?? systemClock
    this.db = openCacheDb(file, opts, this.clock.now())
    if (!opts.readonly && opts.checkpointer !== false && file !== ':memory:' && file !== '') {
      const cp = opts.checkpointer ?? {}
      this.checkpointer = new WalCheckpointer(file, (pages) => this.db.pragma(`wal_autocheckpoint = ${pages}`), {
        ...cp,
        ...(opts.nativeBinding === undefined ? {} : { nativeBinding: opts.nativeBinding })
      })
    }
    this.runs = new SyncRuns(this.db)
    this.scopeRows = new SyncScopes(this.db)
    this.catalog = new CallTypeCatalog(this.db)
    this.writer = opts.readonly ? null : new RecordWriter(this.db)
    this.merging = opts.readonly ? null : new RunMerging(this.db, opts.longRunCalls)
    this.pageTx = this.db.transaction((inputs: readonly WritePageInput[]) => this.writePagesInTx(inputs))
    this.review = new ReviewStores(this.db)
    this.bulk = new BulkPull({
      db: this.db,
      file: this.file,
      nativeBinding: opts.nativeBinding,
      mmapBytes: Math.trunc(opts.mmapBytes ?? SEARCH_MMAP_BYTES),
      indexing: this.indexing,
      writer: () => this.writer,
      requireWriter: () => this.requireWriter(),
      // Called once a pull's index built beside it was taken in: the index is settled.
      wrote: () => {
        this.merging?.settled()
        this.wrote(null, [])
      }
    })
    this.sync = new CacheSyncStore({
      scopeRows: this.scopeRows,
      runs: this.runs,
      review: this.review,
      now: () => this.clock.now(),
      wrote: () => this.wrote(null, []),
      ensureScope: (key, filters) => this.ensureScope(key, filters),
      writePages: (inputs) => this.writePages(inputs),
      coverage: (key) => this.coverage(key),
      callTypes: () => this.callTypes(),
      upsertCallTypes: (list) => this.upsertCallTypes(list),
      settleIndex: (written) => this.settleIndex(written)
    })
  }

  /** Moves with every write to annotations or review lists through this connection. */
  get reviewVersion(): number {
    return this.review.version
  }

  /** What this connection's review writes after review version `version` changed; null when not known. */
  reviewChangesSince(version: number): ReviewChanges | null {
    return this.review.changesSince(version)
  }

  /** Counts a write and journals what it changed. */
  private wrote(newFrom: number | null, touched: readonly number[]): void {
    this.writes++
    this.journal.record(this.writes, newFrom, touched)
  }

  /**
   * What this connection's writes after write number `writeCount` changed: calls with ids
   * from `newFrom` on are new, `touched` ones were stored before and changed (content or
   * scopes). Null when that is not known (too long ago, or the cache was cleared): read
   * everything again. Other connections' writes are not in it (see DataVersion).
   */
  changesSince(writeCount: number): ChangeSet | null {
    return this.journal.since(writeCount, this.writes)
  }

  /**
   * Calls were deleted wholesale (a clear, a narrowed window, new scopes): the writer's memory
   * of known calls is stale, and search cannot follow the change call by call (ids now have
   * gaps), so it reads everything again. `scopes`: the scope rows went too.
   */
  private replaced(opts: { scopes?: boolean } = {}): void {
    this.requireWriter().reset()
    if (opts.scopes) this.scopeRows.forget()
    this.writes++
    this.journal.restart(this.writes)
  }

  /** How many writes this connection made: search follows it (with PRAGMA data_version for others'). */
  get writeCount(): number {
    return this.writes
  }

  close(): void {
    if (!this.db.open) return
    // A build not finished stays marked: the next open completes the index from the stored
    // rows. Its worker's connections are closed when this returns, like the checkpointer's.
    this.indexing.stop(this.writer)
    if (this.checkpointer !== null) {
      this.checkpointer.stop()
      // If the worker's connection outlived its bound, SQLite would not checkpoint on this
      // close (only the last connection does): leave the WAL empty here.
      try {
        this.db.pragma('wal_checkpoint(TRUNCATE)')
      } catch {
        // Busy past the timeout: the next open finds the WAL and checkpoints it.
      }
    }
    this.db.close()
  }

  private requireWriter(): RecordWriter {
    if (!this.writer) throw new CallsightError('Storage', 'The cache was opened read-only.')
    return this.writer
  }

  writePage(input: WritePageInput): PageCounts {
    return this.writePages([input])[0]!
  }

  /**
   * Several pages in one transaction, in order: the same rows, checkpoints and counts as
   * writing them one by one, with one commit. A commit writes every touched database page
   * to the WAL, and the facet totals are upserted once for all of them; the sync engine
   * writes pages that arrived together this way.
   */
  writePages(inputs: readonly WritePageInput[]): PageCounts[] {
    this.requireWriter()
    if (inputs.length === 0) return []
    try {
      const counts = this.pageTx.immediate(inputs)
      const writer = this.requireWriter()
      this.wrote(writer.newFrom, writer.touched)
      this.indexing.committed()
      this.merging?.committed(counts.reduce((n, c) => n + c.inserted + c.updated, 0))
      return counts
    } catch (e) {
      this.indexing.rolledBack()
      this.writer?.rolledBack()
      throw e
    }
  }

  private writePagesInTx(inputs: readonly WritePageInput[]): PageCounts[] {
    const writer = this.requireWriter()
    const now = this.clock.now()
    writer.begin()
    const out: PageCounts[] = []
    for (const input of inputs) {
      const scopeId = this.scopeRows.id(input.scopeKey)
      out.push(writer.write(input.records, scopeId, input.includeAnalysis, now))
      this.scopeRows.setCheckpoint(scopeId, input.checkpoint)
      if (input.runId !== undefined && input.runCounts) this.runs.setCounts(input.runId, input.runCounts)
    }
    writer.finish()
    return out
  }

  /** A batch pulled from a team cache, with its cursor, in one transaction (src/core/cache/ingest/pulled.ts). */
  writePulled(batch: PulledBatch): void {
    const writer = this.requireWriter()
    try {
      this.db.transaction(() => applyPulled(this.db, writer, batch, this.clock.now())).immediate()
    } catch (e) {
      this.indexing.rolledBack()
      writer.rolledBack()
      throw e
    }
    this.wrote(writer.newFrom, writer.touched)
    this.indexing.committed()
    this.merging?.committed(batch.calls.length)
  }

  /** The window of the team cache this cache holds (sync-state/team-window.ts). */
  teamWindow(): WindowState {
    return readWindow(this.db)
  }

  /**
   * Drops the calls dated before `before` (when not null) and records `state`, in one
   * transaction. Search reads everything again after: row ids now have gaps.
   */
  setTeamWindow(state: WindowState, before: number | null): number {
    this.requireWriter()
    const n = narrowWindow(this.db, state, before)
    if (n > 0) this.replaced()
    else this.wrote(null, []) // Search reads the window once per data version.
    return n
  }

  /** The worker scopes the window of the team cache holds; null: every scope. */
  teamScopes(): WindowScope[] | null {
    return readWindowScopes(this.db)
  }

  /**
   * Chooses the worker scopes the window holds and empties the cache of what was pulled, in
   * one transaction, so the next pull starts from nothing (the review tables stay, as in
   * clear()). A pull killed after it finds the choice made and an empty cache.
   */
  chooseTeamScopes(scopes: readonly WindowScope[] | null): void {
    this.requireWriter()
    chooseWindowScopes(this.db, scopes)
    this.replaced({ scopes: true })
  }

  /** The team cache this cache is fed from, and how far it has pulled; null when synced directly. */
  teamSource(): TeamSource | null {
    return readTeamSource(this.db)
  }

  ensureScope(scopeKey: string, filters: ScopeFilters): void {
    this.scopeRows.ensure(scopeKey, filters)
    this.wrote(null, [])
  }

  /** Counts over a range for the membership estimate: calls, and a scope's members among them. */
  rangeCounts(): ReturnType<typeof rangeCounts> {
    return rangeCounts(this.db)
  }

  /** The covered intervals of a scope, merged and sorted. */
  coverage(scopeKey: string): Array<[number, number]> {
    return this.scopeRows.coverage(scopeKey)
  }

  upsertCallTypes(list: readonly CallType[]): void {
    this.catalog.upsert(list)
    // Search resolves type names through the catalog, read once per data version.
    this.wrote(null, [])
  }

  /** A catalog file (`import`) or Settings' whole edited list (`edit`, replacing). */
  importCallTypes(list: readonly CallType[], source: 'import' | 'edit' = 'import'): CatalogImport {
    const r = this.catalog.import(list, source, source === 'edit')
    this.wrote(null, [])
    return r
  }

  callTypes(): CallType[] {
    return this.catalog.list()
  }

  callTypeEntries(): CallTypeEntry[] {
    return this.catalog.entries()
  }

  /** Every scope with its filters and coverage, as stored. Search answers scope filters with it. */
  scopes(): Array<{ id: number; scopeKey: string; filters: ScopeFilters; coverage: Array<[number, number]> }> {
    return this.scopeRows.list()
  }

  info(): CacheInfo {
    return readCacheInfo(this.db, this.file)
  }

  /**
   * Merges the full-text index into one segment. Each page commit adds a segment; a query
   * that probes the index row by row pays for every segment the term is in (measured:
   * ~0.5 ms per probe after 500 commits, ~4 µs after this). The sync engine calls it at
   * the end of a run; it costs about as much as ingesting the calls did once more.
   */
  optimizeIndex(): void {
    this.requireWriter()
    optimizeIndexes(this.db)
    this.merging?.settled()
    this.wrote(null, [])
  }

  /**
   * The end of a run that wrote `written` calls: the whole index merged into one segment when
   * they are a large share of the cache, else only its small segments among themselves
   * (settleIndexes). What syncs and pulls call; optimizeIndex is the full merge on request.
   */
  settleIndex(written: number): 'optimized' | 'merged' | 'none' {
    this.requireWriter()
    const done = settleIndexes(this.db, written, this.merging?.isLong === true)
    this.merging?.settled()
    if (done !== 'none') this.wrote(null, [])
    return done
  }

  /**
   * Empties the cache (calls, scopes, runs, catalog) and gives the space back. The review
   * tables stay unless `keepReview` is false: annotations are the user's work, not a copy.
   */
  clear(opts: { keepReview?: boolean } = {}): void {
    if (opts.keepReview === false) this.review.deleteAll()
    this.requireWriter()
    deleteCachedCalls(this.db)
    this.merging?.settled()
    this.replaced({ scopes: true })
    this.db.exec('VACUUM')
    this.db.pragma('wal_checkpoint(TRUNCATE)')
  }

  getCall(callId: string): CallRecord | null {
    return readCall(this.db, callId)
  }

  /** A stored row as its record, analysis in the order the service sent it. */
  hydrate(row: CallRowDb): CallRecord {
    return hydrateRow(this.db, row)
  }
}

export interface CacheOpenOptions extends CacheDbOptions {
  clock?: Clock
  /**
   * The idle WAL checkpointer (wal-checkpointer.ts): its timings, or false for none (SQLite's
   * default then: the committing connection checkpoints every 1,000 pages, the old behaviour).
   */
  checkpointer?: CheckpointerOptions | false
  /** The calls after which a run counts as long (run-merging.ts; tests). */
  longRunCalls?: number
}

export function openCache(file: string, opts?: CacheOpenOptions): CallCache {
  return new CallCache(file, opts)
}
