import type pg from 'pg'
import {
  ScopeStatus,
  SUMMARY_PREVIEW_CHARS,
  type CallRecord,
  type CallRow,
  type CallType,
  type SearchPage,
  type SearchQuery,
  type TeamCount,
  type TeamCountMode
} from '../../shared/domain'
import { matchedIn, reachesAnalysis } from '../../shared/query'
import { parseNumeric, type ScopeRef } from '../cache'
import { CallsightError } from '../errors'
import { keyInfos, typeNamesOf } from '../search/query/catalog'
import { mapPgError, q } from './connection'
import { searchOffError, teamSearchState } from './pg-migration-8'
import { pulledCall } from './pulled-rows'
import { estimateCount, exactCount } from './team-count'
import { inTransaction } from './pg-transaction'
import { compileTeamQuery, type TeamCatalog, type TeamCompiled } from './team-query'

/**
 * Search of the team cache in place, for what a workstation does not hold: the query
 * language compiled to SQL (team-query.ts), run in a read-only transaction with a statement
 * timeout as the workstation's own team login (the reader role or an analyst's), the rows
 * masked by the PII guard as pulled rows are, in the local search's order and paging.
 */

export interface TeamSearchOptions {
  pool: pg.Pool
  schema: string
  /** Each statement's limit; a search over a large cache that takes longer is cancelled. */
  statementTimeoutMs?: number
  /** The exact count's own budget (team-count.ts); past it the count stays an estimate. */
  exactBudgetMs?: number
  /** Rows the estimate's sample reads. */
  sampleRows?: number
  /** The exact count from the count's postings where they give it (default); false: by SQL alone. */
  postings?: boolean
  /** A phrase's page gathered first when the planner expects few rows (default); false: as the planner likes (pageForm). */
  gatherPhrases?: boolean
}

export interface TeamSearchRequest {
  offset: number
  limit: number
  /**
   * Also count the matches (a second statement): `estimate` from a sample, quick at any size;
   * `exact` within its budget, an estimate again when it runs out.
   */
  count?: TeamCountMode | null
}

export interface TeamSearchResult {
  page: SearchPage
  /** The number of matches, an estimate or exact as its kind says; null when not asked for. */
  total: TeamCount | null
  /**
   * Calls written before the search columns existed and not yet filled (`team init` fills
   * them): no text or analysis term finds them until then.
   */
  unindexed: boolean
}

const DEFAULT_TIMEOUT_MS = 15_000
const MAX_LIMIT = 1000

/** Runs `work` in a read-only transaction with the statement timeout set for it alone. */
export async function readOnlyTransaction<T>(opts: TeamSearchOptions, work: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  let c: pg.PoolClient
  try {
    c = await opts.pool.connect()
  } catch (e) {
    throw mapPgError(e)
  }
  try {
    return await inTransaction(
      c,
      async () => {
        await c.query("SELECT set_config('statement_timeout', $1, true)", [String(opts.statementTimeoutMs ?? DEFAULT_TIMEOUT_MS)])
        return work(c)
      },
      // One snapshot for every statement: the count's postings, their marks and the rows agree.
      'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY'
    )
  } catch (e) {
    if ((e as { code?: string }).code === '57014')
      throw new CallsightError('Timeout', 'The team cache took too long to answer this search.', {
        cause: e,
        hint: 'Narrow it: a date range, a filter, or longer words.'
      })
    throw mapPgError(e)
  } finally {
    c.release()
  }
}

/** The scopes, the call type catalog and the analysis keys: what a query is compiled against. */
export async function readCatalog(c: pg.ClientBase, schema: string): Promise<TeamCatalog> {
  const s = q(schema)
  const scopeRows = await c.query<{ id: number; filters: string }>(`SELECT id, filters FROM ${s}.scopes ORDER BY id`)
  const scopes: ScopeRef[] = scopeRows.rows.map((r) => ({ id: r.id, filters: ScopeStatus.shape.filters.parse(JSON.parse(r.filters)) }))
  const types = await c.query<CallType>(`SELECT value, description FROM ${s}.call_types ORDER BY value`)
  const keyRows = await c.query<{ key: string; friendly_name: string; items: string; numeric_items: string }>(
    `SELECT key, friendly_name, items, numeric_items FROM ${s}.search_keys ORDER BY key, items DESC, friendly_name`
  )
  const keys = keyInfos(
    keyRows.rows.map((r, i) => ({
      id: i + 1,
      key: r.key,
      friendlyName: r.friendly_name,
      items: Number(r.items),
      numericItems: Number(r.numeric_items)
    }))
  )
  return { scopes, keys, typeNames: typeNamesOf(types.rows, scopes) }
}

const ROW_COLUMNS = 'c.call_id, c.call_at, c.call_date, c.title, c.summary, c.extra, c.analysis, c.seq'

function orderBy(order: TeamCompiled['order']): string {
  const dir = order === 'date_asc' ? '' : ' DESC'
  return `c.call_at${dir}, c.call_id COLLATE "C"${dir}`
}

