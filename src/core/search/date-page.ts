import type { SearchPage } from '../../shared/domain'
import { evaluable } from './bitmap-eval'
import { withMatchedIn } from './matched-in'
import { choosePlan, type PagePlan } from './plan'
import { reviewDatePage } from './review-page'
import type { Prepared, SearchContext } from './search-context'
import { windowPage } from './window-page'

/** Pages from this offset on come from the whole match list, not a window of the newest calls. */
const WINDOW_MAX_OFFSET = 1000
/** The share of calls a query without a text estimate is taken to match, to size its first window. */
const WINDOW_SHARE = 0.05
/**
 * A window whose ids spread over more than this many times its length is left to the walk
 * (ids far from date order: the span would hold most of the cache).
 */
const WINDOW_MAX_SPAN = 8

/** A page in date (or relevance) order: the plan choosePlan names, served by the pager or from memory. */
export function datePage(ctx: SearchContext, p: Prepared, offset: number, limit: number): SearchPage {
  const { q, state, estimate } = p
  if (state.count !== null && offset >= state.count) return { offset, rows: [] }
  const total = ctx.catalog.totalCalls()
  const gap = offset - state.nearest(offset).position
  const plan = choosePlan(q, estimate, total, {
    for: 'page',
    limit,
    gap,
    bitmapRead: state.matches?.read === true,
    longJump: ctx.longJump
  })
  return withMatchedIn(datePageOf(ctx, p, plan, offset, limit, total), q, ctx.reader)
}

/**
 * Walks and scans test a predicate per row in SQL: an FTS5 doclist seek (~10 µs at 1,000,000
 * calls), ~100 µs for an OR of expanded prefixes, and an analysis term's EXISTS besides. The
 * bitmap evaluator answers those from memory instead: from the match list once it was read
 * (the count reads it), else from a window of the newest calls whose id span is evaluated at
 * once (a rowid-bounded read of each doclist and a pass over the span's analysis items:
 * what the window holds, not the cache). The walk stays when the window's ids spread over
 * much more than the window (ids not in date order), unless the walk's probe is the costly
 * kind (a scan's mixed predicates, an OR, a kept prefix), as before.
 */
function datePageOf(ctx: SearchContext, p: Prepared, plan: PagePlan, offset: number, limit: number, total: number): SearchPage {
  const { q, state } = p
  const bitmaps = ctx.bitmaps
  const matches = () => ctx.matchesOf(p)
  if (ctx.reviewsTake(p, plan)) {
    // A review filter from the annotations in memory, the smaller side driving (review-page.ts).
    return reviewDatePage({
      reader: ctx.reader,
      q,
      review: ctx.reviews!.match(p.query),
      textIds: q.match !== null ? p.estimate.ids : null,
      offset,
      limit,
      probeMax: ctx.reviewProbeMax,
      listedSortMax: ctx.reviewListedSortMax,
      listed: (ids) => ctx.pager.page(q, state, { kind: 'fts', ids }, offset, limit, matches, total + 1),
      fromMatchList: () => ctx.pager.page(q, state, { kind: 'bitmap' }, offset, limit, matches, total + 1)
    })
  }
  if (
    plan.kind === 'relevance' &&
    bitmaps !== null &&
    ctx.ranker !== null &&
    evaluable(p.query) &&
    ctx.inMemory(p) &&
    offset < WINDOW_MAX_OFFSET
  ) {
    // Relevance over a date range: bm25's order computed in memory (relevance-rank.ts), else SQL.
    const ranked = ctx.ranker.page(q, ctx.reader, (within) => bitmaps.evaluateSpan(p.query, q, p.catalog, within), offset, limit)
    if (ranked !== null) return ranked
  }
  const inMemory = bitmaps !== null && ctx.inMemory(p) && (plan.kind === 'scan' || plan.kind === 'walk' || plan.kind === 'bitmap')
  if (!inMemory) return ctx.pager.page(q, state, plan, offset, limit, matches, total + 1)
  if (state.matches?.read === true || offset >= WINDOW_MAX_OFFSET) {
    return ctx.pager.page(q, state, { kind: 'bitmap' }, offset, limit, matches, total + 1)
  }
  const costlyWalk = plan.kind === 'scan' || (q.match !== null && (q.match.includes(' OR ') || bitmaps.keptPrefix(q.match) !== null))
  const share = Number.isNaN(p.estimate.n) ? WINDOW_SHARE : p.estimate.n / Math.max(1, total)
  const page = windowPage(
    ctx.columns.byDate(),
    q.order !== 'date_asc',
    offset,
    limit,
    share,
    (within) => bitmaps.evaluateSpan(p.query, q, p.catalog, within),
    ctx.reader.rows,
    costlyWalk ? Infinity : WINDOW_MAX_SPAN
  )
  if (page === null) return ctx.pager.page(q, state, plan, offset, limit, matches, total + 1)
  if (page.whole && page.rows.length < limit) state.count = page.seen
  return { offset, rows: page.rows }
}
