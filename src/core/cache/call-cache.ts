import { randomUUID } from 'node:crypto'
import { statSync } from 'node:fs'
import Database from 'better-sqlite3'
import { z } from 'zod'
import {
  CallType,
  ScopeStatus,
  SyncOutcome,
  type CacheInfo,
  type CallRecord
} from '../../shared/domain'
import { AppErrorInfo } from '../../shared/errors'
import { CallsightError } from '../errors'
import type { Clock } from '../platform'
import { systemClock } from '../platform/node'
import { mergeInterval, Intervals } from './coverage'
import { RecordWriter, type PageCounts } from './ingest'
import { migrate, SCHEMA_VERSION } from './migrations'
import { toRecord, type AnalysisRowDb, type CallRowDb } from './records'

export type ScopeFilters = ScopeStatus['filters']

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

export interface SyncRunInfo {
  runId: string
  scopeKey: string
  params: unknown
  startedAt: number
  finishedAt: number | null
  outcome: SyncOutcome
  stored: number
  requests: number
  error: AppErrorInfo | null
}

interface RunRowDb {
  id: string
  scope_key: string
  params: string
  started_at: number
  finished_at: number | null
  outcome: string
  stored: number
  requests: number
  error_code: string | null
  error_message: string | null
}

interface ScopeRowDb {
  id: number
  scope_key: string
  filters: string
  checkpoint: string | null
  coverage: string
  last_success_at: number | null
}

const FiltersJson = ScopeStatus.shape.filters

/** The change journal keeps this many writes, and at most this many touched ids. */
const JOURNAL_ENTRIES = 1000
const JOURNAL_TOUCHED = 200_000

function parseJson(text: string): unknown {
  return JSON.parse(text) as unknown
}

function storageError(message: string, cause: unknown): CallsightError {
  return new CallsightError('Storage', message, { cause })
}

/**
 * One account's call cache: a single SQLite file in WAL mode. Everything the sync engine
 * writes goes through writePage, which stores records, scope membership, the checkpoint and
 * the run's counts in one transaction, so a kill at any moment resumes without loss.
 */
export class CallCache {
  readonly db: Database.Database
  readonly file: string
  private readonly clock: Clock
  private readonly writer: RecordWriter | null
  private readonly scopeIds = new Map<string, number>()
  private writes = 0
  /** What each recent write changed, by generation (see changesSince). */
  private readonly journal: Array<{ generation: number; newFrom: number | null; touched: readonly number[] }> = []
  /** Generations at or below this one are not in the journal. */
  private journalFloor = 0
  /** Touched ids held by the journal, kept as entries come and go. */
  private journalTouched = 0
  private readonly pageTx: Database.Transaction<(inputs: readonly WritePageInput[]) => PageCounts[]>

  constructor(file: string, opts: CacheOpenOptions = {}) {
    this.file = file
    this.clock = opts.clock ?? systemClock
    try {
      // Under Electron the app passes its Electron-ABI build of better-sqlite3 (nativeBinding);
      // Node (tests, CLI) uses the one npm built.
      const native = opts.nativeBinding === undefined ? {} : { nativeBinding: opts.nativeBinding }
      this.db = new Database(file, opts.readonly ? { readonly: true, fileMustExist: true, ...native } : native)
    } catch (e) {
      throw storageError(`The cache file could not be opened (${file}).`, e)
    }
    try {
      this.configure(opts.readonly === true)
    } catch (e) {
      this.db.close()
      throw e
    }
    this.writer = opts.readonly ? null : new RecordWriter(this.db)
    this.pageTx = this.db.transaction((inputs: readonly WritePageInput[]) => this.writePagesInTx(inputs))
  }