/**
 * Up to this many rows by the planner's estimate, a phrase's page gathers its matches through
 * the GIN index and sorts them, where otherwise the planner may walk the date index. It counts
 * a phrase's rows as its words' AND (12,931 for a phrase in 443 of 5,000,000 calls), expects
 * the walk to meet 100 of them within the newest 40,000 rows, and reads a million (13 s). The
 * AND's candidates through the index and their recheck: ~4 µs each (64 ms for 16,540).
 */
export const GATHER_MAX_ROWS = 50_000

export type PageForm = 'planner' | 'gather'

/** How a page's statement is put: as the planner likes, or its matches gathered first (pure). */
export function pageForm(compiled: Pick<TeamCompiled, 'phrase'>, plannedRows: number | null): PageForm {
  return compiled.phrase && plannedRows !== null && plannedRows <= GATHER_MAX_ROWS ? 'gather' : 'planner'
}

/** The planner's estimate of the rows `where` selects (EXPLAIN: planned, not run). */
async function plannedRows(c: pg.ClientBase, schema: string, where: string, params: readonly unknown[]): Promise<number | null> {
  const r = await c.query<{ 'QUERY PLAN': Array<{ Plan?: { 'Plan Rows'?: number } }> }>(
    `EXPLAIN (FORMAT JSON) SELECT 1 FROM ${q(schema)}.calls c${where}`,
    [...params]
  )
  const rows = r.rows[0]?.['QUERY PLAN']?.[0]?.Plan?.['Plan Rows']
  return typeof rows === 'number' ? rows : null
}

/** A guarded record as the results list shows it; "matched in" as the local search computes it. */
function toRow(r: CallRecord, node: TeamCompiled['node']): CallRow {
  const row: CallRow = {
    callId: r.callId,
    callAt: r.callAt,
    callDate: r.callDate,
    title: r.title,
    // Characters (code points), as SQLite's substr cuts the local preview.
    summaryPreview: Array.from(r.summary).slice(0, SUMMARY_PREVIEW_CHARS).join(''),
    analysisCount: r.analysis.length
  }
  if (reachesAnalysis(node)) {
    const names = matchedIn(node, r.analysis, parseNumeric)
    if (names.length > 0) row.matchedIn = names
  }
  return row
}

/** A page of the query's matches over the team cache, newest (or oldest) first, and its count. */
export async function searchTeamCache(opts: TeamSearchOptions, query: SearchQuery, req: TeamSearchRequest): Promise<TeamSearchResult> {
  const offset = Math.max(0, Math.trunc(req.offset))
  const limit = Math.max(0, Math.min(MAX_LIMIT, Math.trunc(req.limit)))
  const s = q(opts.schema)
  return readOnlyTransaction(opts, async (c) => {
    if ((await teamSearchState(c, opts.schema)) === 'off') throw searchOffError(opts.schema)
    const compiled = compileTeamQuery(query, await readCatalog(c, opts.schema), opts.schema)
    const missing = await c.query<{ any: boolean }>(`SELECT EXISTS (SELECT 1 FROM ${s}.calls WHERE search IS NULL) AS any`)
    const unindexed = missing.rows[0]?.any === true
    if (compiled.empty) return { page: { offset, rows: [] }, total: req.count ? { kind: 'exact', n: 0 } : null, unindexed }
    const where = compiled.where.length > 0 ? ` WHERE ${compiled.where.join(' AND ')}` : ''
    const n = compiled.params.length
    // A count alone (limit 0) reads no page.
    let rows: { rows: unknown[] } = { rows: [] }
    if (limit > 0) {
      const form =
        compiled.phrase && opts.gatherPhrases !== false
          ? pageForm(compiled, await plannedRows(c, opts.schema, where, compiled.params))
          : 'planner'
      // OFFSET 0 plans the gathering on its own, without the order to tempt it into the date walk.
      const from = form === 'gather' ? `(SELECT ${ROW_COLUMNS} FROM ${s}.calls c${where} OFFSET 0) c` : `${s}.calls c${where}`
      const columns = form === 'gather' ? '*' : ROW_COLUMNS
      rows = await c.query(`SELECT ${columns} FROM ${from} ORDER BY ${orderBy(compiled.order)} LIMIT $${n + 1} OFFSET $${n + 2}`, [
        ...compiled.params,
        limit,
        offset
      ])
    }
    const page: SearchPage = { offset, rows: rows.rows.map((r) => toRow(pulledCall(r).record, compiled.node)) }
    let total: TeamCount | null = null
    if (req.count === 'estimate') total = await estimateCount(c, opts.schema, compiled, opts.sampleRows)
    else if (req.count === 'exact')
      total = await exactCount(c, opts.schema, compiled, {
        budgetMs: opts.exactBudgetMs,
        sampleRows: opts.sampleRows,
        postings: opts.postings
      })
    return { page, total, unindexed }
  })
}

/** One call of the team cache, masked, for the detail pane and exports; null when it has none. */
export async function teamCall(opts: TeamSearchOptions, callId: string): Promise<CallRecord | null> {
  return readOnlyTransaction(opts, async (c) => {
    const r = await c.query(`SELECT ${ROW_COLUMNS} FROM ${q(opts.schema)}.calls c WHERE c.call_id = $1`, [callId])
    return r.rows[0] ? pulledCall(r.rows[0]).record : null
  })
}
