import type Database from 'better-sqlite3'
import {
  AnalysisKeyInfo,
  ExportSelection,
  SearchQuery,
  type CallRecord,
  type CallRow,
  type Facets,
  type SearchPage
} from '../../shared/domain'
import type { CallCache } from '../cache'
import type { CallRowDb } from '../cache/records'
import { CallsightError } from '../errors'
import { ANCHOR_STEP, QueryState, StateCache } from './anchors'
import { compileQuery, type CompiledQuery } from './compile'
import { CallColumns } from './columns'
import { FacetCounter, MatchSet, matchedIds } from './facets'
import { idsInRanges } from './selection'
import { buildSelect, choosePlan, Estimator, keyColumns, walkThreshold, type Estimate, type PlanKind, type SortKey } from './plan'
import { StatementCache } from './statements'

/** A key is numeric when at least this share of its values parse as numbers. */
const NUMERIC_SHARE = 0.95
/** Below this many records, export lists exactly the analysis keys the selection holds. */
const EXACT_KEYS_LIMIT = 50_000
const MAX_LIMIT = 1000
/** A walk-plan page this far from a known position is served from the query's match bitmap (pageFromBits). */
const LONG_JUMP = 20 * ANCHOR_STEP

const ROW_COLUMNS = 'c.call_id AS call_id, c.call_at AS call_at, c.call_date AS call_date, c.title AS title, substr(c.summary, 1, 240) AS preview, c.analysis_count AS analysis_count'

interface PageRowDb {
  call_id: string
  call_at: number
  call_date: string
  title: string
  preview: string
  analysis_count: number
  k0: number
  k1: string | number
}

function toRow(r: PageRowDb): CallRow {
  return {
    callId: r.call_id,
    callAt: r.call_at,
    callDate: r.call_date,
    title: r.title,
    summaryPreview: r.preview,
    analysisCount: r.analysis_count
  }
}

export interface ExportIteration {
  total: number
  analysisKeys: Array<{ key: string; friendlyName: string }>
  records: Iterable<CallRecord>
}

export interface LocalSearch {
  page(query: SearchQuery, offset: number, limit: number): SearchPage
  count(query: SearchQuery): number
  facets(query: SearchQuery, analysisKey: string | null, zone: string): Facets
  analysisKeys(): AnalysisKeyInfo[]
  get(callId: string): CallRecord | null
  iterate(selection: ExportSelection): ExportIteration
  /** Forgets counts, anchors and estimates (benchmarks measure cold queries with it). */
  resetCaches(): void
  /** The plan the next page of this query would use (for tests, benchmarks and docs). */
  explain(query: SearchQuery, limit: number): { plan: PlanKind; estimate: number; total: number }
}

function invalid(e: unknown): CallsightError {
  return new CallsightError('InvalidInput', 'The search is not valid.', { cause: e })
}

class SqliteSearch implements LocalSearch {
  private readonly db: Database.Database
  private readonly statements: StatementCache
  private readonly states = new StateCache(16)
  private readonly estimator: Estimator
  private generation = -1
  private totalCalls = 0
  private readonly estimates = new Map<string, Estimate>()
  private readonly facetCounter: FacetCounter
  private readonly columns: CallColumns

  constructor(
    private readonly cache: CallCache,
    private readonly longJump = LONG_JUMP,
    facetScanShare?: number
  ) {
    this.db = cache.db
    this.statements = new StatementCache(this.db)
    this.estimator = new Estimator(this.db)
    this.columns = new CallColumns(cache, () => this.db.pragma('data_version', { simple: true }) as number)
    this.facetCounter = new FacetCounter(cache, this.statements, this.columns, facetScanShare)
  }

  /** Moves with every write: this connection's own, and other connections' (data_version). */
  private dataStamp(): number {
    return this.cache.generation * 1e9 + (this.db.pragma('data_version', { simple: true }) as number)
  }

  /** Drops what was learnt about queries once the data changed. */
  private fresh(): void {
    const g = this.dataStamp()
    if (g === this.generation) return
    this.generation = g
    this.states.clear()
    this.estimates.clear()
    // Rows are never deleted one by one (only clear() empties the table), so the largest id
    // is the number of calls, read in O(1). The planner only needs its magnitude anyway.
    this.totalCalls = this.db.prepare('SELECT coalesce(max(id), 0) FROM calls').pluck().get() as number
  }

  private parse(query: SearchQuery): SearchQuery {
    const r = SearchQuery.safeParse(query)
    if (!r.success) throw invalid(r.error)
    return r.data
  }