  private configure(readonly: boolean): void {
    const db = this.db
    db.pragma('busy_timeout = 5000')
    db.pragma('foreign_keys = ON')
    db.pragma('cache_size = -65536')
    db.pragma('temp_store = MEMORY')
    // Reads straight from the page cache of the OS; 2 GB is SQLite's default ceiling.
    db.pragma('mmap_size = 2147418112')
    if (readonly) {
      const v = db.pragma('user_version', { simple: true }) as number
      if (v > SCHEMA_VERSION) migrate(db) // throws DatabaseTooNew without writing
      if (v < SCHEMA_VERSION) {
        throw new CallsightError('Storage', 'This cache must be opened once for writing to bring it up to date.')
      }
      return
    }
    db.pragma('journal_mode = WAL')
    db.pragma('synchronous = NORMAL')
    migrate(db)
    db.prepare("UPDATE sync_runs SET outcome = 'interrupted', finished_at = ? WHERE outcome = 'running'").run(this.clock.now())
  }

  private record(newFrom: number | null, touched: readonly number[]): void {
    this.journal.push({ generation: this.writes, newFrom, touched })
    this.journalTouched += touched.length
    while (this.journal.length > JOURNAL_ENTRIES || this.journalTouched > JOURNAL_TOUCHED) {
      const dropped = this.journal.shift()!
      this.journalTouched -= dropped.touched.length
      this.journalFloor = dropped.generation
    }
  }

  /**
   * What this connection's writes since `generation` changed: calls with ids from `newFrom`
   * on are new, `touched` ones were stored before and changed (content or scopes). Null when
   * that is not known (too long ago, or the cache was cleared): read everything again.
   * Other connections' writes are not in it; readers also watch PRAGMA data_version.
   */
  changesSince(generation: number): { newFrom: number | null; touched: number[] } | null {
    if (generation < this.journalFloor || generation > this.writes) return null
    let newFrom: number | null = null
    const touched: number[] = []
    for (const e of this.journal) {
      if (e.generation <= generation) continue
      if (e.newFrom !== null && (newFrom === null || e.newFrom < newFrom)) newFrom = e.newFrom
      for (const id of e.touched) touched.push(id)
    }
    return { newFrom, touched }
  }

  /** Changes whenever this connection wrote; search caches key on it. */
  get generation(): number {
    return this.writes
  }

  close(): void {
    if (this.db.open) this.db.close()
  }

  private requireWriter(): RecordWriter {
    if (!this.writer) throw new CallsightError('Storage', 'The cache was opened read-only.')
    return this.writer
  }

