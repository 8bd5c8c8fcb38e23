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
import { createReviewReads, createSearchReader, type CallCache, type ReviewReads } from '../cache'
import { CallsightError } from '../errors'
import { columnPage } from './paging/column-page'
import { countOf } from './count'
import { queryCoverage } from './coverage'
import { datePage } from './paging/date-page'
import { exportIteration, type ExportIteration } from './paging/export-iteration'
import { mergeDateOrder } from './paging/date-order'
import type { PageTrace } from './plan/page-plan'
import { choosePlan, LONG_JUMP, REVIEW_FEW, type PlanKind } from './plan/plan'
import { SearchContext, invalid, type SearchTuning } from './search-context'
import { sortedPage } from './paging/sorted-page'
import { idsInRanges } from './paging/selection'
import { warmUp, whenIdle, type WarmUp } from './memory/search-warm-up'
import { breakdown, facets, trend, values } from './summaries'

export type { ExportIteration } from './paging/export-iteration'
export type { WarmUp } from './memory/search-warm-up'
export type { PageTrace } from './plan/page-plan'

/** A warm-up that could not keep every column (the data changed meanwhile) runs again after this long at the earliest. */
const REWARM_MS = 5_000

/** The largest page a caller may ask for. */
const MAX_LIMIT = 1000

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
  /**
   * Reads in the background, between requests, what the first query of each kind reads cold
   * (search-warm-up.ts), and again after a change not this connection's dropped it (checked
   * at each page); stop() ends it.
   */
  warmUp(): WarmUp
  /**
   * Serves the page and says why it came back like this: `served`, the path that served it
   * (page-plan.ts), the paths tried before it, the facts they were chosen from, and the time
   * it took; `plan`, the SQL rule's plan (choosePlan) or 'review-set' when the annotations in
   * memory answer the review filter; the match estimate and the number of calls.
   */
  explain(query: SearchQuery, limit: number, offset?: number, view?: PageView): Explained
}

export interface Explained {
  plan: PlanKind | 'review-set'
  served: PageTrace
  estimate: number
  total: number
}

/**
 * Local search over one cache: compile (pure) → plan (pure, one function) → read (through
 * the cache's SearchReader). Every cache it keeps follows the one data version (DataWatch).
 * The steps live by concern: date-page.ts, column-page.ts, count.ts, summaries.ts, over the
 * state search-context.ts keeps; this class checks input and routes.
 */
class SearchOverCache implements LocalSearch {
  /** The warm-up running or last run, and the column drops it started at; null: never asked for. */
  private warm: { run: WarmUp; drops: number; startedAt: number; finished: boolean; complete: boolean } | null = null
  private warmStopped = false
  /** When a page, count or facets was last asked for: the warm-up reads between bursts of them. */
  private lastRequestAt = Number.NEGATIVE_INFINITY

  constructor(
    private readonly ctx: SearchContext,
    private readonly onPlan: ((trace: PageTrace) => void) | undefined
  ) {}

  warmUp(): WarmUp {
    this.warmStopped = false
    if (this.warm === null || this.warm.finished) this.startWarm()
    return {
      stop: () => {
        this.warmStopped = true
        this.warm?.run.stop()
      },
      done: this.warm!.run.done
    }
  }

  private startWarm(): void {
    const entry = {
      run: warmUp(
        this.ctx,
        whenIdle(() => this.lastRequestAt)
      ),
      drops: this.ctx.columns.drops(),
      startedAt: performance.now(),
      finished: false,
      complete: false
    }
    this.warm = entry
    void entry.run.done.then((complete) => {
      entry.finished = true
      entry.complete = complete
    })
  }

  /**
   * Warms again once the last run ended, after a change dropped the columns (another
   * connection's write, a clear), or after a run that had to drop columns (a sync wrote
   * meanwhile): then at most every REWARM_MS, as a sync goes on writing.
   */
  private keepWarm(): void {
    const w = this.warm
    if (w === null || this.warmStopped || !w.finished) return
    const dropped = this.ctx.columns.drops() !== w.drops
    if (dropped || (!w.complete && performance.now() - w.startedAt >= REWARM_MS)) this.startWarm()
  }

  resetCaches(): void {
    this.ctx.reset()
  }

  coverage(query: SearchQuery): QueryCoverage {
    const r = SearchQuery.safeParse(query)
    if (!r.success) throw invalid(r.error)
    const catalog = this.ctx.catalog
    return queryCoverage(r.data, catalog.scopes(), catalog.typeNames(), catalog.analysisKeys(), catalog.heldWindow())
  }

  describeType(value: string): string {
    return this.ctx.catalog.typeNames().describe(value)
  }

