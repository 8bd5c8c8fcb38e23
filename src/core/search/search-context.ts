import { SearchQuery } from '../../shared/domain'
import type { ReviewReads, SearchReader } from '../cache'
import { CallsightError } from '../errors'
import { StateCache, type QueryState } from './paging/anchors'
import { BitmapEvaluator, evaluable } from './memory/bitmap-eval'
import { MAX_EXPANSION, SearchCatalog, WIDE_EXPANSION } from './query/catalog'
import { CallColumns } from './memory/columns'
import { compileQuery, type CompiledQuery, type QueryCatalog } from './query/compile'
import { DataWatch, PerVersion } from './data-watch'
import { FacetCounter } from './facets'
import { MatchSet } from './memory/match-set'
import { Pager } from './paging/pager'
import type { PrefixSet } from './memory/prefix-sets'
import type { mergeDateOrder } from './paging/date-order'
import { estimateCap, needsEstimate, reviewCap, type Estimate } from './plan/plan'
import { evaluateWithReview, reviewEvaluable, ReviewSet } from './review/review-set'
import { RelevanceRanker } from './memory/relevance-rank'
import { spanInOrder } from './memory/relevance-topk'
import { QuarterSpans } from './memory/quarter-spans'
import type { SortedPager } from './paging/sorted-page'
import { matchedIds } from './query/sql'
import { ViewColumns } from './memory/view-columns'
import { withRecordTerms } from './query/record-terms'

/** Recent queries whose memory (estimate, count, anchors, match list) is kept. */
const QUERIES_KEPT = 16

export function invalid(e: unknown): CallsightError {
  return new CallsightError('InvalidInput', 'The search is not valid.', { cause: e })
}

/** A query compiled, with what it remembers and its match estimate. */
export interface Prepared {
  query: SearchQuery
  catalog: QueryCatalog
  q: CompiledQuery
  state: QueryState
  /** Read when first asked for (with pageBeforeEstimate), then kept with the state. */
  readonly estimate: Estimate
}

/** What boundedMatches answers (the first `cap` matches counted; their ids when fewer), from a kept set. */
function boundedFromSet(set: PrefixSet, cap: number): Estimate {
  if (set.n >= cap) return { n: cap, ids: null }
  const ids: number[] = []
  for (let i = 0; i < set.bits.length; i++) if (set.bits[i] === 1) ids.push(i)
  return { n: set.n, ids: `[${ids.join(',')}]` }
}

/** How createSearch was tuned (tests and benchmarks move these). */
export interface SearchTuning {
  /** Rows from which a jump uses the match set. */
  longJump: number
  /** The share of all calls above which facets count against the in-memory columns. */
  facetScanShare: number | undefined
  /** Counts and match lists in memory (bitmap-eval.ts); false: SQL only (the bench's baseline). */
  bitmaps: boolean
  /** REVIEW_FEW. */
  reviewFew: number
  /** Review filters from the annotations in memory (review-set.ts); null: SQL only. */
  reviewReads: ReviewReads | null
  /** REVIEW_PROBE_MAX (review-page.ts). */
  reviewProbeMax: number | undefined
  /** LISTED_SORT_MAX (review-page.ts). */
  reviewListedSortMax?: number | undefined
  /** Serves a page in a column's order (sortedPage, sorted-page.ts). */
  sortedPager: SortedPager
  /** Keeps the date order across a write (mergeDateOrder); null: read again whole. */
  dateOrderMerge: typeof mergeDateOrder | null
  /** How a window reads an analysis key not kept: its items in the window (the product), or its whole column. */
  coldKeyInWindow: 'items' | 'column'
  /** Where a first page's window comes from before the date order is in memory: a slice of the date index, or the whole order read first. */
  windowBeforeOrder: 'slice' | 'order'
  /** Deep pages after a count skip by counting the near side's matches (count-skip-page.ts); false: from the whole match list. */
  countSkip: boolean
  /** Relevance keeps the rows' sizes by chunk (relevance-rank.ts); false: read for each ranking's span. */
  keptSizes: boolean
  /**
   * Relevance scores its matches from typed arrays, sorts only the page's share and takes the
   * range's id span from the date order in memory (relevance-topk.ts); false: a Map lookup per
   * match, every rank sorted, the span from the date index.
   */
  prunedRank: boolean
  /** A prefix expands into up to WIDE_EXPANSION terms (catalog.ts); false: up to MAX_EXPANSION, more staying an FTS5 prefix. */
  wideExpansion: boolean
  /** Prefixes expand from the kept term list (term-list.ts); false: from fts5vocab, as before. */
  keptTerms: boolean
  /** Common words' id sets kept per data version (word-sets.ts); false: read from FTS5 each time. */
  wordSets: boolean
  /** Analysis terms' sets and a whole evaluation's base kept per data version (term-sets.ts), counts from the evaluator's bytes; false: made each time. */
  termSets: boolean
  /** Listed matches put in date order from memory (listed-order-page.ts); false: their rows read and sorted in SQL. */
  listedOrder: boolean
  /** Facets count against the columns once in memory (facets/index.ts KEPT_COLUMNS_MIN); false: by share alone. */
  keptColumnFacets: boolean
  /**
   * A first page in date order tries a window of the newest calls before the query's matches
   * are counted (window-first, page-plan.ts), and the estimate is read only when something
   * asks for it; false: every query is estimated as it is prepared, as before.
   */
  pageBeforeEstimate: boolean
  /**
   * A first page of text too rare for its window tries the last ids' range before the
   * query's matches are counted (id-range-page.ts); false: counted first, as before.
   */
  idRange: boolean
  /**
   * Relevance over a date range takes its id span from the quarter hours in memory when the
   * date order is not (quarter-spans.ts); false: from the date index, as before.
   */
  quarterSpan: boolean
  /**
   * id-range asks the quarter hours in memory, when they are, whether a call outside its
   * range comes before the page's end (quarter-spans.ts), and the date index only when they
   * cannot tell; false: the date index each time, as before.
   */
  idRangeSpans: boolean
  /**
   * A first page of two or more terms ANDed tries the last ids' range before the window
   * (page-plan.ts FirstFacts.idRangeFirst); false: the window first, as before.
   */
  idRangeFirst: boolean
}

