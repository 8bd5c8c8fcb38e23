import type { SearchPage } from '../../../shared/domain'
import type { RowReads, SortKey } from '../../cache'
import { ANCHOR_STEP, type QueryState } from './anchors'
import type { CallColumns } from '../memory/columns'
import type { CompiledQuery } from '../query/compile'
import type { MatchSet } from '../memory/match-set'
import type { PagePlan, SelectPlan } from '../plan/plan'
import { buildSelect, keyColumns } from '../query/sql'

/**
 * Serves a page with the plan choosePlan named: keyset pagination from the nearest known
 * position (anchors), or, for the bitmap plan, a walk of the ids in date order in memory.
 */
export class Pager {
  constructor(
    private readonly rows: RowReads,
    private readonly columns: CallColumns
  ) {}

  /** `matches`: the query's match set (kept with its state); `idLimit`: ids below it can match. */
  page(
    q: CompiledQuery,
    state: QueryState,
    plan: PagePlan,
    offset: number,
    limit: number,
    matches: () => MatchSet,
    idLimit: number
  ): SearchPage {
    switch (plan.kind) {
      case 'nothing':
        return { offset, rows: [] }
      case 'bitmap':
        return this.fromBitmap(q, state, matches(), offset, limit, idLimit)
      default:
        return this.fromKeys(q, state, plan, offset, limit)
    }
  }

  private fromKeys(q: CompiledQuery, state: QueryState, plan: SelectPlan, offset: number, limit: number): SearchPage {
    const start = this.seek(q, state, plan, offset)
    if (start === null) return { offset, rows: [] }
    // Order and cut on the keys alone, then read the page's rows: a sort then carries
    // three small values per match instead of the displayed columns.
    const inner = buildSelect(q, plan, `c.id AS rid, ${keyColumns(plan)}`, start.key, `LIMIT ${limit} OFFSET ${start.skip}`)
    const rows = this.rows.page(inner, q.order === 'date_desc' && plan.kind !== 'relevance')
    const last = rows[rows.length - 1]
    if (last) state.remember(offset + rows.length, last.key)
    return { offset, rows: rows.map((r) => r.row) }
  }

  /**
   * The key to start after, and how many rows to skip from there, for `offset`. From the
   * nearest known position, one jump lands on the last anchor boundary at or below the
   * offset (date-index plans: LIMIT 1 OFFSET n, index-only inside SQLite; sorted plans:
   * one ordered read of the keys), and the page then skips fewer than ANCHOR_STEP rows.
   */
  private seek(q: CompiledQuery, state: QueryState, plan: SelectPlan, offset: number): { key: SortKey | null; skip: number } | null {
    const near = state.nearest(offset)
    const position = near.position
    let key = near.key
    if (offset - position < ANCHOR_STEP) return { key, skip: offset - position }
    const target = Math.floor(offset / ANCHOR_STEP) * ANCHOR_STEP
    if (plan.kind === 'scan' || plan.kind === 'walk' || plan.kind === 'review') {
      key = this.rows.firstKey(buildSelect(q, plan, keyColumns(plan), key, `LIMIT 1 OFFSET ${target - position - 1}`))
      if (key === null) return null
    } else {
      let pos = position
      this.rows.eachKey(buildSelect(q, plan, keyColumns(plan), key, `LIMIT ${target - position}`), (k) => {
        pos++
        key = k
        if (pos % ANCHOR_STEP === 0) state.setAnchor(pos / ANCHOR_STEP, k)
      })
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
  private fromBitmap(q: CompiledQuery, state: QueryState, matches: MatchSet, offset: number, limit: number, idLimit: number): SearchPage {
    const bits = matches.bitmap(idLimit)
    if (bits === null) return { offset, rows: [] }
    const order = this.columns.byDate()
    const ids: number[] = []
    let seen = 0
    const take = (id: number): boolean => {
      if (bits[id] !== 1) return false
      if (seen++ >= offset) ids.push(id)
      return ids.length === limit
    }
    if (q.order === 'date_asc') {
      for (let i = 0; i < order.length; i++) if (take(order[i]!)) break
    } else {
      for (let i = order.length - 1; i >= 0; i--) if (take(order[i]!)) break
    }
    if (ids.length < limit && state.count === null) state.count = seen
    if (ids.length === 0) return { offset, rows: [] }
    return { offset, rows: this.rows.byIds(ids) }
  }
}
