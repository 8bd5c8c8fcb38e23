import type { ColumnSort, SearchPage } from '../../shared/domain'
import { walkThreshold } from './plan'
import type { Prepared, SearchContext } from './search-context'
import { PROBE_MAX, probeSorted } from './sorted-probe'
import { positionAt } from './view-columns'

/**
 * A page in a chosen column's order: positions in the column's sorted ids (view-columns.ts),
 * the query's matches tested along them through its match bitmap. Keyset paging as for
 * the date order: the query remembers, per page served, the position in the sorted ids it
 * ended at, so reading on starts there and a jump starts from the nearest one known.
 */
export function columnPage(ctx: SearchContext, p: Prepared, sortBy: ColumnSort, offset: number, limit: number): SearchPage {
  if (p.q.empty) return { offset, rows: [] }
  const sorted = ctx.view.sortedBy(sortBy.column)
  const total = ctx.catalog.totalCalls()
  const ids: number[] = []
  if (p.q.match === null && p.q.where.length === 0) {
    for (let i = offset; i < Math.min(sorted.order.length, offset + limit); i++) ids.push(positionAt(sorted, sortBy.dir, i))
    return { offset, rows: ids.length === 0 ? [] : ctx.reader.rows.byIds(ids) }
  }
  const state = ctx.stateFor(`${p.q.key}\u0000${sortBy.column}\u0000${sortBy.dir}\u0000${ctx.view.versionOf(sortBy.column)}`)
  const near = state.nearest(offset)
  const start = near.key === null ? 0 : near.key[0] + 1
  const at = (i: number): number => positionAt(sorted, sortBy.dir, i)
  // Near a known position, with the match list not read (a common word's first pages): ask
  // SQL about the next candidates in batches, as the walk plan asks FTS5 about each row,
  // instead of reading every match first. A rare match list is cheap to read: read it.
  const rare = p.q.match !== null && p.estimate.n <= walkThreshold(total, limit)
  const far = offset - near.position >= PROBE_MAX / 2
  const probed =
    ctx.matchesOf(p).read || rare || far
      ? null
      : probeSorted(ctx.reader, p.q, at, sorted.order.length, start, offset - near.position, limit)
  let end: number
  if (probed !== null) {
    ids.push(...probed.ids)
    end = probed.end
  } else {
    const bits = ctx.matchesOf(p).bitmap(total + 1)!
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
  return { offset, rows: ids.length === 0 ? [] : ctx.reader.rows.byIds(ids) }
}
