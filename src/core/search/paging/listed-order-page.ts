import type { SearchPage } from '../../../shared/domain'
import type { SearchReader } from '../../cache'
import { inDateOrder, type DateOrder } from '../memory/date-rank'
import { LISTED_SLICE_MARGIN } from '../plan/page-plan'
import type { CompiledQuery } from '../query/compile'
import { passingAmong } from '../query/sql'
import { reviewWalkPage } from './review-page'

/** What a page of listed matches reads, besides where their date order comes from. */
interface ListedPageInput {
  q: CompiledQuery
  offset: number
  limit: number
  reader: SearchReader
}

/**
 * A page of the matches the bounded count listed, in date order by each call's place in the
 * date order kept in memory (inDateOrder), so that only the page's rows are read. The SQL
 * path reads every listed call's row for its date and sorts them: random reads, ~10 µs each
 * once the file is larger than the page cache holds (~150 ms for 16,500 matches at 5,000,000
 * calls). The query's other conditions (scopes, analysis, dates) are asked in SQL of the
 * listed calls in date order, a batch at a time, until the page is full. Exact: the date
 * order is (call_at, call_id), the SQL path's order, at the same data version.
 */
export function listedOrderPage(input: ListedPageInput & { listed: readonly number[]; order: DateOrder; desc: boolean }): SearchPage {
  const byDate = inDateOrder(input.listed, input.order, input.desc)
  let k = 0
  // Every listed call may be asked (they are at most the walk threshold): never declines.
  return pageOf(input, (max) => byDate.slice(k, (k += max)))!
}

/**
 * The same page before the date order is in memory (a search just opened, no warm-up yet):
 * the newest (oldest, ascending) calls' ids read from the date index (`newest`, a slice of
 * the w first in the page's order, ascending by date), and the listed ones among them taken
 * in that order. The first slice is sized to hold the page at the listed share, then doubled
 * while it does not. Null when `maxRead` entries did not fill the page (matches far from the
 * newest calls, or mostly failing the other conditions): the SQL path serves it. Exact: each
 * slice is the start of the (call_at, call_id) order, the SQL path's order.
 */
export function listedSlicePage(
  input: ListedPageInput & {
    listed: readonly number[]
    newest: (w: number) => Int32Array
    /** The calls the cache holds: a slice this long is every call. */
    total: number
    desc: boolean
    maxRead: number
  }
): SearchPage | null {
  const { listed, newest, total, desc, maxRead } = input
  const isListed = idSet(listed)
  const want = input.offset + input.limit
  let w = Math.min(total, maxRead, Math.ceil((LISTED_SLICE_MARGIN * want * total) / Math.max(1, listed.length)))
  let read = 0
  let whole = listed.length === 0
  let gaveUp = false
  const found: number[] = []
  let k = 0
  const next = (max: number): number[] => {
    while (found.length - k < max && !whole && !gaveUp) {
      if (read >= maxRead) {
        gaveUp = true
        break
      }
      const slice = newest(w)
      const n = slice.length
      // Only the part not walked yet: the slice before was the start of this one.
      if (desc) {
        for (let i = n - 1 - read; i >= 0; i--) {
          const id = slice[i]!
          if (isListed(id)) found.push(id)
        }
      } else {
        for (let i = read; i < n; i++) {
          const id = slice[i]!
          if (isListed(id)) found.push(id)
        }
      }
      read = n
      whole = n < w || w >= total
      w = Math.min(total, maxRead, w * 2)
    }
    return found.slice(k, (k += max))
  }
  const page = pageOf(input, next)!
  return gaveUp && page.rows.length < input.limit ? null : page
}

/**
 * Whether an id is among `ids`: an open-addressed table of twice their number, a few hundred
 * KB at most (a byte per id over their span would be megabytes, touched at random).
 */
export function idSet(ids: readonly number[]): (id: number) => boolean {
  let size = 16
  while (size < 2 * ids.length) size *= 2
  const mask = size - 1
  const slots = new Int32Array(size).fill(-1)
  const slot = (id: number): number => {
    let h = Math.imul(id, 0x9e3779b1) & mask
    while (slots[h] !== -1 && slots[h] !== id) h = (h + 1) & mask
    return h
  }
  for (const id of ids) if (id >= 0) slots[slot(id)] = id
  return (id) => id >= 0 && slots[slot(id)] === id
}

/** The page from the listed calls in date order (`next`, `max` at a time), the other conditions asked in SQL. */
function pageOf({ q, offset, limit, reader }: ListedPageInput, next: (max: number) => number[]): SearchPage | null {
  if (q.where.length === 0) {
    const ids = next(offset + limit).slice(offset)
    return { offset, rows: ids.length > 0 ? reader.rows.byIds(ids) : [] }
  }
  return reviewWalkPage({ reader, q, offset, limit, next, probeMax: Infinity, among: passingAmong })
}
