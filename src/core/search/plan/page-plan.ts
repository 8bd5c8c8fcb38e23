import { walkThreshold, type PagePlan } from './plan'

/**
 * Every way one page of results is served, and the one function that chooses it
 * (choosePage) from facts it records. choosePlan (plan.ts) is the SQL cost rule; its answer
 * is one fact among others here (what is in memory, the review set, the count, the offset).
 * The executors (date-page.ts, column-page.ts, the pager) serve the path they are given; a
 * path that finds it cannot serve the page (a window too sparse, a review walk past its
 * probes, a ranker that declines) says so, and choosePage is asked again with that fact.
 */

/** Pages from this offset on come from the whole match list, not a window of the newest calls. */
export const WINDOW_MAX_OFFSET = 1000
/** The share of calls a query without a text estimate is taken to match, to size its first window. */
export const WINDOW_SHARE = 0.05
/**
 * A window whose ids spread over more than this many times its length is left to the walk
 * (ids far from date order: the span would hold most of the cache).
 */
export const WINDOW_MAX_SPAN = 8
/**
 * Date-index entries a listed-slice walk reads per listed match before it gives up (the SQL
 * path then serves the page). An entry read from a slice costs ~1/40 of a listed call's row
 * read and sorted (0.17 against 6.8 µs CPU at 5,000,000 calls): a walk that gives up adds at
 * most a quarter of the SQL path's cost.
 */
export const LISTED_SLICE_READS = 10
/**
 * A listed-slice walk is tried when this many times the entries expected to hold the page fit
 * its reads, and its first slice is that many times the entries expected.
 */
export const LISTED_SLICE_MARGIN = 1.25

/** A fact read only when the choice needs it (reading it costs), remembered once read. */
export interface Lazy<T> {
  get(): T
  /** The value, if it was read. */
  known(): T | undefined
}

export function lazy<T>(read: () => T): Lazy<T> {
  let value: { v: T } | null = null
  return {
    get: () => (value ??= { v: read() }).v,
    known: () => value?.v
  }
}

/** What a page in date (or relevance) order is chosen from. */
export interface DateFacts {
  order: 'date'
  /** The SQL rule's plan (choosePlan): what serves the page when nothing in memory does. */
  sql: PagePlan
  offset: number
  limit: number
  /** The query's count, when known. */
  count: number | null
  /** The review set answers the query's review filter (the annotations in memory). */
  reviewSet: boolean
  /** With the review set: the text's matches (listed by the bounded count) that pass the review filter; null: text not listed, or none. */
  survivors: Lazy<number[] | null>
  /** LISTED_SORT_MAX (review-page.ts). */
  listedSortMax: number
  /** REVIEW_WALK_MAX (review-page.ts). */
  reviewWalkMax: number
  /** The in-memory ranker can rank this query (bm25 over its match set). */
  rankable: boolean
  /** The bitmap evaluator answers the query's match list. */
  inMemory: boolean
  /** The query's match list was read already (a count or facets read it). */
  matchesRead: boolean
  /** A walk's probe per row is the costly kind (a scan, an OR, a kept prefix). */
  costlyWalk: boolean
  /** Matches expected per call (the estimate), to size a window. */
  share: number
  /** The estimate reached its cap: the share is at least `share`, and may be far more. */
  shareIsFloor: boolean
  /** The date order and quarter hours are in memory (else a window reads its slice from the date index). */
  orderKept: boolean
  /**
   * The query is text alone, counted by FTS5 (no kept prefix set, no costly probe): its
   * matches in an id range can be counted without listing them (count-skip). Lazy: telling
   * reads every call's quarter hour and the scopes' members (whole columns), which only a
   * deep page after a count may need; a first page on a search just opened must not pay it.
   */
  rangeCountable: Lazy<boolean>
  /** Deep pages after a count may skip by counting (count-skip); off: main's bitmap path (the bench's baseline). */
  countSkip: boolean
  /** The query's plain words whose id sets are kept (word-sets.ts): a window takes them from memory. */
  keptWords: number
  /**
   * Listed matches (the SQL rule's fts plan with ids) may be put in date order by their
   * places in the date order in memory (listed-order): the strategy is on and the query has
   * text, and no review filter or candidates of its own.
   */
  listedOrder: boolean
  /** The calls the cache holds (with `share`, how many matches were listed). */
  total: number
  /** Paths tried for this page that could not serve it. */
  declined: PageKind[]
}

