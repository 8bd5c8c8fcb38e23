import type { SearchPage } from '../../../shared/domain'
import type { CallSpan, SearchReader } from '../../cache'
import type { CompiledQuery } from '../query/compile'
import { datedAmong } from '../query/sql'

/**
 * A first page in date order from the newest (oldest) ids alone, before the query's matches
 * are counted (id-range). Calls are written as a sync pulls them, in time order, so the
 * newest calls hold the largest ids; FTS5 reads a doclist's stretch between two rowids
 * without the rest. The text's matches in the last ids' range are asked about (the query's
 * other conditions in SQL, in date order) and the range grows until the page is full; then
 * the quarter hours in memory (or, when they cannot tell, the date index) say whether any
 * call outside the range comes before the page's last row.
 * None: the page is exact. Some (ids not in time order): null, and the estimate's paths
 * serve it. At 5,000,000 calls listing every match of two 5 % words (16,500) cost 17 ms
 * before the page was even begun; a range holding the page's matches costs a few hundred
 * of them, and the date index's entries down to the page's end are tested in SQLite
 * (~0.08 µs each) instead of read out (~0.2 µs).
 */

/** The first range's length per row the page wants. */
export const ID_RANGE_FIRST = 16
/** A range grows at least this many times over, and at most ID_RANGE_GROWTH times. */
const GROWTH_MIN = 2
const ID_RANGE_GROWTH = 16
/** The text's matches asked about per row the page wants before it gives up (a rare text, or other conditions few pass). */
export const ID_RANGE_READS = 20
/**
 * Ids the range may cover per row the page wants: the date index's entries down to the
 * page's end are tested one by one (~0.03–0.08 µs each), and a rare text's stretch of its
 * doclists is read again for each range, so a text so rare that its page spans a million ids
 * (a phrase of two 5 % words at 5,000,000 calls: 80 ms) is left to the estimate, which lists
 * its few matches. Two 5 % words need ~500 per row. It gives up as soon as the rows found so
 * far say the page would need more.
 */
export const ID_RANGE_SPAN = 1000

type Dated = [number, number, string]

export interface IdRangeInput {
  q: CompiledQuery
  offset: number
  limit: number
  desc: boolean
  reader: Pick<SearchReader, 'rows' | 'columns'>
  /** The text's matches among the ids lo..hi, ascending (FTS5, bounded by rowid). */
  matchesIn: (span: CallSpan) => Int32Array
  /**
   * Whether a call outside the ids is dated at or after (before, asc) the time, from memory
   * (QuarterSpans.datedOutside); null when memory cannot tell, and the date index is asked.
   */
  datedOutside?: (at: number, ids: CallSpan, desc: boolean) => boolean | null
}

/** a before b in the page's order. */
function before(a: Dated, b: Dated, desc: boolean): boolean {
  const c = a[1] !== b[1] ? a[1] - b[1] : a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0
  return desc ? c > 0 : c < 0
}

/** The first `want` of two lists in the page's order. */
function merge(a: Dated[], b: Dated[], want: number, desc: boolean): Dated[] {
  const out: Dated[] = []
  let i = 0
  let j = 0
  while (out.length < want && (i < a.length || j < b.length)) {
    if (j >= b.length || (i < a.length && before(a[i]!, b[j]!, desc))) out.push(a[i++]!)
    else out.push(b[j++]!)
  }
  return out
}

export function idRangePage(input: IdRangeInput): SearchPage | null {
  const { q, offset, limit, desc, reader, matchesIn } = input
  const ids = reader.columns.idBounds()
  if (ids === null) return { offset, rows: [] }
  const want = offset + limit
  // The ids asked about so far: [lo, hi], grown away from the page's end of the ids.
  let lo = desc ? ids.hi + 1 : ids.lo
  let hi = desc ? ids.hi : ids.lo - 1
  let page: Dated[] = []
  let read = 0
  let next = ID_RANGE_FIRST * want
  const maxSpan = ID_RANGE_SPAN * want
  for (;;) {
    const part = desc ? { lo: Math.max(ids.lo, lo - next), hi: lo - 1 } : { lo: hi + 1, hi: Math.min(ids.hi, hi + next) }
    const found = matchesIn(part)
    read += found.length
    if (read > ID_RANGE_READS * want) return null
    if (found.length > 0) {
      const rows = reader.columns.datedRows(datedAmong(q, JSON.stringify(Array.from(found)), desc, want))
      page = merge(page, rows, want, desc)
    }
    if (desc) lo = part.lo
    else hi = part.hi
    const whole = lo <= ids.lo && hi >= ids.hi
    if (whole) break
    if (page.length === want) {
      const last = page[want - 1]!
      const outside = input.datedOutside?.(last[1], { lo, hi }, desc) ?? reader.columns.datedOutside([last[1], last[2]], { lo, hi }, desc)
      if (outside) return null
      break
    }
    // Sized from the rows found so far to hold the page, with a margin.
    const span = hi - lo + 1
    const target = page.length === 0 ? ID_RANGE_GROWTH * span : Math.ceil((1.5 * want * span) / page.length)
    const needed = page.length === 0 ? (span * ID_RANGE_GROWTH >= maxSpan ? Infinity : 0) : (want * span) / page.length
    if (span >= maxSpan || needed > maxSpan) return null
    next = Math.min(maxSpan, ID_RANGE_GROWTH * span, Math.max(GROWTH_MIN * span, target)) - span
  }
  const pageIds = page.slice(offset).map((r) => r[0])
  return { offset, rows: pageIds.length === 0 ? [] : reader.rows.byIds(pageIds) }
}
