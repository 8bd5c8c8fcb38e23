import type { ColumnSort, SearchPage } from '../../../shared/domain'
import { choosePage, type ColumnFacts, type PageTrace } from '../plan/page-plan'
import { walkThreshold } from '../plan/plan'
import type { Prepared, SearchContext } from '../search-context'
import { PROBE_MAX, type SortedMatches } from './sorted-page'
import { matchedAmong } from '../query/sql'
import { positionAt } from '../memory/view-columns'

/**
 * A page in a chosen column's order: positions in the column's sorted ids (view-columns.ts);
 * with filters, the query's matches picked along them by the driver its selectivity calls
 * for (sorted-page.ts, through the search's SortedPager). Keyset paging as for the date
 * order: the query remembers, per page served, the position in the sorted ids it ended at,
 * so reading on starts there and a jump starts from the nearest one known.
 */
export function columnPage(
  ctx: SearchContext,
  p: Prepared,
  sortBy: ColumnSort,
  offset: number,
  limit: number
): { page: SearchPage; trace: PageTrace } {
  const started = performance.now()
  const filtered = p.q.match !== null || p.q.where.length > 0
  if (p.q.empty || !filtered) {
    // Nothing to pick: the plan is the query's alone (choosePage records why).
    const facts: ColumnFacts = {
      order: 'column',
      empty: p.q.empty,
      filtered,
      kept: false,
      listRead: false,
      rare: false,
      skip: 0,
      probeMax: PROBE_MAX,
      listLength: { get: () => 0, known: () => undefined },
      listSortMax: limit,
      declined: []
    }
    const path = choosePage(facts)
    const ids: number[] = []
    if (path.kind === 'column-all') {
      const sorted = ctx.view.sortedBy(sortBy.column)
      for (let i = offset; i < Math.min(sorted.order.length, offset + limit); i++) ids.push(positionAt(sorted, sortBy.dir, i))
    }
    const trace = { plan: path.kind, tried: [], inputs: { empty: facts.empty, filtered }, ms: performance.now() - started }
    return { page: { offset, rows: ids.length === 0 ? [] : ctx.reader.rows.byIds(ids) }, trace }
  }
  const sorted = ctx.view.sortedBy(sortBy.column)
  const state = ctx.stateFor(`${p.q.key}\u0000${sortBy.column}\u0000${sortBy.dir}\u0000${ctx.view.versionOf(sortBy.column)}`)
  const { ids, trace } = ctx.sortedPager(sorted, sortBy.dir, sortedMatches(ctx, p, limit), state, offset, limit)
  return {
    page: { offset, rows: ids.length === 0 ? [] : ctx.reader.rows.byIds(ids) },
    trace: { ...trace, ms: performance.now() - started }
  }
}

/** The query's matches as a sorted page asks for them, each read only when asked. */
function sortedMatches(ctx: SearchContext, p: Prepared, limit: number): SortedMatches {
  const matches = ctx.matchesOf(p)
  // Sized to the largest id, not the count: ids of removed calls leave gaps.
  const size = ctx.columns.quarters().length
  const rare = p.q.match !== null && p.estimate.n <= walkThreshold(ctx.catalog.totalCalls(), limit)
  // A rare word alone: the estimate counted every match and kept their ids, so the list costs
  // nothing more (the match set would read them again through a byte per call).
  const counted = rare && !matches.read && p.q.where.length === 0 && p.estimate.ids !== null ? p.estimate.ids : null
  return {
    read: matches.read,
    rare,
    total: size,
    list: () => (counted !== null ? Int32Array.from(JSON.parse(counted) as number[]) : (matches.list() ?? new Int32Array(0))),
    bitmap: () => matches.bitmap(size) ?? new Uint8Array(size).fill(1),
    probe: (ids) => new Set(ctx.reader.matches.idList(matchedAmong(p.q, JSON.stringify(ids))))
  }
}