/** What a page in a chosen column's order is chosen from (sorted-page.ts). */
export interface ColumnFacts {
  order: 'column'
  /** Some filter can match nothing. */
  empty: boolean
  /** The query has text or filters (else every call, in the column's order). */
  filtered: boolean
  /** The query's matches were put in the column's order by an earlier page. */
  kept: boolean
  /** The match list was read already (the count or facets read it). */
  listRead: boolean
  /** The text is rare (counted under the walk threshold): its list is cheap to read. */
  rare: boolean
  /** Matches to skip from the nearest known position. */
  skip: number
  /** PROBE_MAX (sorted-page.ts): a jump this far over half of it is not asked about. */
  probeMax: number
  /** The match list's length (reads it: every path left needs it). */
  listLength: Lazy<number>
  /** A list up to this long is sorted by position; a longer one is walked as a bitmap. */
  listSortMax: number
  declined: PageKind[]
}

export type PageFacts = DateFacts | ColumnFacts

/**
 * What a page in date order is chosen from before the query's matches were counted (its
 * estimate): whether a window of the newest calls may serve it first (window-first).
 */
export interface FirstFacts {
  order: 'first'
  offset: number
  limit: number
  /** The search counts a first page's matches only when its window cannot serve it (pageBeforeEstimate). */
  allowed: boolean
  /** The estimate was read already: the SQL rule can be asked as it costs nothing more. */
  estimated: boolean
  /** The query has text and is in date order (relevance ranks; without text no estimate is read for a page). */
  datedText: boolean
  /** The query's count, when known. */
  count: number | null
  /** The review set answers the query's review filter. */
  reviewSet: boolean
  /** The bitmap evaluator answers the query's match list. */
  inMemory: boolean
  /** The query's match list was read already (a count or facets read it). */
  matchesRead: boolean
  /** A walk's probe per row is the costly kind (an OR, a kept prefix). */
  costlyWalk: boolean
  /** The date order is in memory (else the window's slice is read from the date index). */
  orderKept: boolean
  /**
   * The page may come from the last ids' range (id-range): the strategy is on, the text is
   * FTS5's alone to read (no short prefix split, no kept prefix set, no costly probe), no
   * review filter, and no date range bounding the page's end of the order.
   */
  idRange: boolean
  /**
   * The last ids' range is tried before the window: the query is two or more terms ANDed,
   * none negated or ORed (words, or words and analysis conditions). Words that must all meet
   * are rarer than each (two 5 % words in 0.3 % of calls: the window declines after paying
   * for its slice), and conditions the window drops row by row make it walk past many; the
   * range reads only the text's matches among the newest ids and asks the conditions in SQL.
   */
  idRangeFirst: boolean
  /** The calls the cache holds. */
  total: number
  declined: PageKind[]
}

/**
 * The ways a page is served (docs/search.md, "Plans"):
 *  - nothing, scan, walk, fts, review, relevance, bitmap: the SQL rule's plans (plan.ts),
 *    served by the pager; bitmap walks the date order in memory against the match list.
 *  - past-end: the count is known and the offset is past it.
 *  - review-listed: the text's listed matches that pass the review filter, read by id and sorted.
 *  - review-text-walk: those, many, put in date order in memory and asked about in SQL by batches.
 *  - review-walk: the review filter's calls in date order from memory, asked about by batches.
 *  - relevance-memory: bm25's order computed in memory over the match set.
 *  - window: the newest (oldest) calls' id span evaluated in memory, walked in date order.
 *  - count-skip: a deep page once the count is known and the match list is not read: the
 *    matches on the page's near side counted by id range in FTS5, a window next to the
 *    page walked (count-skip-page.ts).
 *  - listed-order: the matches the bounded count listed (text alone), put in date order by
 *    their places in the date order in memory; only the page's rows are read.
 *  - listed-slice: the same before the date order is in memory (a search just opened, or no
 *    warm-up): the newest calls' ids read from the date index, a slice growing as needed, and
 *    the listed ones among them taken in that order; it gives up past `maxRead` entries.
 *  - window-first: a first page's window tried before the query's matches are counted: from
 *    the smallest window, grown fourfold up to the window that holds a page at the walk
 *    threshold's share (plan.ts); a word that does not fill it is counted and chosen for as
 *    before (a rare word then comes from FTS5). The estimate, an FTS5 read of up to the
 *    threshold's matches, was the largest cost of the first query after opening.
 *  - window-slice: the same before the date order and quarter hours are in memory (a search
 *    just opened): the window's ids read from the date index, its span's quarter hours and
 *    scope members read for the span alone, so no whole column is read on the keystroke.
 *  - id-range: a first page before the query's matches are counted, when the window-first
 *    did not serve it: the text's matches among the newest (oldest) ids, a range growing
 *    until the page is full, and the date index asked whether a call outside the range
 *    comes before the page's end (ids not in time order): then it declines
 *    (id-range-page.ts).
 *  - column-all, column-kept, column-probe, column-list, column-bits: a column's order, all
 *    calls; the matches' places kept from a page before; candidates asked about in SQL; the
 *    match list sorted by place; the order walked against the match bitmap.
 */
