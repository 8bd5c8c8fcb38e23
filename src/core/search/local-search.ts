import { IANAZone } from 'luxon'
import {
  ExportSelection,
  SearchQuery,
  type AnalysisKeyInfo,
  type Breakdown,
  type CallRecord,
  type ColumnInfo,
  type ColumnSort,
  type Facets,
  type QueryCoverage,
  type ResultColumn,
  type SearchPage,
  type Trend,
  type TrendBucket,
  type TrendMeasure,
  type ValueSuggestions
} from '../../shared/domain'
import { createReviewReads, createSearchReader, type CallCache, type ReviewReads, type SearchReader } from '../cache'
import { CallsightError } from '../errors'
import { StateCache, type QueryState } from './anchors'
import { SearchCatalog } from './catalog'
import { CallColumns } from './columns'
import { compileQuery, type CompiledQuery, type QueryCatalog } from './compile'
import { BitmapEvaluator, evaluable } from './bitmap-eval'
import { queryCoverage } from './coverage'
import { DataWatch, PerVersion } from './data-watch'
import { exportIteration, type ExportIteration } from './export-iteration'
import { FacetCounter } from './facets'
import { breakdownBars, trendPoints, type Matched } from './insight-series'
import { MatchSet } from './match-set'
import { Pager } from './pager'
import {
  choosePlan,
  estimateCap,
  LONG_JUMP,
  needsEstimate,
  REVIEW_FEW,
  reviewCap,
  walkThreshold,
  type Estimate,
  type PagePlan,
  type PlanKind
} from './plan'
import { idsInRanges } from './selection'
import { countSql, matchedIds } from './sql'
import { positionAt, ViewColumns } from './view-columns'
import { mergeFolded } from './folded-values'
import { foldText } from '../../shared/text/fold'
import { withMatchedIn } from './matched-in'
import { reviewDatePage } from './review-page'
import { evaluateWithReview, reviewEvaluable, ReviewSet } from './review-set'
import { PROBE_MAX, probeSorted } from './sorted-probe'
import { windowPage } from './window-page'

export type { ExportIteration } from './export-iteration'

/** The largest page a caller may ask for. */
const MAX_LIMIT = 1000
/** Pages from this offset on come from the whole match list, not a window of the newest calls. */
const WINDOW_MAX_OFFSET = 1000
/** The share of calls a query without a text estimate is taken to match, to size its first window. */
const WINDOW_SHARE = 0.05
/** Recent queries whose memory (estimate, count, anchors, match list) is kept. */
const QUERIES_KEPT = 16

/** How the results list shows a page: sorted by a chosen column, with the chosen columns' values. */
export interface PageView {
  sortBy?: ColumnSort | null
  columns?: readonly ResultColumn[]
}

export interface LocalSearch {
  page(query: SearchQuery, offset: number, limit: number, view?: PageView): SearchPage
  /** The columns the results list can show and sort by. */
  resultColumns(): ColumnInfo[]
  count(query: SearchQuery): number
  /** Which synced scopes answer the query, and what of it none does (docs/cache.md, "Coverage"). */
  coverage(query: SearchQuery): QueryCoverage
  /** A call type Value with its Description, for messages: "Refund (İade Talebi)". */
  describeType(value: string): string
  facets(query: SearchQuery, analysisKey: string | null, zone: string): Facets
  analysisKeys(): AnalysisKeyInfo[]
  /** Insight: the query's calls per value of a column. */
  breakdown(query: SearchQuery, column: ResultColumn): Breakdown
  /** Insight: a column's mean (numeric) or one value's share per day or week of the zone. */
  trend(query: SearchQuery, column: ResultColumn, measure: TrendMeasure, bucket: TrendBucket, zone: string): Trend
  /**
   * The values of one analysis key among a query's matches, for the filter's value box; with
   * `contains`, only values whose folded text contains it (the box's typed text), so a value
   * beyond the 100 most frequent is found.
   */
  values(query: SearchQuery, key: string, contains?: string): ValueSuggestions
  get(callId: string): CallRecord | null
  iterate(selection: ExportSelection): ExportIteration
  /** Forgets counts, anchors and estimates (benchmarks measure cold queries with it). */
  resetCaches(): void
  /** The plan the first page of this query would use (for tests, benchmarks and docs). */
  explain(query: SearchQuery, limit: number): { plan: PlanKind | 'review-set'; estimate: number; total: number }
}

function invalid(e: unknown): CallsightError {
  return new CallsightError('InvalidInput', 'The search is not valid.', { cause: e })
}

