import type { SearchPage } from '../../../shared/domain'
import type { ResolvedNode } from '../../../shared/query'
import { evaluable } from '../memory/bitmap-eval'
import { withMatchedIn } from '../query/matched-in'
import {
  chooseFirstWindow,
  lazy,
  recordFacts,
  servePage,
  WINDOW_SHARE,
  type DateFacts,
  type FirstFacts,
  type PageKind,
  type PagePath,
  type PageTrace
} from '../plan/page-plan'
import { choosePlan, needsEstimate } from '../plan/plan'
import { LISTED_SORT_MAX, REVIEW_WALK_MAX, reviewWalkPage } from './review-page'
import type { ReviewMatch } from '../review/review-set'
import type { Prepared, SearchContext } from '../search-context'
import { orderSlice, windowPage } from './window-page'
import { countSkipPage } from './count-skip-page'
import { NO_CALL } from '../memory/columns'
import { listedOrderPage, listedSlicePage } from './listed-order-page'
import { idRangePage } from './id-range-page'
import { REST_MS } from '../memory/word-sets'

/** Text alone that FTS5 counts (no kept prefix set: a prefix's many doclists cost what listing does). */
function rangeCountable(ctx: SearchContext, p: Prepared, total: number): boolean {
  const { q } = p
  const bitmaps = ctx.bitmaps
  if (bitmaps === null || q.match === null || q.costlyProbe || bitmaps.keptPrefix(q.match) !== null) return false
  return bitmaps.ftsOnly(p.query, q, p.catalog, total) !== null
}

/** A walk's probe per row is the costly kind: a scan, an OR, a kept prefix. */
function costlyWalk(ctx: SearchContext, p: Prepared, scan: boolean): boolean {
  const { q } = p
  const bitmaps = ctx.bitmaps
  return scan || (q.match !== null && bitmaps !== null && (q.match.includes(' OR ') || bitmaps.keptPrefix(q.match) !== null))
}

/**
 * A first page from a window of the newest calls, tried before the query's estimate is read
 * (chooseFirstWindow): the page and its trace, or null with `declined` holding what was tried.
 */
function firstWindow(
  ctx: SearchContext,
  p: Prepared,
  offset: number,
  limit: number,
  total: number,
  declined: PageKind[]
): { page: SearchPage; trace: PageTrace } | null {
  const { q, state } = p
  const started = performance.now()
  const facts: FirstFacts = {
    order: 'first',
    offset,
    limit,
    allowed: ctx.pageBeforeEstimate,
    estimated: ctx.estimated(p),
    datedText: q.match !== null && q.order !== 'relevance' && !q.empty,
    count: state.count,
    reviewSet: ctx.reviewsTake(p),
    inMemory: ctx.inMemory(p),
    matchesRead: state.matches?.read === true,
    costlyWalk: costlyWalk(ctx, p, false),
    orderKept: ctx.windowBeforeOrder === 'order' || ctx.columns.orderKept(),
    idRange: idRangeTakes(ctx, p),
    idRangeFirst: ctx.idRangeFirst && allAnded(q.node),
    total,
    declined
  }
  for (;;) {
    const path = chooseFirstWindow(facts)
    if (path === null) return null
    const page =
      path.kind === 'id-range' ? serveIdRange(ctx, p, offset, limit) : serveFirstWindow(ctx, p, path, facts, offset, limit, total)
    if (page !== null) {
      const trace = { plan: path.kind, tried: [...declined], inputs: recordFacts(facts), ms: performance.now() - started }
      return { page: withMatchedIn(page, q, ctx.reader), trace }
    }
    declined.push(path.kind)
  }
}

function serveFirstWindow(
  ctx: SearchContext,
  p: Prepared,
  path: Extract<PagePath, { kind: 'window-first' }>,
  facts: FirstFacts,
  offset: number,
  limit: number,
  total: number
): SearchPage | null {
  const window = { kind: facts.orderKept ? ('window' as const) : ('window-slice' as const), share: 1, maxSpan: path.maxSpan }
  return serveWindow(ctx, p, window, offset, limit, total, path.maxWindow)
}

/** Two or more terms ANDed, none negated or ORed (FirstFacts.idRangeFirst). */
export function allAnded(node: ResolvedNode | null): boolean {
  const positive = (n: ResolvedNode): boolean => n.kind !== 'or' && n.kind !== 'not' && (n.kind !== 'and' || n.items.every(positive))
  return node?.kind === 'and' && node.items.length >= 2 && positive(node)
}