  private scopeId(scopeKey: string): number {
    let id = this.scopeIds.get(scopeKey)
    if (id === undefined) {
      id = this.db.prepare('SELECT id FROM sync_scopes WHERE scope_key = ?').pluck().get(scopeKey) as number | undefined
      if (id === undefined) throw new CallsightError('InvalidInput', `The sync scope "${scopeKey}" is not known to the cache.`)
      this.scopeIds.set(scopeKey, id)
    }
    return id
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
      this.writes++
      const writer = this.requireWriter()
      this.record(writer.newFrom, writer.touched)
      return counts
    } catch (e) {
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
      const scopeId = this.scopeId(input.scopeKey)
      out.push(writer.write(input.records, scopeId, input.includeAnalysis, now))
      this.db.prepare('UPDATE sync_scopes SET checkpoint = ? WHERE id = ?').run(
        input.checkpoint === null || input.checkpoint === undefined ? null : JSON.stringify(input.checkpoint),
        scopeId
      )
      if (input.runId !== undefined && input.runCounts) {
        this.db.prepare('UPDATE sync_runs SET stored = ?, requests = ? WHERE id = ?').run(input.runCounts.stored, input.runCounts.requests, input.runId)
      }
    }
    writer.finish()
    return out
  }

  ensureScope(scopeKey: string, filters: ScopeFilters): void {
    const json = JSON.stringify(FiltersJson.parse(filters))
    this.db
      .prepare('INSERT INTO sync_scopes (scope_key, filters) VALUES (?, ?) ON CONFLICT (scope_key) DO UPDATE SET filters = excluded.filters')
      .run(scopeKey, json)
    this.writes++
    this.record(null, [])
  }

  getCheckpoint(scopeKey: string): unknown {
    const raw = this.db.prepare('SELECT checkpoint FROM sync_scopes WHERE scope_key = ?').pluck().get(scopeKey) as string | null | undefined
    return raw === null || raw === undefined ? null : parseJson(raw)
  }

  setCheckpoint(scopeKey: string, checkpoint: unknown): void {
    const id = this.scopeId(scopeKey)
    this.db.prepare('UPDATE sync_scopes SET checkpoint = ? WHERE id = ?').run(
      checkpoint === null || checkpoint === undefined ? null : JSON.stringify(checkpoint),
      id
    )
  }

  addCoverage(scopeKey: string, from: number, to: number): void {
    const id = this.scopeId(scopeKey)
    this.db.transaction(() => {
      const raw = this.db.prepare('SELECT coverage FROM sync_scopes WHERE id = ?').pluck().get(id) as string
      const merged = mergeInterval(Intervals.parse(parseJson(raw)), [from, to])
      this.db.prepare('UPDATE sync_scopes SET coverage = ? WHERE id = ?').run(JSON.stringify(merged), id)
    }).immediate()
  }

  /** The covered intervals of a scope, merged and sorted. */
  coverage(scopeKey: string): Array<[number, number]> {
    const raw = this.db.prepare('SELECT coverage FROM sync_scopes WHERE scope_key = ?').pluck().get(scopeKey) as string | undefined
    return raw === undefined ? [] : Intervals.parse(parseJson(raw))
  }

  markScopeSuccess(scopeKey: string, at: number): void {
    this.db.prepare('UPDATE sync_scopes SET last_success_at = ? WHERE id = ?').run(at, this.scopeId(scopeKey))
  }

  /** Records a run as running; `id` is the caller's when it already names the run (the app's task id). */
  startRun(scopeKey: string, params: unknown, id: string = randomUUID()): string {
    this.db
      .prepare("INSERT INTO sync_runs (id, scope_key, params, started_at, outcome) VALUES (?, ?, ?, ?, 'running')")
      .run(id, scopeKey, JSON.stringify(params ?? null), this.clock.now())
    return id
  }

  finishRun(runId: string, outcome: SyncOutcome, counts: { stored: number; requests: number }, error?: AppErrorInfo): void {
    this.db
      .prepare('UPDATE sync_runs SET outcome = ?, finished_at = ?, stored = ?, requests = ?, error_code = ?, error_message = ? WHERE id = ?')
      .run(SyncOutcome.parse(outcome), this.clock.now(), counts.stored, counts.requests, error?.code ?? null, error?.message ?? null, runId)
  }

  recentRuns(limit: number): SyncRunInfo[] {
    const rows = this.db
      .prepare('SELECT * FROM sync_runs ORDER BY started_at DESC, rowid DESC LIMIT ?')
      .all(Math.max(0, Math.floor(limit))) as RunRowDb[]
    return rows.map((r) => ({
      runId: r.id,
      scopeKey: r.scope_key,
      params: parseJson(r.params),
      startedAt: r.started_at,
      finishedAt: r.finished_at,
      outcome: SyncOutcome.parse(r.outcome),
      stored: r.stored,
      requests: r.requests,
      error: r.error_code === null ? null : AppErrorInfo.parse({ code: r.error_code, message: r.error_message ?? '' })
    }))
  }

  upsertCallTypes(list: readonly CallType[]): void {
    const rows = z.array(CallType).parse(list)
    const put = this.db.prepare(
      'INSERT INTO call_types (value, description) VALUES (?, ?) ON CONFLICT (value) DO UPDATE SET description = excluded.description'
    )
    this.db.transaction(() => {
      for (const t of rows) put.run(t.value, t.description)
    }).immediate()
  }

  callTypes(): CallType[] {
    return this.db.prepare('SELECT value, description FROM call_types ORDER BY value').all() as CallType[]
  }

  /** Every scope with its filters, as stored. Search uses this to answer scope filters. */
  scopes(): Array<{ id: number; scopeKey: string; filters: ScopeFilters }> {
    const rows = this.db.prepare('SELECT id, scope_key, filters FROM sync_scopes ORDER BY id').all() as ScopeRowDb[]
    return rows.map((r) => ({ id: r.id, scopeKey: r.scope_key, filters: FiltersJson.parse(parseJson(r.filters)) }))
  }

  scopeStatuses(): ScopeStatus[] {
    const rows = this.db.prepare('SELECT * FROM sync_scopes ORDER BY id').all() as ScopeRowDb[]
    const lastOutcome = this.db.prepare('SELECT outcome FROM sync_runs WHERE scope_key = ? ORDER BY started_at DESC, rowid DESC LIMIT 1').pluck()
    const members = this.db.prepare('SELECT count(*) FROM scope_members WHERE scope = ?').pluck()
    return rows.map((r) => {
      const cov = Intervals.parse(parseJson(r.coverage))
      const outcome = lastOutcome.get(r.scope_key) as string | undefined
      return {
        scopeKey: r.scope_key,
        filters: FiltersJson.parse(parseJson(r.filters)),
        coveredFrom: cov.length ? cov[0]![0] : null,
        coveredTo: cov.length ? cov[cov.length - 1]![1] : null,
        lastSuccessAt: r.last_success_at,
        lastOutcome: outcome === undefined ? null : SyncOutcome.parse(outcome),
        calls: members.get(r.id) as number
      }
    })
  }

  info(): CacheInfo {
    let size = 0
    for (const f of [this.file, `${this.file}-wal`]) {
      try {
        size += statSync(f).size
      } catch {
        // The WAL file exists only while the database is open for writing.
      }
    }
    const calls = this.db.prepare('SELECT count(*) FROM calls').pluck().get() as number
    const last = this.db.prepare('SELECT max(last_success_at) FROM sync_scopes').pluck().get() as number | null
    return { path: this.file, sizeBytes: size, calls, lastSyncAt: last }
  }

  /**
   * Merges the full-text index into one segment. Each page commit adds a segment; a query
   * that probes the index row by row pays for every segment the term is in (measured:
   * ~0.5 ms per probe after 500 commits, ~4 µs after this). The sync engine calls it at
   * the end of a run; it costs about as much as ingesting the calls did once more.
   */
  optimizeIndex(): void {
    this.requireWriter()
    this.db.exec("INSERT INTO calls_fts (calls_fts) VALUES ('optimize')")
    this.writes++
    this.record(null, [])
  }

  /** Empties the cache (calls, scopes, runs, catalog) and gives the space back. */
  clear(): void {
    this.requireWriter().reset()
    this.db.transaction(() => {
      this.db.exec(`
        DELETE FROM scope_members; DELETE FROM analysis; DELETE FROM calls; DELETE FROM analysis_keys;
        DELETE FROM sync_scopes; DELETE FROM sync_runs; DELETE FROM call_types;
        DELETE FROM agg_hours; DELETE FROM agg_scope_hours; DELETE FROM agg_values;
        INSERT INTO calls_fts (calls_fts) VALUES ('delete-all');
      `)
    }).immediate()
    this.scopeIds.clear()
    this.writes++
    this.journal.length = 0
    this.journalTouched = 0
    this.journalFloor = this.writes
    this.db.exec('VACUUM')
    this.db.pragma('wal_checkpoint(TRUNCATE)')
  }

  getCall(callId: string): CallRecord | null {
    const row = this.db.prepare('SELECT * FROM calls WHERE call_id = ?').get(callId) as CallRowDb | undefined
    return row === undefined ? null : this.hydrate(row)
  }

  /** A stored row as its record, analysis in the order the service sent it. */
  hydrate(row: CallRowDb): CallRecord {
    const items = this.db
      .prepare(
        'SELECT k.key, k.friendly_name, a.value FROM analysis a JOIN analysis_keys k ON k.id = a.key_id WHERE a.call = ? ORDER BY a.ord'
      )
      .all(row.id) as AnalysisRowDb[]
    return toRecord(row, items)
  }
}

export interface CacheOpenOptions {
  clock?: Clock
  readonly?: boolean
  /** Path of a better-sqlite3 addon built for this runtime (Electron), when not npm's. */
  nativeBinding?: string
}

export function openCache(file: string, opts?: CacheOpenOptions): CallCache {
  return new CallCache(file, opts)
}