/** A query compiled, with what it remembers and its match estimate. */
interface Prepared {
  query: SearchQuery
  catalog: QueryCatalog
  q: CompiledQuery
  state: QueryState
  estimate: Estimate
}

/**
 * Local search over one cache: compile (pure) → plan (pure, one function) → read (through
 * the cache's SearchReader). Every cache it keeps follows the one data version (DataWatch).
 */
class SearchOverCache implements LocalSearch {
  private readonly catalog: SearchCatalog
  private readonly queries: PerVersion<StateCache>
  private readonly columns: CallColumns
  private readonly facetCounter: FacetCounter
  private readonly pager: Pager
  private readonly view: ViewColumns
  /** Counts and match lists in memory (bitmap-eval.ts); null: SQL only (the bench's baseline). */
  private readonly bitmaps: BitmapEvaluator | null
  /** Review filters in memory (review-set.ts); null: SQL only (the bench's baseline). */
  private readonly reviews: ReviewSet | null

  constructor(
    private readonly reader: SearchReader,
    private readonly longJump: number,
    facetScanShare: number | undefined,
    bitmaps: boolean,
    private readonly reviewFew: number,
    reviewReads: ReviewReads | null,
    private readonly reviewProbeMax: number | undefined
  ) {
    const watch = new DataWatch(reader.data)
    this.catalog = new SearchCatalog(reader.catalog, reader.data, watch)
    this.queries = new PerVersion(watch, () => new StateCache(QUERIES_KEPT))
    this.columns = new CallColumns(reader.columns, watch)
    this.facetCounter = new FacetCounter(reader, this.columns, facetScanShare)
    this.pager = new Pager(reader.rows, this.columns)
    this.view = new ViewColumns(reader.view, this.columns, this.catalog, watch)
    const m = reader.matches
    this.bitmaps = bitmaps
      ? new BitmapEvaluator(
          {
            ftsIds: (match, b) => m.ftsIds(match, b),
            idsInTime: (a, b) => m.idsInTime(a, b),
            membersOf: (s) => reader.columns.membersOf(s)
          },
          this.columns,
          watch
        )
      : null
    this.reviews = bitmaps && reviewReads ? new ReviewSet(reviewReads, watch, () => this.columns.byDate()) : null
  }

  /**
   * The query's matches as a byte per id from memory, when the bitmap evaluator takes it (with
   * a review filter: ANDed with the annotations held in memory); `within` as evaluate's.
   */
  /** Whether a date-order page of this query comes from the annotations in memory (review-page.ts). */
  private reviewsTake(p: Prepared, plan: PagePlan): boolean {
    return this.reviews !== null && reviewEvaluable(p.query) && plan.kind !== 'nothing' && plan.kind !== 'relevance'
  }

  private evaluator(p: Prepared): ((within?: readonly [number, number] | null) => Uint8Array) | null {
    const bitmaps = this.bitmaps
    if (bitmaps === null) return null
    const rest = (within: readonly [number, number] | null = null): Uint8Array => bitmaps.evaluate(p.query, p.q, p.catalog, within)
    if (evaluable(p.query)) return rest
    const reviews = this.reviews
    if (reviews !== null && reviewEvaluable(p.query)) return (within = null) => evaluateWithReview(rest, reviews, p.query, within)
    return null
  }

  private prepare(query: SearchQuery): Prepared {
    const r = SearchQuery.safeParse(query)
    if (!r.success) throw invalid(r.error)
    const catalog = this.catalog.forText(r.data.text)
    const q = compileQuery(r.data, catalog)
    const state = this.queries.get().get(q.key)
    state.estimate ??= this.estimate(q, r.data)
    return { query: r.data, catalog, q, state, estimate: state.estimate }
  }

  /** The query's matches counted just past the walk threshold (all a plan needs), when a plan needs them. */
  private estimate(q: CompiledQuery, query: SearchQuery): Estimate {
    const total = this.catalog.totalCalls()
    if (!needsEstimate(q)) return { n: q.match === null ? total : Number.NaN, ids: null }
    // Review candidates from SQL only for the SQL plans: in memory, the review set counts them.
    if (q.match === null && this.reviews !== null && reviewEvaluable(query)) return { n: Number.NaN, ids: null }
    if (q.match === null) return this.reader.matches.boundedIds(q.candidates!, reviewCap(q, total, this.reviewFew))
    return this.reader.matches.boundedMatches(q.match, estimateCap(total))
  }

  private matchesOf(p: Prepared): MatchSet {
    const evaluate = this.evaluator(p) ?? undefined
    return (p.state.matches ??= new MatchSet(matchedIds(p.q), this.reader.matches, evaluate && (() => evaluate())))
  }