/**
 * What one cache's search keeps, shared by its steps (date pages, column pages, counts,
 * summaries): the reader, the caches that follow its data version (DataWatch), and each
 * query's memory. `prepare` turns a query into its compiled form and remembered state.
 */
export class SearchContext {
  readonly catalog: SearchCatalog
  readonly columns: CallColumns
  readonly facetCounter: FacetCounter
  readonly pager: Pager
  readonly view: ViewColumns
  /** Counts and match lists in memory (bitmap-eval.ts); null: SQL only (the bench's baseline). */
  readonly bitmaps: BitmapEvaluator | null
  /** Relevance over a date range ranked in memory (relevance-rank.ts); null with the bitmap evaluator off. */
  readonly ranker: RelevanceRanker | null
  readonly longJump: number
  /** Review filters from the annotations in memory; null: SQL only. */
  readonly reviews: ReviewSet | null
  readonly reviewProbeMax: number | undefined
  readonly reviewListedSortMax: number | undefined
  readonly sortedPager: SortedPager
  readonly windowBeforeOrder: 'slice' | 'order'
  readonly countSkip: boolean
  readonly listedOrder: boolean
  readonly pageBeforeEstimate: boolean
  readonly idRange: boolean
  /** Chunks of ids with their earliest and latest quarter hour (quarter-spans.ts), shared by relevance's spans and id-range. */
  readonly spans: QuarterSpans
  readonly idRangeSpans: boolean
  readonly idRangeFirst: boolean
  /** Counts from the evaluator's bytes, the match list made only when asked for (match-set.ts). */
  readonly countFromBytes: boolean
  private readonly reviewFew: number
  private readonly queries: PerVersion<StateCache>

  constructor(
    readonly reader: SearchReader,
    tuning: SearchTuning
  ) {
    this.longJump = tuning.longJump
    this.reviewFew = tuning.reviewFew
    const watch = new DataWatch(reader.data)
    this.catalog = new SearchCatalog(
      reader.catalog,
      reader.data,
      watch,
      tuning.keptTerms ? 'list' : 'index',
      tuning.wideExpansion ? WIDE_EXPANSION : MAX_EXPANSION
    )
    this.queries = new PerVersion(watch, () => new StateCache(QUERIES_KEPT))
    this.sortedPager = tuning.sortedPager
    this.windowBeforeOrder = tuning.windowBeforeOrder
    this.countSkip = tuning.countSkip
    this.listedOrder = tuning.listedOrder
    this.pageBeforeEstimate = tuning.pageBeforeEstimate
    this.idRange = tuning.idRange
    this.countFromBytes = tuning.termSets
    this.columns = new CallColumns(reader.columns, watch, tuning.dateOrderMerge)
    this.facetCounter = new FacetCounter(reader, this.columns, tuning.facetScanShare, tuning.keptColumnFacets)
    this.pager = new Pager(reader.rows, this.columns)
    this.view = new ViewColumns(reader.view, this.columns, this.catalog, watch)
    const m = reader.matches
    this.bitmaps = tuning.bitmaps
      ? new BitmapEvaluator(
          {
            ftsIds: (match, b) => m.ftsIds(match, b),
            idsInTime: (a, b) => m.idsInTime(a, b),
            membersOf: (s) => reader.columns.membersOf(s),
            quartersIn: (span) => reader.columns.quartersIn(span),
            membersIn: (s, span) => reader.columns.membersIn(s, span)
          },
          this.columns,
          watch,
          tuning.coldKeyInWindow,
          tuning.wordSets,
          tuning.termSets
        )
      : null
    this.spans = new QuarterSpans(() => this.columns.quarters(), watch)
    this.idRangeSpans = tuning.idRangeSpans
    this.idRangeFirst = tuning.idRangeFirst
    const spans = tuning.quarterSpan ? this.spans : null
    this.ranker = tuning.bitmaps
      ? new RelevanceRanker(reader.rank, watch, tuning.keptSizes, undefined, tuning.prunedRank, (from, to) =>
          this.columns.orderKept()
            ? spanInOrder(this.columns.byDate(), this.columns.quarters(), from, to)
            : spans !== null
              ? spans.span(from, to)
              : undefined
        )
      : null
    this.reviews = tuning.bitmaps && tuning.reviewReads ? new ReviewSet(tuning.reviewReads, watch, () => this.columns.dateOrder()) : null
    this.reviewProbeMax = tuning.reviewProbeMax
    this.reviewListedSortMax = tuning.reviewListedSortMax
  }