  private prepare(query: SearchQuery): { q: CompiledQuery; state: QueryState; estimate: number; matchIds: string | null } {
    this.fresh()
    const q = compileQuery(this.cache, this.parse(query), { expand: (p) => this.estimator.expand(p, this.dataStamp()) })
    const stateKey = JSON.stringify([q.where, q.params, q.match, q.sort])
    const plan: PlanKind = q.match === null ? 'scan' : q.sort === 'relevance' && q.hasUserText ? 'relevance' : 'walk'
    let estimate = this.estimates.get(stateKey)
    if (estimate === undefined) {
      // Counted just past the walk threshold for a page of 100: all a plan needs to know.
      // Relevance order has one plan whatever the count: nothing to count for it.
      const cap = walkThreshold(this.totalCalls, 100) + 1
      estimate =
        q.match === null
          ? { n: this.totalCalls, ids: null }
          : plan === 'relevance'
            ? { n: Number.NaN, ids: null }
            : this.estimator.boundedCount(q.match, cap)
      this.estimates.set(stateKey, estimate)
    }
    // Anchors depend only on the order, which walk and fts share; relevance has its own.
    const state = this.states.get(`${plan === 'relevance' ? 'r' : 'd'}${stateKey}`, () => new QueryState(plan))
    return { q, state, estimate: estimate.n, matchIds: estimate.ids }
  }

  resetCaches(): void {
    this.generation = -1
  }

  explain(query: SearchQuery, limit: number): { plan: PlanKind; estimate: number; total: number } {
    const { q, estimate } = this.prepare(query)
    return { plan: choosePlan(q, estimate, this.totalCalls, limit), estimate, total: this.totalCalls }
  }

  page(query: SearchQuery, offset: number, limit: number): SearchPage {
    if (!Number.isInteger(offset) || offset < 0 || !Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
      throw new CallsightError('InvalidInput', 'The page asked for is out of range.')
    }
    const { q, state, estimate, matchIds } = this.prepare(query)
    if (q.empty || (state.count !== null && offset >= state.count)) return { offset, rows: [] }
    const plan = choosePlan(q, estimate, this.totalCalls, limit)
    // From the match bitmap: a long jump (building the bitmap), any jump past an anchor step
    // once the bitmap exists (the count may have built it), and every page of a prefix too
    // wide to probe row by row. Reading on stays with the date-index walk: it needs no
    // in-memory date order, which a write drops.
    const gap = offset - state.nearest(offset).position
    if (plan === 'walk' && (q.costlyProbe || gap >= this.longJump || (state.matches?.read === true && gap >= ANCHOR_STEP))) {
      return this.pageFromBits(q, state, offset, limit)
    }
    const ids = plan === 'fts' ? matchIds : null
    const start = this.seek(q, state, plan, offset, ids)
    if (start === null) return { offset, rows: [] }
    // Order and cut on the keys alone, then read the page's rows: a sort then carries
    // three small values per match instead of the displayed columns.
    const inner = buildSelect(q, plan, `c.id AS rid, ${keyColumns(plan)}`, start.key, `LIMIT ${limit} OFFSET ${start.skip}`, ids)
    const dir = q.sort === 'date_asc' || plan === 'relevance' ? '' : ' DESC'
    const sel = {
      sql: `SELECT ${ROW_COLUMNS}, x.k0 AS k0, x.k1 AS k1 FROM (${inner.sql}) x CROSS JOIN calls c ON c.id = x.rid ORDER BY x.k0${dir}, x.k1${dir}`,
      params: inner.params
    }
    const rows = this.statements.get(sel.sql).all(...sel.params) as PageRowDb[]
    const last = rows[rows.length - 1]
    if (last) state.remember(offset + rows.length, [last.k0, last.k1] as SortKey)
    return { offset, rows: rows.map(toRow) }
  }

