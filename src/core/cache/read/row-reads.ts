import type Database from 'better-sqlite3'
import { SUMMARY_PREVIEW_CHARS, type CallRecord, type CallRow, type ReviewStatus } from '../../../shared/domain'
import { forEachId, hasAnalysisLists, namedItems } from '../analysis-lists'
import { connectionOf, type CallCache } from '../call-cache'
import type { NamedItem } from '../../../shared/query'
import { toRecord, type AnalysisRowDb, type CallRowDb } from '../records'
import { RecordBatches } from './record-batches'
import type { StatementCache } from './statements'
import type { KeyedRow, RowReads, SortKey, SqlPiece } from './types'

const ROW_COLUMNS = `c.call_id AS call_id, c.call_at AS call_at, c.call_date AS call_date, c.title AS title, substr(c.summary, 1, ${SUMMARY_PREVIEW_CHARS}) AS preview, c.analysis_count AS analysis_count, r.status AS r_status, r.tags AS r_tags, r.total AS r_total`
/** Export records hydrated together: one analysis read per this many calls. */
const RECORD_BATCH = 256

/** The call's annotation, when it has one (columns status, tags, score of the results list). */
const REVIEW_JOIN = 'LEFT JOIN annotations r ON r.call_id = c.call_id'

interface RowDb {
  call_id: string
  call_at: number
  call_date: string
  title: string
  preview: string
  analysis_count: number
  r_status: ReviewStatus | null
  r_tags: string | null
  r_total: number | null
}

function toRow(r: RowDb): CallRow {
  const row: CallRow = {
    callId: r.call_id,
    callAt: r.call_at,
    callDate: r.call_date,
    title: r.title,
    summaryPreview: r.preview,
    analysisCount: r.analysis_count
  }
  if (r.r_status !== null) row.review = { status: r.r_status, tags: JSON.parse(r.r_tags ?? '[]') as string[], total: r.r_total }
  return row
}

/** Page rows, keys and export records. */
export class SqliteRowReads implements RowReads {
  constructor(
    private readonly cache: CallCache,
    private readonly statements: StatementCache
  ) {}

  /** Each call's [call, key, friendly name, value] rows in item order, in the layout the schema has. */
  private namedRows(ids: readonly number[]): Array<[number, string, string, string]> {
    const db = connectionOf(this.cache)
    if (!hasAnalysisLists(db)) {
      // Schema 3–18 (a cache opened at an older version: benchmarks, migration tests).
      return this.statements
        .get(
          `SELECT a.call, k.key, k.friendly_name, a.value FROM analysis a JOIN analysis_keys k ON k.id = a.key_id
           WHERE a.call IN (SELECT value FROM json_each(?)) ORDER BY a.call, a.ord`,
          'raw'
        )
        .all(JSON.stringify(ids)) as Array<[number, string, string, string]>
    }
    const lists = this.statements
      .get('SELECT call, items FROM analysis_lists WHERE call IN (SELECT value FROM json_each(?)) ORDER BY call', 'raw')
      .all(JSON.stringify(ids)) as Array<[number, string]>
    const out: Array<[number, string, string, string]> = []
    for (const [call, named] of namedItems(db, lists)) for (const n of named) out.push([call, n.key, n.friendlyName, n.value])
    return out
  }

  firstKey(keys: SqlPiece): SortKey | null {
    const row = this.statements.get(keys.sql, 'raw').get(...keys.params) as SortKey | undefined
    return row ? ([row[0], row[1]] as SortKey) : null
  }

  eachKey(keys: SqlPiece, visit: (key: SortKey) => void): void {
    for (const row of this.statements.get(keys.sql, 'raw').iterate(...keys.params) as IterableIterator<SortKey>)
      visit([row[0], row[1]] as SortKey)
  }

  page(inner: SqlPiece, descending: boolean): KeyedRow[] {
    const dir = descending ? ' DESC' : ''
    const sql = `SELECT ${ROW_COLUMNS}, x.k0 AS k0, x.k1 AS k1 FROM (${inner.sql}) x CROSS JOIN calls c ON c.id = x.rid ${REVIEW_JOIN} ORDER BY x.k0${dir}, x.k1${dir}`
    const rows = this.statements.get(sql).all(...inner.params) as Array<RowDb & { k0: number; k1: string | number }>
    return rows.map((r) => ({ row: toRow(r), key: [r.k0, r.k1] as SortKey }))
  }