export type PagePath =
  | PagePlan
  | { kind: 'past-end' }
  | { kind: 'review-listed'; ids: string }
  | { kind: 'review-text-walk'; ids: number[] }
  | { kind: 'review-walk' }
  | { kind: 'relevance-memory' }
  | { kind: 'window'; share: number; maxSpan: number }
  | { kind: 'window-slice'; share: number; maxSpan: number }
  | { kind: 'window-first'; maxWindow: number; maxSpan: number }
  | { kind: 'id-range' }
  | { kind: 'count-skip' }
  | { kind: 'listed-order'; ids: string }
  | { kind: 'listed-slice'; ids: string; maxRead: number }
  | { kind: 'column-all' }
  | { kind: 'column-kept' }
  | { kind: 'column-probe' }
  | { kind: 'column-list' }
  | { kind: 'column-bits' }

export type PageKind = PagePath['kind']

const BITMAP: PagePath = { kind: 'bitmap' }

/** The one place a page's path is chosen. */
export function choosePage(f: PageFacts): PagePath {
  const tried = (k: PageKind): boolean => f.declined.includes(k)
  if (f.order === 'column') {
    if (f.empty) return { kind: 'nothing' }
    if (!f.filtered) return { kind: 'column-all' }
    if (f.kept) return { kind: 'column-kept' }
    // Many matches, list not read (a common word's first pages): ask about candidates along
    // the order, unless that gave up already (the share found says the list costs less).
    if (!f.listRead && !f.rare && f.skip < f.probeMax / 2 && !tried('column-probe')) return { kind: 'column-probe' }
    return f.listLength.get() <= f.listSortMax ? { kind: 'column-list' } : { kind: 'column-bits' }
  }
  const { sql } = f
  if (f.count !== null && f.offset >= f.count) return { kind: 'past-end' }
  if (f.reviewSet && sql.kind !== 'nothing' && sql.kind !== 'relevance') {
    // A review filter from the annotations in memory, the smaller side driving; deep pages
    // and walks that asked too much read the whole match list.
    const deep = f.offset + f.limit > f.reviewWalkMax
    const survivors = f.survivors.get()
    if (survivors !== null) {
      if (survivors.length <= f.listedSortMax || deep) return { kind: 'review-listed', ids: JSON.stringify(survivors) }
      return tried('review-text-walk') ? BITMAP : { kind: 'review-text-walk', ids: survivors }
    }
    return deep || tried('review-walk') ? BITMAP : { kind: 'review-walk' }
  }
  if (sql.kind === 'relevance' && f.rankable && f.offset < WINDOW_MAX_OFFSET && !tried('relevance-memory'))
    return { kind: 'relevance-memory' }
  // Matches listed by the bounded count: their order from memory, not from each row's date.
  // Its other conditions are asked of the listed calls in date order, so only from the start.
  if (sql.kind === 'fts' && sql.ids !== null && f.listedOrder && f.offset < WINDOW_MAX_OFFSET) {
    if (f.orderKept && !tried('listed-order')) return { kind: 'listed-order', ids: sql.ids }
    // Without the date order (reading it whole is seconds at 5,000,000 calls), the newest
    // calls from the date index: when the matches are common enough among them that the
    // entries a page needs are few against the rows the SQL path would read.
    const listed = Math.round(f.share * f.total)
    const maxRead = LISTED_SLICE_READS * listed
    const expected = ((f.offset + f.limit) * f.total) / Math.max(1, listed)
    if (!f.orderKept && !tried('listed-slice') && LISTED_SLICE_MARGIN * expected <= maxRead)
      return { kind: 'listed-slice', ids: sql.ids, maxRead }
  }
  if (!f.inMemory || (sql.kind !== 'scan' && sql.kind !== 'walk' && sql.kind !== 'bitmap')) return sql
  // Walks and scans test a predicate per row in SQL; the bitmap evaluator answers it from
  // memory: from the match list once read (or deep), else from a window of the newest calls.
  // A deep page right after the count: counting the near side's matches costs less than
  // listing every match, which the bitmap path reads first.
  if (
    f.countSkip &&
    f.count !== null &&
    !f.matchesRead &&
    f.offset >= WINDOW_MAX_OFFSET &&
    f.orderKept &&
    !tried('count-skip') &&
    f.rangeCountable.get()
  )
    return { kind: 'count-skip' }
  if (f.matchesRead || f.offset >= WINDOW_MAX_OFFSET) return BITMAP
  if (tried('window') || tried('window-slice')) return sql
  const maxSpan = f.costlyWalk ? Infinity : WINDOW_MAX_SPAN
  if (f.orderKept) return { kind: 'window', share: f.share, maxSpan }
  // A slice costs what it holds: when the estimate only says "at least", start at the
  // smallest window (four pages) and let it grow, rather than at the window the floor implies
  // (tens of thousands of calls for a word in a third of them).
  return { kind: 'window-slice', share: f.shareIsFloor ? 1 : f.share, maxSpan }
}