  resetCaches(): void {
    this.queries.reset()
    this.reviews?.reset()
  }

  coverage(query: SearchQuery): QueryCoverage {
    const r = SearchQuery.safeParse(query)
    if (!r.success) throw invalid(r.error)
    return queryCoverage(r.data, this.catalog.scopes(), this.catalog.typeNames(), this.catalog.analysisKeys())
  }

  describeType(value: string): string {
    return this.catalog.typeNames().describe(value)
  }

  explain(query: SearchQuery, limit: number): { plan: PlanKind | 'review-set'; estimate: number; total: number } {
    const p = this.prepare(query)
    const { q, estimate } = p
    const total = this.catalog.totalCalls()
    const plan = choosePlan(q, estimate, total, { for: 'page', limit, gap: 0, bitmapRead: false, longJump: this.longJump })
    // A review filter in memory (datePageOf): named 'review-set'.
    return { plan: this.reviewsTake(p, plan) ? 'review-set' : plan.kind, estimate: estimate.n, total }
  }

  page(query: SearchQuery, offset: number, limit: number, view: PageView = {}): SearchPage {
    if (!Number.isInteger(offset) || offset < 0 || !Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
      throw new CallsightError('InvalidInput', 'The page asked for is out of range.')
    }
    const page = view.sortBy ? this.columnPage(query, view.sortBy, offset, limit) : this.datePage(query, offset, limit)
    if (!view.columns || view.columns.length === 0) return page
    return { ...page, cells: this.view.cells(page.rows, view.columns) }
  }

  resultColumns(): ColumnInfo[] {
    return this.view.list()
  }

  /**
   * A page in a chosen column's order: positions in the column's sorted ids (view-columns.ts),
   * the query's matches tested along them through its match bitmap. Keyset paging as for
   * the date order: the query remembers, per page served, the position in the sorted ids it
   * ended at, so reading on starts there and a jump starts from the nearest one known.
   */
  private columnPage(query: SearchQuery, sortBy: ColumnSort, offset: number, limit: number): SearchPage {
    const p = this.prepare(query)
    if (p.q.empty) return { offset, rows: [] }
    const sorted = this.view.sortedBy(sortBy.column)
    const total = this.catalog.totalCalls()
    const ids: number[] = []
    if (p.q.match === null && p.q.where.length === 0) {
      for (let i = offset; i < Math.min(sorted.order.length, offset + limit); i++) ids.push(positionAt(sorted, sortBy.dir, i))
      return { offset, rows: ids.length === 0 ? [] : this.reader.rows.byIds(ids) }
    }
    const state = this.queries.get().get(`${p.q.key}\u0000${sortBy.column}\u0000${sortBy.dir}\u0000${this.view.versionOf(sortBy.column)}`)
    const near = state.nearest(offset)
    const start = near.key === null ? 0 : near.key[0] + 1
    const at = (i: number): number => positionAt(sorted, sortBy.dir, i)
    // Near a known position, with the match list not read (a common word's first pages): ask
    // SQL about the next candidates in batches, as the walk plan asks FTS5 about each row,
    // instead of reading every match first. A rare match list is cheap to read: read it.
    const rare = p.q.match !== null && p.estimate.n <= walkThreshold(total, limit)
    const far = offset - near.position >= PROBE_MAX / 2
    const probed =
      this.matchesOf(p).read || rare || far
        ? null
        : probeSorted(this.reader, p.q, at, sorted.order.length, start, offset - near.position, limit)
    let end: number
    if (probed !== null) {
      ids.push(...probed.ids)
      end = probed.end
    } else {
      const bits = this.matchesOf(p).bitmap(total + 1)!
      let seen = near.position
      let i = start
      for (; i < sorted.order.length && ids.length < limit; i++) {
        const id = at(i)
        if (bits[id] !== 1) continue
        if (seen++ >= offset) ids.push(id)
      }
      end = i
    }
    if (ids.length > 0) state.remember(offset + ids.length, [end - 1, 0])
    return { offset, rows: ids.length === 0 ? [] : this.reader.rows.byIds(ids) }
  }

  private datePage(query: SearchQuery, offset: number, limit: number): SearchPage {
    const p = this.prepare(query)
    const { q, state, estimate } = p
    if (state.count !== null && offset >= state.count) return { offset, rows: [] }
    const total = this.catalog.totalCalls()
    const gap = offset - state.nearest(offset).position
    const plan = choosePlan(q, estimate, total, {
      for: 'page',
      limit,
      gap,
      bitmapRead: state.matches?.read === true,
      longJump: this.longJump
    })
    return withMatchedIn(this.datePageOf(p, plan, offset, limit, total), q, this.reader)
  }

