import type { SearchPage } from '../../../shared/domain'
import type { SearchReader } from '../../cache'
import { inDateOrder, type DateOrder } from '../memory/date-rank'
import type { CompiledQuery } from '../query/compile'
import { passingAmong } from '../query/sql'
import { reviewWalkPage } from './review-page'

/**
 * A page of the matches the bounded count listed, in date order by each call's place in the
 * date order kept in memory (inDateOrder), so that only the page's rows are read. The SQL
 * path reads every listed call's row for its date and sorts them: random reads, ~10 µs each
 * once the file is larger than the page cache holds (~150 ms for 16,500 matches at 5,000,000
 * calls). The query's other conditions (scopes, analysis, dates) are asked in SQL of the
 * listed calls in date order, a batch at a time, until the page is full. Exact: the date
 * order is (call_at, call_id), the SQL path's order, at the same data version.
 */
export function listedOrderPage(input: {
  listed: readonly number[]
  order: DateOrder
  q: CompiledQuery
  desc: boolean
  offset: number
  limit: number
  reader: SearchReader
}): SearchPage {
  const { q, offset, limit, reader } = input
  const byDate = inDateOrder(input.listed, input.order, input.desc)
  if (q.where.length === 0) {
    const ids = byDate.slice(offset, offset + limit)
    return { offset, rows: ids.length > 0 ? reader.rows.byIds(ids) : [] }
  }
  let k = 0
  const next = (max: number): number[] => byDate.slice(k, (k += max))
  // Every listed call may be asked (they are at most the walk threshold): never declines.
  return reviewWalkPage({ reader, q, offset, limit, next, probeMax: Infinity, among: passingAmong })!
}