/**
 * Whether a page in date order is first tried from a window of the newest calls, before its
 * estimate is read (window-first); null: choose with the estimate (choosePage). Only the first
 * pages (below WINDOW_MAX_OFFSET) of text in date order that the bitmap evaluator answers,
 * before anything (a count, facets, an explain) read the estimate or the match list: what
 * choosePage would then serve from a window anyway when the text is common. Once the window
 * declined (or for text the evaluator does not answer), the last ids' range (id-range); for
 * ANDed terms (idRangeFirst) the range first, then the window.
 */
export function chooseFirstWindow(f: FirstFacts): Extract<PagePath, { kind: 'window-first' | 'id-range' }> | null {
  if (!f.allowed || f.estimated || !f.datedText || f.reviewSet || f.matchesRead) return null
  if (f.count !== null || f.offset >= WINDOW_MAX_OFFSET) return null
  const rangeLeft = f.idRange && !f.declined.includes('id-range')
  if (f.idRangeFirst && rangeLeft) return { kind: 'id-range' }
  if (!f.inMemory || f.declined.includes('window-first')) {
    // Too rare for the window (or not in memory): the last ids' range before the estimate,
    // whose listing of every match would cost more than the page.
    return rangeLeft ? { kind: 'id-range' } : null
  }
  // A page's worth of matches at the walk threshold's share: a text that common fills it, and
  // choosePage would serve it from a window too; a rarer one is left to the estimate's choice.
  const share = walkThreshold(f.total, f.limit) / Math.max(1, f.total)
  const maxWindow = Math.ceil((f.offset + f.limit) / share)
  return { kind: 'window-first', maxWindow, maxSpan: f.costlyWalk ? Infinity : WINDOW_MAX_SPAN }
}

/** The path that served a page, the paths tried before it, what they were chosen from, and the time it took. */
export interface PageTrace {
  plan: PageKind
  tried: PageKind[]
  inputs: Record<string, string | number | boolean | null>
  ms: number
}

/** The facts as plain values (lazy ones only if they were read). */
export function recordFacts(f: PageFacts | FirstFacts): PageTrace['inputs'] {
  const out: PageTrace['inputs'] = {}
  for (const [key, value] of Object.entries(f)) {
    if (key === 'declined' || key === 'order') continue
    if (key === 'sql') out.sql = (value as PagePlan).kind
    else if (typeof value === 'object' && value !== null && 'known' in value) {
      const v = (value as Lazy<unknown>).known()
      if (v !== undefined) out[key] = Array.isArray(v) ? v.length : (v as number | boolean | null)
    } else if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'string' || value === null) {
      out[key] = typeof value === 'number' && !Number.isFinite(value) ? String(value) : value
    }
  }
  return out
}

/**
 * Serves a page: choose, serve, and when the path declines, choose again knowing it. Bounded:
 * each path declines at most once, and choosePage never returns a declined one.
 */
export function servePage<T>(facts: PageFacts, serve: (path: PagePath) => T | null): { result: T; trace: PageTrace } {
  const started = performance.now()
  for (let i = 0; i < 8; i++) {
    const path = choosePage(facts)
    const result = serve(path)
    if (result !== null) {
      return { result, trace: { plan: path.kind, tried: [...facts.declined], inputs: recordFacts(facts), ms: performance.now() - started } }
    }
    facts.declined.push(path.kind)
  }
  throw new Error('No page path could serve the page.')
}