  /**
   * The key to start after, and how many rows to skip from there, for `offset`. From the
   * nearest known position, one jump lands on the last anchor boundary at or below the
   * offset (date-index plans: LIMIT 1 OFFSET n, index-only inside SQLite; sorted plans:
   * one ordered read of the keys), and the page then skips fewer than ANCHOR_STEP rows.
   */
  private seek(q: CompiledQuery, state: QueryState, plan: PlanKind, offset: number, matchIds: string | null): { key: SortKey | null; skip: number } | null {
    const near = state.nearest(offset)
    const position = near.position
    let key = near.key
    if (offset - position < ANCHOR_STEP) return { key, skip: offset - position }
    const target = Math.floor(offset / ANCHOR_STEP) * ANCHOR_STEP
    if (plan === 'scan' || plan === 'walk') {
      const sel = buildSelect(q, plan, keyColumns(plan), key, `LIMIT 1 OFFSET ${target - position - 1}`)
      const row = this.statements.get(sel.sql).get(...sel.params) as { k0: number; k1: string | number } | undefined
      if (!row) return null
      key = [row.k0, row.k1] as SortKey
    } else {
      const sel = buildSelect(q, plan, keyColumns(plan), key, `LIMIT ${target - position}`, matchIds)
      const stmt = this.statements.get(sel.sql).raw(true)
      let pos = position
      try {
        for (const row of stmt.iterate(...sel.params) as IterableIterator<[number, string | number]>) {
          pos++
          key = [row[0], row[1]] as SortKey
          if (pos % ANCHOR_STEP === 0) state.setAnchor(pos / ANCHOR_STEP, key)
        }
      } finally {
        stmt.raw(false)
      }
      if (pos < target) return null
    }
    if (key === null) return null
    state.setAnchor(target / ANCHOR_STEP, key)
    return { key, skip: offset - target }
  }

  /**
   * A page in date order from the query's match bitmap (one read of the match list, kept
   * with the query) and the ids in date order held in memory: the page's ids are found by
   * a walk of a few ns a call, then read by id. SQLite would build the match set for the
   * statement and test the date index against it row by row (~200 ms at 500,000 rows deep
   * in 1,000,000 calls), or probe FTS5 once per row from the nearest anchor.
   */
  private pageFromBits(q: CompiledQuery, state: QueryState, offset: number, limit: number): SearchPage {
    const bits = this.matchesOf(q, state).bitmap(this.totalCalls + 1)
    if (bits === null) return { offset, rows: [] }
    const order = this.columns.byDate()
    const ids: number[] = []
    let seen = 0
    const take = (id: number): boolean => {
      if (bits[id] !== 1) return false
      if (seen++ >= offset) ids.push(id)
      return ids.length === limit
    }
    if (q.sort === 'date_asc') {
      for (let i = 0; i < order.length; i++) if (take(order[i]!)) break
    } else {
      for (let i = order.length - 1; i >= 0; i--) if (take(order[i]!)) break
    }
    if (ids.length < limit && state.count === null) state.count = seen
    if (ids.length === 0) return { offset, rows: [] }
    const rows = this.statements
      .get(`SELECT c.id AS id, ${ROW_COLUMNS} FROM calls c WHERE c.id IN (SELECT value FROM json_each(?))`)
      .all(JSON.stringify(ids)) as Array<PageRowDb & { id: number }>
    const byId = new Map(rows.map((r) => [r.id, r]))
    return { offset, rows: ids.flatMap((id) => { const r = byId.get(id); return r ? [toRow(r)] : [] }) }
  }

  private matchesOf(q: CompiledQuery, state: QueryState): MatchSet {
    return (state.matches ??= new MatchSet(matchedIds(q), this.statements))
  }

  count(query: SearchQuery): number {
    const { q, state, estimate, matchIds } = this.prepare(query)
    if (q.empty) return 0
    if (state.count !== null) return state.count
    if (matchIds !== null && q.where.length === 0) state.count = estimate
    else if (q.match !== null && estimate > walkThreshold(this.totalCalls, 100)) {
      // A common word: its match list costs ~3× the bare count, and it is what its facets and
      // deep pages need, so the count (which the app asks for with the first page) reads it;
      // they then use it as it is, and the first drag of the scrollbar is as fast as the next.
      state.count = this.matchesOf(q, state).list()?.length ?? this.countOf(q, estimate)
    } else state.count = this.countOf(q, estimate)
    return state.count
  }

  private countOf(q: CompiledQuery, estimate: number): number {
    const where = q.where.length ? ` WHERE ${q.where.join(' AND ')}` : ''
    if (q.match === null) return this.statements.get(`SELECT count(*) FROM calls c${where}`).pluck().get(...q.params) as number
    if (q.where.length === 0) {
      return this.statements.get('SELECT count(*) FROM calls_fts WHERE calls_fts MATCH ?').pluck().get(q.match) as number
    }
    // Many matches: test the other filters on the date index against the match set; few:
    // start from the matches.
    const sql =
      estimate > walkThreshold(this.totalCalls, 100)
        ? `SELECT count(*) FROM calls c WHERE c.id IN (SELECT rowid FROM calls_fts WHERE calls_fts MATCH ?) AND ${q.where.join(' AND ')}`
        : `SELECT count(*) FROM calls_fts CROSS JOIN calls c ON c.id = calls_fts.rowid WHERE calls_fts MATCH ? AND ${q.where.join(' AND ')}`
    return this.statements.get(sql).pluck().get(q.match, ...q.params) as number
  }