  /**
   * Walks and scans test a predicate per row in SQL, slow for an OR of expanded prefixes
   * (~100 µs a probe) and for a scan's mixed predicates. The bitmap evaluator answers those
   * from memory instead: from the match list once it was read (the count reads it), else from
   * a window of the newest calls. A walk of plain words stays a walk: FTS5 probes one word
   * per row in a few µs, while reading even a window of a common word's doclist costs a
   * good part of reading all of it (perf-log).
   */
  private datePageOf(p: Prepared, plan: PagePlan, offset: number, limit: number, total: number): SearchPage {
    const { q, state } = p
    const evaluate = this.evaluator(p)
    if (this.reviewsTake(p, plan)) {
      // A review filter from the annotations in memory, the smaller side driving (review-page.ts).
      return reviewDatePage({
        reader: this.reader,
        q,
        review: this.reviews!.match(p.query),
        textIds: q.match !== null ? p.estimate.ids : null,
        offset,
        limit,
        probeMax: this.reviewProbeMax,
        listed: (ids) => this.pager.page(q, state, { kind: 'fts', ids }, offset, limit, () => this.matchesOf(p), total + 1),
        fromMatchList: () => this.pager.page(q, state, { kind: 'bitmap' }, offset, limit, () => this.matchesOf(p), total + 1)
      })
    }
    const inMemory =
      evaluate !== null &&
      matchedIds(q) !== null &&
      (plan.kind === 'scan' || ((plan.kind === 'walk' || plan.kind === 'bitmap') && q.match !== null && q.match.includes(' OR ')))
    if (!inMemory) return this.pager.page(q, state, plan, offset, limit, () => this.matchesOf(p), total + 1)
    if (state.matches?.read === true || offset >= WINDOW_MAX_OFFSET) {
      return this.pager.page(q, state, { kind: 'bitmap' }, offset, limit, () => this.matchesOf(p), total + 1)
    }
    const share = Number.isNaN(p.estimate.n) ? WINDOW_SHARE : p.estimate.n / Math.max(1, total)
    const page = windowPage(
      this.columns.byDate(),
      q.order !== 'date_asc',
      offset,
      limit,
      share,
      (within) => evaluate!(within),
      this.reader.rows
    )
    if (page.whole && page.rows.length < limit) state.count = page.seen
    return { offset, rows: page.rows }
  }

  count(query: SearchQuery): number {
    return this.countOf(this.prepare(query))
  }

  private countOf(p: Prepared): number {
    const { q, state, estimate } = p
    const plan = choosePlan(q, estimate, this.catalog.totalCalls(), { for: 'count' })
    if (plan.kind === 'nothing') return 0
    if (state.count !== null) return state.count
    switch (plan.kind) {
      case 'counted':
        state.count = plan.n
        break
      case 'match-list': {
        const fts = this.bitmaps?.ftsOnly(p.query, q, p.catalog, this.catalog.totalCalls()) ?? null
        state.count =
          fts !== null
            ? this.reader.matches.count({ sql: 'SELECT count(*) FROM calls_fts WHERE calls_fts MATCH ?', params: [fts] })
            : (this.matchesOf(p).list()?.length ?? this.reader.matches.count(countSql(q, { kind: 'fts', ids: null })))
        break
      }
      default:
        // The bitmap evaluator when it takes the query: exact, and the list its facets need.
        state.count =
          this.evaluator(p) !== null && matchedIds(q) !== null
            ? this.matchesOf(p).list()!.length
            : this.reader.matches.count(countSql(q, plan))
    }
    return state.count
  }

  facets(query: SearchQuery, analysisKey: string | null, zone: string): Facets {
    const p = this.prepare(query)
    const total = this.countOf(p)
    const info = analysisKey === null ? undefined : this.catalog.keyInfo(analysisKey)
    return this.facetCounter.compute({
      q: p.q,
      total,
      allCalls: this.catalog.totalCalls(),
      matches: this.matchesOf(p),
      scopes: this.catalog.scopes(),
      key: analysisKey === null || info === undefined ? null : { ids: this.catalog.keyIds(analysisKey), numeric: info.numeric },
      zone
    })
  }

  analysisKeys(): AnalysisKeyInfo[] {
    return this.catalog.analysisKeys()
  }

  breakdown(query: SearchQuery, column: ResultColumn): Breakdown {
    const ranked = this.view.sortedBy(column)
    const numeric = ranked.numbers !== null
    const matched = this.matched(query)
    if (matched === null) return { column, numeric, total: 0, missing: 0, bars: [] }
    return { column, numeric, ...breakdownBars(ranked, matched) }
  }