  explain(query: SearchQuery, limit: number, offset = 0, view: PageView = {}): Explained {
    // The page first: it is served as page() serves it, before anything here reads the
    // estimate (a first page may not need it: window-first).
    const { trace } = this.serve(query, offset, limit, view)
    const p = this.ctx.prepare(query)
    const { q, estimate } = p
    const total = this.ctx.catalog.totalCalls()
    const plan = choosePlan(q, estimate, total, { for: 'page', limit, gap: 0, bitmapRead: false, longJump: this.ctx.longJump })
    const reviewSet = this.ctx.reviewsTake(p) && plan.kind !== 'nothing' && plan.kind !== 'relevance'
    return { plan: reviewSet ? 'review-set' : plan.kind, served: trace, estimate: estimate.n, total }
  }

  page(query: SearchQuery, offset: number, limit: number, view: PageView = {}): SearchPage {
    return this.serve(query, offset, limit, view).page
  }

  private serve(query: SearchQuery, offset: number, limit: number, view: PageView): { page: SearchPage; trace: PageTrace } {
    if (!Number.isInteger(offset) || offset < 0 || !Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
      throw new CallsightError('InvalidInput', 'The page asked for is out of range.')
    }
    this.lastRequestAt = performance.now()
    const p = this.ctx.prepare(query)
    const { page, trace } = view.sortBy ? columnPage(this.ctx, p, view.sortBy, offset, limit) : datePage(this.ctx, p, offset, limit)
    this.onPlan?.(trace)
    this.keepWarm()
    if (!view.columns || view.columns.length === 0) return { page, trace }
    return { page: { ...page, cells: this.ctx.view.cells(page.rows, view.columns) }, trace }
  }

  resultColumns(): ColumnInfo[] {
    return this.ctx.view.list()
  }

  count(query: SearchQuery): number {
    this.lastRequestAt = performance.now()
    return countOf(this.ctx, this.ctx.prepare(query))
  }

  facets(query: SearchQuery, analysisKey: string | null, zone: string): Facets {
    this.lastRequestAt = performance.now()
    return facets(this.ctx, this.ctx.prepare(query), analysisKey, zone)
  }

  analysisKeys(): AnalysisKeyInfo[] {
    return this.ctx.catalog.analysisKeys()
  }

  breakdown(query: SearchQuery, column: ResultColumn): Breakdown {
    return breakdown(this.ctx, () => this.ctx.prepare(query), column)
  }

  trend(query: SearchQuery, column: ResultColumn, measure: TrendMeasure, bucket: TrendBucket, zone: string): Trend {
    return trend(this.ctx, () => this.ctx.prepare(query), column, measure, bucket, zone)
  }

  values(query: SearchQuery, key: string, contains?: string): ValueSuggestions {
    return values(this.ctx, () => this.ctx.prepare(query), key, contains)
  }

  get(callId: string): CallRecord | null {
    return this.ctx.reader.rows.record(callId)
  }