/** Whether the last ids' range may serve a first page (FirstFacts.idRange). */
function idRangeTakes(ctx: SearchContext, p: Prepared): boolean {
  const { q } = p
  if (!ctx.idRange || q.match === null || q.split || q.costlyProbe || q.reviewDriver !== null || q.candidates !== null) return false
  if (p.query.review !== undefined || ctx.bitmaps?.keptPrefix(q.match) != null) return false
  // A range ending before the newest (oldest) calls: the last ids would hold none of it.
  return q.order === 'date_asc' ? q.from === null : q.to === null
}

function serveIdRange(ctx: SearchContext, p: Prepared, offset: number, limit: number): SearchPage | null {
  const { q } = p
  const match = q.match!
  return idRangePage({
    q,
    offset,
    limit,
    desc: q.order !== 'date_asc',
    reader: ctx.reader,
    matchesIn: (span) => ctx.reader.matches.ftsIds(match, [span.lo, span.hi]),
    // Only when the quarter hours are in memory already (reading them whole is most of a
    // second at 5,000,000 calls, against ~2 ms for the date index's answer), and their chunks
    // made or the cache at rest (see QuarterSpans.ready).
    datedOutside:
      ctx.idRangeSpans && ctx.columns.quartersKept() && ctx.spans.ready(REST_MS)
        ? (at, ids, desc) => ctx.spans.datedOutside(at, ids, desc)
        : undefined
  })
}

/** A page in date (or relevance) order: the path choosePage names (page-plan.ts), and how it was chosen. */
export function datePage(ctx: SearchContext, p: Prepared, offset: number, limit: number): { page: SearchPage; trace: PageTrace } {
  const total = ctx.catalog.totalCalls()
  const declined: PageKind[] = []
  const first = firstWindow(ctx, p, offset, limit, total, declined)
  if (first !== null) return first
  const { q, state, estimate } = p
  const gap = offset - state.nearest(offset).position
  const sql = choosePlan(q, estimate, total, {
    for: 'page',
    limit,
    gap,
    bitmapRead: state.matches?.read === true,
    longJump: ctx.longJump
  })
  const reviewSet = ctx.reviewsTake(p)
  let review: ReviewMatch | null = null
  const reviewMatch = (): ReviewMatch => (review ??= ctx.reviews!.match(p.query))
  const textIds = q.match !== null ? estimate.ids : null
  const inMemory = ctx.inMemory(p)
  const bitmaps = ctx.bitmaps
  const facts: DateFacts = {
    order: 'date',
    sql,
    offset,
    limit,
    count: state.count,
    reviewSet,
    survivors: lazy(() => (reviewSet && textIds !== null ? (JSON.parse(textIds) as number[]).filter((id) => reviewMatch().has(id)) : null)),
    listedSortMax: ctx.reviewListedSortMax ?? LISTED_SORT_MAX,
    reviewWalkMax: REVIEW_WALK_MAX,
    rankable: ctx.ranker !== null && evaluable(p.query) && inMemory,
    inMemory,
    matchesRead: state.matches?.read === true,
    costlyWalk: costlyWalk(ctx, p, sql.kind === 'scan'),
    share: Number.isNaN(estimate.n) ? WINDOW_SHARE : estimate.n / Math.max(1, total),
    shareIsFloor: !Number.isNaN(estimate.n) && estimate.ids === null && needsEstimate(q),
    orderKept: ctx.windowBeforeOrder === 'order' || ctx.columns.orderKept(),
    rangeCountable: lazy(() => rangeCountable(ctx, p, total)),
    countSkip: ctx.countSkip,
    keptWords: bitmaps?.keptWordsOf(q) ?? 0,
    listedOrder: ctx.listedOrder && q.match !== null && q.reviewDriver === null && q.candidates === null,
    total,
    declined
  }
  const { result, trace } = servePage(facts, (path) => serveDate(ctx, p, path, offset, limit, total, reviewMatch))
  return { page: withMatchedIn(result, q, ctx.reader), trace }
}