  trend(query: SearchQuery, column: ResultColumn, measure: TrendMeasure, bucket: TrendBucket, zone: string): Trend {
    if (!IANAZone.isValidZone(zone)) throw new CallsightError('InvalidInput', `"${zone}" is not a known time zone.`)
    const ranked = this.view.sortedBy(column)
    const matched = this.matched(query)
    const points = matched === null ? [] : trendPoints(ranked, matched, this.columns.quarters(), measure, bucket, zone)
    return { column, measure, bucket, points }
  }

  /** The query's matched calls for Insight's column charts; null when it matches nothing. */
  private matched(query: SearchQuery): Matched | null {
    const p = this.prepare(query)
    if (p.q.empty || this.countOf(p) === 0) return null
    return { ids: this.matchesOf(p).list(), all: this.columns.byDate() }
  }

  values(query: SearchQuery, key: string, contains?: string): ValueSuggestions {
    const info = this.catalog.keyInfo(key)
    if (info === undefined) return { key, numeric: false, items: 0, values: [], range: null }
    const p = this.prepare(query)
    const { values, range } = this.facetCounter.values({
      q: p.q,
      total: this.countOf(p),
      allCalls: this.catalog.totalCalls(),
      matches: this.matchesOf(p),
      key: {
        ids: this.catalog.keyIds(key),
        numeric: info.numeric,
        contains: contains === undefined ? undefined : foldText(contains.trim())
      }
    })
    const merged = mergeFolded(values)
    return {
      key,
      numeric: info.numeric,
      items: range?.items ?? merged.reduce((n, v) => n + v.count, 0),
      values: merged,
      range: range && { min: range.min, max: range.max }
    }
  }

  get(callId: string): CallRecord | null {
    return this.reader.rows.record(callId)
  }

  /** Every match's callId in a column's order: the export of a sorted list. */
  private sortedCallIds(query: SearchQuery, sortBy: ColumnSort): string[] {
    const ids: string[] = []
    for (let offset = 0; ; offset += MAX_LIMIT) {
      const rows = this.columnPage(query, sortBy, offset, MAX_LIMIT).rows
      for (const r of rows) ids.push(r.callId)
      if (rows.length < MAX_LIMIT) return ids
    }
  }

  iterate(selection: ExportSelection): ExportIteration {
    const parsed = ExportSelection.safeParse(selection)
    if (!parsed.success) throw invalid(parsed.error)
    const given = parsed.data
    const view = given.kind === 'ids' || !given.sortBy ? {} : { sortBy: given.sortBy }
    // Offset ranges picked by hand become the ids of the rows the user saw, walked through
    // the same search (and sort) that showed them. A query sorted by a column is walked in
    // that order page by page (each page starts where the last ended, its keyset remembered).
    const sel =
      given.kind === 'ranges'
        ? { kind: 'ids' as const, ids: idsInRanges((offset, limit) => this.page(given.query, offset, limit, view), given.ranges) }
        : given.kind === 'query' && given.sortBy
          ? { kind: 'ids' as const, ids: this.sortedCallIds(given.query, given.sortBy) }
          : given
    return exportIteration(sel, this.reader, this.analysisKeys(), (query) => {
      const p = this.prepare(query)
      return { q: p.q, plan: choosePlan(p.q, p.estimate, this.catalog.totalCalls(), { for: 'export' }), count: () => this.countOf(p) }
    })
  }
}

/**
 * `tuning.longJump`: rows from which a jump uses the match set; `tuning.facetScanShare`: the
 * share of all calls above which facets count against the in-memory columns; `tuning.reviewFew`:
 * REVIEW_FEW; `tuning.reviewSet`: false answers review filters in SQL only (the bench's baseline);
 * `tuning.reviewProbeMax`: REVIEW_PROBE_MAX (tests move them).
 */
export function createSearch(
  cache: CallCache,
  tuning: {
    longJump?: number
    facetScanShare?: number
    bitmaps?: boolean
    reviewFew?: number
    reviewSet?: boolean
    reviewProbeMax?: number
  } = {}
): LocalSearch {
  return new SearchOverCache(
    createSearchReader(cache),
    tuning.longJump ?? LONG_JUMP,
    tuning.facetScanShare,
    tuning.bitmaps !== false,
    tuning.reviewFew ?? REVIEW_FEW,
    tuning.reviewSet === false ? null : createReviewReads(cache),
    tuning.reviewProbeMax
  )
}