  /** Every match's callId in a column's order: the export of a sorted list. */
  private sortedCallIds(query: SearchQuery, sortBy: ColumnSort): string[] {
    const ids: string[] = []
    for (let offset = 0; ; offset += MAX_LIMIT) {
      const rows = columnPage(this.ctx, this.ctx.prepare(query), sortBy, offset, MAX_LIMIT).page.rows
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
    return exportIteration(sel, this.ctx.reader, this.analysisKeys(), (query) => {
      const p = this.ctx.prepare(query)
      return {
        q: p.q,
        plan: choosePlan(p.q, p.estimate, this.ctx.catalog.totalCalls(), { for: 'export' }),
        count: () => countOf(this.ctx, p)
      }
    })
  }
}

/**
 * Parts of the search another implementation may stand in for; each defaults to the
 * product's own. Benchmarks compare old implementations through them (bench/baselines), and
 * tests use them as reference answers.
 */
export interface SearchStrategies {
  /** Serves a page in a column's order (default: sortedPage, sorted-page.ts). */
  sortedPager: SearchTuning['sortedPager']
  /** Keeps the date order across a write (default: mergeDateOrder, date-order.ts); null: read again whole. */
  dateOrderMerge: SearchTuning['dateOrderMerge']
  /** How a first page's window reads an analysis key not kept: its items in the window (default), or its whole column. */
  coldKeyInWindow: SearchTuning['coldKeyInWindow']
  /** Where a first page's window comes from before the date order is in memory: a slice of the date index (default), or the whole order read first. */
  windowBeforeOrder: SearchTuning['windowBeforeOrder']
  /** Deep pages after a count skip by counting the near side's matches (default); false: from the whole match list, as before. */
  countSkip: boolean
  /** Relevance over a date range keeps the rows' sizes by chunk (default); false: reads them for each ranking's span, as before. */
  keptSizes: boolean
  /** Relevance over a date range scores from typed arrays and sorts only the page's share (default); false: a Map lookup per match and every rank sorted, as before. */
  prunedRank: boolean
  /** A prefix typed expands into up to 64 terms (default); false: up to 8, a wider one left to FTS5 as a prefix, which merges every doclist under it whatever the bounds, as before. */
  wideExpansion: boolean
  /** Prefixes typed expand from the kept term list (default); false: from fts5vocab, which reads each term's doclist, as before. */
  keptTerms: boolean
  /** Keeps common words' id sets per data version for counts, facets and windows (default); false: reads each word's doclist every time, as before. */
  wordSets: boolean
  /**
   * Keeps analysis terms' sets and a whole evaluation's base per data version, and counts
   * from the evaluator's bytes without making the match list (default); false: each made
   * again and the list made for every count, as before.
   */
  termSets: boolean
  /** Puts a query's listed matches in date order from the date order in memory (default); false: reads each listed row's date and sorts in SQL, as before. */
  listedOrder: boolean
  /** Facets of a few percent of the calls count against the columns once they are in memory (default); false: they seek each match's row below 5 %, as before. */
  keptColumnFacets: boolean
  /** A first page tries its window before the query's matches are counted (default, window-first); false: every query estimated as it is prepared, as before. */
  pageBeforeEstimate: boolean
  /** A first page too rare for its window tries the newest ids' range before the query's matches are counted (default, id-range); false: counted first, as before. */
  idRange: boolean
  /** Relevance over a date range takes its id span from the quarter hours in memory before the date order is (default); false: from the date index, as before. */
  quarterSpan: boolean
  /** id-range asks the quarter hours in memory whether a call outside its range comes first (default); false: the date index each time, as before. */
  idRangeSpans: boolean
  /** A first page of terms ANDed tries the newest ids' range before the window (default); false: the window first, as before. */
  idRangeFirst: boolean
  /** Reads the annotations that answer review filters in memory (default: createReviewReads); null: review filters in SQL only. */
  reviewReads: ((cache: CallCache) => ReviewReads) | null
}

/** What createSearch is given besides the tuning: strategies, and who hears each page's plan (the app logs it). */
export interface SearchParts extends Partial<SearchStrategies> {
  onPlan?: (trace: PageTrace) => void
}

/**
 * `longJump`: rows from which a jump uses the match set; `facetScanShare`: the share of all
 * calls above which facets count against the in-memory columns; `reviewFew`: REVIEW_FEW;
 * `reviewProbeMax`: REVIEW_PROBE_MAX; `reviewListedSortMax`: LISTED_SORT_MAX (tests move
 * them); `bitmaps`: false answers in SQL only (the tests' reference).
 */
export interface SearchKnobs {
  longJump?: number
  facetScanShare?: number
  bitmaps?: boolean
  reviewFew?: number
  reviewProbeMax?: number
  reviewListedSortMax?: number
}

export function createSearch(cache: CallCache, tuning: SearchKnobs = {}, parts: SearchParts = {}): LocalSearch {
  return new SearchOverCache(new SearchContext(createSearchReader(cache), searchTuning(tuning, parts, cache)), parts.onPlan)
}

/**
 * A search's whole tuning from createSearch's arguments: each knob and strategy the
 * product's unless given. `cache`: where review filters read annotations from (null: in SQL
 * only; tests that build a SearchContext over a reader of their own).
 */
export function searchTuning(tuning: SearchKnobs = {}, parts: SearchParts = {}, cache: CallCache | null = null): SearchTuning {
  const reviewReads = parts.reviewReads === undefined ? createReviewReads : parts.reviewReads
  return {
    longJump: tuning.longJump ?? LONG_JUMP,
    facetScanShare: tuning.facetScanShare,
    bitmaps: tuning.bitmaps !== false,
    reviewFew: tuning.reviewFew ?? REVIEW_FEW,
    reviewReads: cache === null || reviewReads === null ? null : reviewReads(cache),
    reviewProbeMax: tuning.reviewProbeMax,
    reviewListedSortMax: tuning.reviewListedSortMax,
    sortedPager: parts.sortedPager ?? sortedPage,
    dateOrderMerge: parts.dateOrderMerge === undefined ? mergeDateOrder : parts.dateOrderMerge,
    coldKeyInWindow: parts.coldKeyInWindow ?? 'items',
    windowBeforeOrder: parts.windowBeforeOrder ?? 'slice',
    countSkip: parts.countSkip ?? true,
    keptSizes: parts.keptSizes ?? true,
    prunedRank: parts.prunedRank ?? true,
    wideExpansion: parts.wideExpansion ?? true,
    keptTerms: parts.keptTerms ?? true,
    wordSets: parts.wordSets ?? true,
    termSets: parts.termSets ?? true,
    listedOrder: parts.listedOrder ?? true,
    keptColumnFacets: parts.keptColumnFacets ?? true,
    pageBeforeEstimate: parts.pageBeforeEstimate ?? true,
    idRange: parts.idRange ?? true,
    quarterSpan: parts.quarterSpan ?? true,
    idRangeSpans: parts.idRangeSpans ?? true,
    idRangeFirst: parts.idRangeFirst ?? true
  }
}