  byIds(ids: readonly number[]): CallRow[] {
    const rows = this.statements
      .get(`SELECT c.id AS id, ${ROW_COLUMNS} FROM calls c ${REVIEW_JOIN} WHERE c.id IN (SELECT value FROM json_each(?))`)
      .all(JSON.stringify(ids)) as Array<RowDb & { id: number }>
    const byId = new Map(rows.map((r) => [r.id, r]))
    return ids.flatMap((id) => {
      const r = byId.get(id)
      return r ? [toRow(r)] : []
    })
  }

  records(calls: SqlPiece): Iterable<CallRecord> {
    const { cache } = this
    const lists = (): Database.Statement =>
      this.statements.get('SELECT call, items FROM analysis_lists WHERE call IN (SELECT value FROM json_each(?))', 'raw')
    const hydrate = (rows: CallRowDb[]): CallRecord[] => this.hydrateBatch(rows)
    return {
      *[Symbol.iterator]() {
        // A statement of its own: the caller streams it while other statements run. The
        // analysis is read for a batch of calls at once: one statement per call (prepared
        // anew each time) was most of an export's time.
        const db = connectionOf(cache)
        const stmt = db.prepare(calls.sql)
        if (hasAnalysisLists(db)) {
          stmt.raw(true)
          const batches = new RecordBatches(
            db,
            lists(),
            stmt.columns().map((c) => c.name)
          )
          let rows: unknown[][] = []
          for (const row of stmt.iterate(...calls.params) as IterableIterator<unknown[]>) {
            rows.push(row)
            if (rows.length < RECORD_BATCH) continue
            yield* batches.records(rows)
            rows = []
          }
          if (rows.length > 0) yield* batches.records(rows)
          return
        }
        // Schema 3–18 (benchmarks, migration tests): the analysis rows, named by a join.
        let batch: CallRowDb[] = []
        for (const row of stmt.iterate(...calls.params) as IterableIterator<CallRowDb>) {
          batch.push(row)
          if (batch.length < RECORD_BATCH) continue
          yield* hydrate(batch)
          batch = []
        }
        if (batch.length > 0) yield* hydrate(batch)
      }
    }
  }

  /** Stored rows as records, their analysis read in one statement, in the order the service sent it. */
  private hydrateBatch(rows: readonly CallRowDb[]): CallRecord[] {
    const ids = rows.map((r) => r.id)
    const items = new Map<number, AnalysisRowDb[]>()
    if (ids.length > 0) {
      for (const [call, key, friendly_name, value] of this.namedRows(ids)) {
        let list = items.get(call)
        if (!list) items.set(call, (list = []))
        list.push({ key, friendly_name, value })
      }
    }
    return rows.map((r) => toRecord(r, items.get(r.id) ?? []))
  }

  keysIn(calls: SqlPiece): string[] {
    return connectionOf(this.cache)
      .prepare(
        `SELECT DISTINCT k.key FROM analysis_keys k JOIN analysis_values v ON v.key_id = k.id
         WHERE v.id IN (SELECT value FROM json_each(?))`
      )
      .pluck()
      .all(JSON.stringify(this.valueIdsIn(calls))) as string[]
  }

  /** The distinct value ids of the calls' lists. */
  private valueIdsIn(calls: SqlPiece): number[] {
    const ids = new Set<number>()
    const lists = connectionOf(this.cache)
      .prepare(`SELECT l.items FROM (${calls.sql}) x JOIN analysis_lists l ON l.call = x.id`)
      .pluck()
      .iterate(...calls.params) as Iterable<string>
    for (const list of lists) forEachId(list, (id) => ids.add(id))
    return [...ids]
  }

  items(callIds: readonly string[]): Map<string, NamedItem[]> {
    const calls = this.statements
      .get('SELECT id, call_id FROM calls WHERE call_id IN (SELECT value FROM json_each(?))', 'raw')
      .all(JSON.stringify(callIds)) as Array<[number, string]>
    const callIdOf = new Map(calls)
    const out = new Map<string, NamedItem[]>()
    for (const [call, key, friendlyName, value] of this.namedRows(calls.map((c) => c[0]))) {
      const callId = callIdOf.get(call)!
      let list = out.get(callId)
      if (!list) out.set(callId, (list = []))
      list.push({ key, friendlyName, value })
    }
    return out
  }

  record(callId: string): CallRecord | null {
    return this.cache.getCall(callId)
  }
}