  prepare(query: SearchQuery): Prepared {
    const r = SearchQuery.safeParse(query)
    if (!r.success) throw invalid(r.error)
    // Record-field terms (`agent:…`) become field filters: every plan then treats them as it
    // treats an Insight drill-down's.
    // On an account that shares review work, a review filter's evaluation conditions count
    // every pulled evaluation, not only this workstation's.
    const parsed =
      r.data.review !== undefined && this.reader.data.reviewShared() ? { ...r.data, review: { ...r.data.review, team: true } } : r.data
    const data = withRecordTerms(parsed, () => this.view.extraFieldNames(), this.catalog.analysisKeys())
    const catalog = this.catalog.forText(data.text, data.sort === 'relevance')
    const q = compileQuery(data, catalog)
    const state = this.queries.get().get(q.key)
    if (!this.pageBeforeEstimate) {
      state.estimate ??= this.estimate(q, data)
      return { query: data, catalog, q, state, estimate: state.estimate }
    }
    // Counted when first asked for, then kept with the query's state: a first page served
    // by its window (window-first) never asks.
    const estimate = (): Estimate => (state.estimate ??= this.estimate(q, data))
    return {
      query: data,
      catalog,
      q,
      state,
      get estimate() {
        return estimate()
      }
    }
  }

  /** Whether the query's estimate was read (window-first is tried only before it is). */
  estimated(p: Prepared): boolean {
    return p.state.estimate !== null
  }

  /** The remembered state under another key (a query in a column's order). */
  stateFor(key: string): QueryState {
    return this.queries.get().get(key)
  }

  /** Forgets counts, anchors and estimates (benchmarks measure cold queries with it). */
  reset(): void {
    this.queries.reset()
    this.reviews?.reset()
  }

  /** The query's matches counted just past the walk threshold (all a plan needs), when a plan needs them. */
  private estimate(q: CompiledQuery, query: SearchQuery): Estimate {
    const total = this.catalog.totalCalls()
    if (!needsEstimate(q)) return { n: q.match === null ? total : Number.NaN, ids: null }
    // Review candidates are counted in SQL for the SQL plans only: in memory they are walked.
    if (q.match === null && this.reviewsAnswer(query)) return { n: Number.NaN, ids: null }
    if (q.match === null) return this.reader.matches.boundedIds(q.candidates!, reviewCap(q, total, this.reviewFew))
    const cap = estimateCap(total)
    if (q.split) {
      const sets = q.split.short.map((s) => this.bitmaps?.keptPrefix(s) ?? null)
      const kept = sets.every((k) => k !== null) ? sets.map((k) => k!.bits) : undefined
      return this.reader.matches.boundedSplit(q.split, cap, kept)
    }
    const kept = this.bitmaps?.keptSet(q.match)
    return kept ? boundedFromSet(kept, cap) : this.reader.matches.boundedMatches(q.match, cap)
  }

  /** Whether the bitmap evaluator answers this query's match list (else SQL does); with a review filter, with the review set. */
  inMemory(p: Prepared): boolean {
    return this.bitmaps !== null && (evaluable(p.query) || this.reviewsAnswer(p.query)) && matchedIds(p.q) !== null
  }

  /** Whether the review set answers the query's review filter (it has one, and no extra-field filter). */
  private reviewsAnswer(query: SearchQuery): boolean {
    return this.reviews !== null && reviewEvaluable(query)
  }

  /** Whether the review set answers this query's review filter (page-plan.ts decides whether a page comes from it). */
  reviewsTake(p: Prepared): boolean {
    return this.reviewsAnswer(p.query)
  }

  /** The query's match set, kept with its state: read once for its count, facets and deep pages. */
  matchesOf(p: Prepared): MatchSet {
    const bitmaps = this.bitmaps
    const reviews = this.reviews
    const evaluate =
      bitmaps === null
        ? undefined
        : evaluable(p.query)
          ? () => bitmaps.evaluate(p.query, p.q, p.catalog)
          : reviews !== null && reviewEvaluable(p.query)
            ? () => evaluateWithReview((within) => bitmaps.evaluate(p.query, p.q, p.catalog, within), reviews, p.query)
            : undefined
    return (p.state.matches ??= new MatchSet(matchedIds(p.q), this.reader.matches, evaluate))
  }
}
