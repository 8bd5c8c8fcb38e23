import type { SearchPage } from '../../../shared/domain'
import type { RowReads } from '../../cache'
import { countOf } from '../memory/bitmap-eval'

/**
 * A page in date order from the bitmap evaluator asked about the newest (or oldest) calls
 * only: a window of the ids in date order, its id span evaluated (FTS5 reads only that
 * stretch of each doclist, so a common word or a short prefix costs what the window holds),
 * the window walked in order. When the window holds too few matches it grows fourfold, up
 * to every call. Exact whatever the ids' order: the evaluation is exact for every id in the
 * span, and every id of the window lies in it.
 *
 * `maxSpan`: when the window's ids spread over more than this many times its length (ids
 * not in date order, so the span holds most calls), null: the caller's walk is cheaper.
 *
 * `maxWindow`: the window grows no larger; when that one holds too few matches, or a window
 * holds them too sparsely to fill the page within it, null (a first page tried before its
 * estimate, window-first: the estimate then chooses).
 *
 * `newest(w)`: the w newest (desc) or oldest calls' ids, in ascending date order; fewer when
 * the cache holds fewer. From the date order in memory (`orderSlice`), or read from the date
 * index when the order is not kept yet (a search just opened: reading the whole order would
 * sit on its first keystroke).
 */
export function windowPage(
  newest: (w: number) => Int32Array,
  /** The calls the cache holds: the window grows up to them. */
  total: number,
  desc: boolean,
  offset: number,
  limit: number,
  /** Matches expected per call (the estimate), to size the first window. */
  share: number,
  evaluate: (within: readonly [number, number]) => { bits: Uint8Array; lo: number },
  rows: RowReads,
  maxSpan = Infinity,
  maxWindow = Infinity
): (SearchPage & { seen: number; whole: boolean }) | null {
  const want = offset + limit
  let w = Math.min(total, maxWindow, Math.max(4 * want, Math.ceil((2 * want) / Math.max(share, 1e-6))))
  for (;;) {
    const window = newest(w)
    let lo = Infinity
    let hi = -Infinity
    for (let i = 0; i < window.length; i++) {
      const id = window[i]!
      if (id < lo) lo = id
      if (id > hi) hi = id
    }
    const whole = w >= total || window.length < w
    if (!whole && hi - lo + 1 > maxSpan * window.length) return null
    const { bits, lo: first } = window.length === 0 ? { bits: new Uint8Array(0), lo: 0 } : evaluate([lo, hi])
    const ids: number[] = []
    let seen = 0
    for (let k = 0; k < window.length && ids.length < limit; k++) {
      const id = window[desc ? window.length - 1 - k : k]!
      if (bits[id - first] !== 1) continue
      if (seen++ >= offset) ids.push(id)
    }
    if (ids.length === limit || whole) {
      // Every call asked about: the count is the bitmap's.
      return { offset, rows: ids.length === 0 ? [] : rows.byIds(ids), seen: whole ? countOf(bits) : seen, whole }
    }
    // Tried before the estimate (window-first): matches too sparse to fill the page within
    // maxWindow give up at once, so a rare word pays for one small window.
    if (w >= maxWindow || (want * window.length) / Math.max(1, seen) > maxWindow) return null
    w = Math.min(total, maxWindow, w * 4)
  }
}

/** `newest` for windowPage from the whole date order in memory (ascending). */
export function orderSlice(order: Int32Array, desc: boolean): (w: number) => Int32Array {
  return (w) => (desc ? order.subarray(Math.max(0, order.length - w)) : order.subarray(0, Math.min(order.length, w)))
}