/** Serves the path it is given; null when the path cannot (page-plan.ts asks again). */
function serveDate(
  ctx: SearchContext,
  p: Prepared,
  path: PagePath,
  offset: number,
  limit: number,
  total: number,
  review: () => ReviewMatch
): SearchPage | null {
  const { q, state } = p
  const matches = () => ctx.matchesOf(p)
  const desc = q.order !== 'date_asc'
  switch (path.kind) {
    case 'past-end':
      return { offset, rows: [] }
    case 'review-listed':
      return ctx.pager.page(q, state, { kind: 'fts', ids: path.ids }, offset, limit, matches, total + 1)
    case 'review-text-walk': {
      const byDate = review().inDateOrder(path.ids, desc)
      let k = 0
      const next = (max: number): number[] => byDate.slice(k, (k += max))
      return reviewWalkPage({ reader: ctx.reader, q, offset, limit, next, probeMax: ctx.reviewProbeMax })
    }
    case 'review-walk':
      return reviewWalkPage({ reader: ctx.reader, q, offset, limit, next: review().walk(desc), probeMax: ctx.reviewProbeMax })
    case 'relevance-memory': {
      // Relevance over a date range: bm25's order computed in memory (relevance-rank.ts).
      const bitmaps = ctx.bitmaps!
      return ctx.ranker!.page(q, ctx.reader, (within) => bitmaps.evaluateSpan(p.query, q, p.catalog, within), offset, limit)
    }
    case 'window':
    case 'window-slice':
      return serveWindow(ctx, p, path, offset, limit, total)
    case 'listed-order':
      return listedOrderPage({
        listed: JSON.parse(path.ids) as number[],
        order: ctx.columns.dateOrder(),
        q,
        desc,
        offset,
        limit,
        reader: ctx.reader
      })
    case 'listed-slice':
      return listedSlicePage({
        listed: JSON.parse(path.ids) as number[],
        newest: (w) => ctx.columns.newestByDate(w, desc),
        total,
        desc,
        maxRead: path.maxRead,
        q,
        offset,
        limit,
        reader: ctx.reader
      })
    case 'count-skip': {
      const fts = ctx.bitmaps!.ftsOnly(p.query, q, p.catalog, total)!
      const bitmaps = ctx.bitmaps!
      const quarters = ctx.columns.quarters()
      const counted = (lo: number, hi: number): number =>
        ctx.reader.matches.count({
          // Integers as such: a bound bound as a double is not used to seek the doclist (FTS5
          // then reads all of it, and ignores `rowid = ?` altogether).
          sql: 'SELECT count(*) FROM calls_fts WHERE calls_fts MATCH ? AND rowid >= CAST(? AS INTEGER) AND rowid <= CAST(? AS INTEGER)',
          params: [fts, lo, hi]
        })
      return countSkipPage({
        order: ctx.columns.byDate(),
        count: state.count!,
        desc,
        offset,
        limit,
        countIn: counted,
        idLimit: quarters.length,
        isCall: (id) => id < quarters.length && quarters[id] !== NO_CALL,
        matches: (id) => counted(id, id) > 0,
        evaluate: (within) => bitmaps.evaluateSpan(p.query, q, p.catalog, within),
        rows: ctx.reader.rows
      })
    }
    case 'window-first':
    case 'id-range':
    case 'column-all':
    case 'column-kept':
    case 'column-probe':
    case 'column-list':
    case 'column-bits':
      throw new Error(`A date page cannot be served by ${path.kind}.`)
    default:
      return ctx.pager.page(q, state, path, offset, limit, matches, total + 1)
  }
}

/**
 * A window of the newest (oldest) calls evaluated in memory (window-page.ts): from the date
 * order when it is kept, else its slice read from the date index. `maxWindow`: how large it
 * may grow (window-first); null when it cannot serve the page.
 */
function serveWindow(
  ctx: SearchContext,
  p: Prepared,
  path: Extract<PagePath, { kind: 'window' | 'window-slice' }>,
  offset: number,
  limit: number,
  total: number,
  maxWindow = Infinity
): SearchPage | null {
  const { q, state } = p
  const bitmaps = ctx.bitmaps!
  const desc = q.order !== 'date_asc'
  const kept = path.kind === 'window'
  const order = kept ? ctx.columns.byDate() : null
  const page = windowPage(
    order !== null ? orderSlice(order, desc) : (w) => ctx.columns.newestByDate(w, desc),
    order !== null ? order.length : total,
    desc,
    offset,
    limit,
    path.share,
    (within) => bitmaps.evaluateSpan(p.query, q, p.catalog, within, !kept),
    ctx.reader.rows,
    path.maxSpan,
    maxWindow
  )
  if (page === null) return null
  if (page.whole && page.rows.length < limit) state.count = page.seen
  return { offset, rows: page.rows }
}