  facets(query: SearchQuery, analysisKey: string | null, zone: string): Facets {
    const total = this.count(query)
    const { q, state } = this.prepare(query)
    const info = analysisKey === null ? undefined : this.analysisKeys().find((k) => k.key === analysisKey)
    return this.facetCounter.compute(q, total, this.totalCalls, analysisKey, info, zone, this.matchesOf(q, state))
  }

  analysisKeys(): AnalysisKeyInfo[] {
    const rows = this.db
      .prepare('SELECT key, friendly_name, items, numeric_items FROM analysis_keys WHERE items > 0 ORDER BY key, items DESC, id')
      .all() as Array<{ key: string; friendly_name: string; items: number; numeric_items: number }>
    const out = new Map<string, { info: AnalysisKeyInfo; numeric: number }>()
    for (const r of rows) {
      const cur = out.get(r.key)
      if (!cur) out.set(r.key, { info: { key: r.key, friendlyName: r.friendly_name, numeric: false, calls: r.items }, numeric: r.numeric_items })
      else {
        cur.info.calls += r.items
        cur.numeric += r.numeric_items
      }
    }
    return [...out.values()].map(({ info, numeric }) => AnalysisKeyInfo.parse({ ...info, numeric: numeric >= NUMERIC_SHARE * info.calls }))
  }

  get(callId: string): CallRecord | null {
    return this.cache.getCall(callId)
  }

  iterate(selection: ExportSelection): ExportIteration {
    const parsed = ExportSelection.safeParse(selection)
    if (!parsed.success) throw invalid(parsed.error)
    const given = parsed.data
    const sel =
      given.kind === 'ranges' ? { kind: 'ids' as const, ids: idsInRanges((offset, limit) => this.page(given.query, offset, limit), given.ranges) } : given
    let rowsSql: string
    let params: unknown[]
    let total: number
    if (sel.kind === 'ids') {
      const json = JSON.stringify(sel.ids)
      // The user's own order, each call once.
      const from = 'FROM (SELECT value AS call_id, min(key) AS pos FROM json_each(?) GROUP BY value) j JOIN calls c ON c.call_id = j.call_id'
      total = this.db.prepare(`SELECT count(*) ${from}`).pluck().get(json) as number
      rowsSql = `SELECT c.* ${from} ORDER BY j.pos`
      params = [json]
    } else {
      const { q } = this.prepare(sel.query)
      total = q.empty ? 0 : this.count(sel.query)
      // Export reads every match anyway: take them from FTS5 and sort, never probe per row.
      const plan: PlanKind = q.match === null ? 'scan' : q.sort === 'relevance' && q.hasUserText ? 'relevance' : 'fts'
      const s = buildSelect(q, plan, 'c.*', null)
      rowsSql = q.empty ? 'SELECT * FROM calls WHERE 0' : s.sql
      params = q.empty ? [] : s.params
    }
    const keys = this.exportKeys(rowsSql, params, total)
    const cache = this.cache
    const db = this.db
    const records: Iterable<CallRecord> = {
      *[Symbol.iterator]() {
        for (const row of db.prepare(rowsSql).iterate(...params) as IterableIterator<CallRowDb>) yield cache.hydrate(row)
      }
    }
    return { total, analysisKeys: keys, records }
  }

  /** Columns for a wide export: the keys the selection holds, or every key when it is large. */
  private exportKeys(rowsSql: string, params: unknown[], total: number): Array<{ key: string; friendlyName: string }> {
    const all = this.analysisKeys()
    if (total > EXACT_KEYS_LIMIT) return all.map((k) => ({ key: k.key, friendlyName: k.friendlyName }))
    const present = new Set(
      this.db
        .prepare(`SELECT DISTINCT k.key FROM (${rowsSql}) x JOIN analysis a ON a.call = x.id JOIN analysis_keys k ON k.id = a.key_id`)
        .pluck()
        .all(...params) as string[]
    )
    return all.filter((k) => present.has(k.key)).map((k) => ({ key: k.key, friendlyName: k.friendlyName }))
  }
}

/**
 * `tuning.longJump`: rows from which a jump uses the match set; `tuning.facetScanShare`: the
 * share of all calls above which facets count against the in-memory columns (tests move both).
 */
export function createSearch(cache: CallCache, tuning: { longJump?: number; facetScanShare?: number } = {}): LocalSearch {
  return new SqliteSearch(cache, tuning.longJump ?? LONG_JUMP, tuning.facetScanShare)
}
