import { QUARTER_MS, type CallSpan } from '../../cache'
import { PerVersion, type DataWatch } from '../data-watch'
import { NO_CALL } from './columns'

/**
 * The id span of a date range from the calls' quarter hours in memory, before the date order
 * is (a search just opened, or no warm-up): what `SELECT min(id), max(id)` over the date index
 * answers, less its pass over the range's entries (96,000 for a week at 5,000,000 calls, 9 ms,
 * a third of a week's relevance page). Each chunk of ids keeps its smallest and largest
 * quarter hour (per data version, a pass over the column once); a range's span is then the
 * first and last chunks that may hold it, scanned. When ids follow dates that is two chunks;
 * when they do not, more, and never a wrong answer: a chunk is skipped only when none of its
 * calls can be in the range.
 */

/** Ids per chunk: 306 chunks at 5,000,000 calls, two of them scanned for a week's span. */
export const SPAN_CHUNK = 1 << 14

interface Chunks {
  quarters: Int32Array
  min: Int32Array
  max: Int32Array
}

export class QuarterSpans {
  private readonly kept: PerVersion<{ chunks: Chunks | null }>

  constructor(
    /** Quarter hour by call id, NO_CALL where no call (CallColumns.quarters). */
    private readonly quarters: () => Int32Array,
    watch: DataWatch,
    private readonly chunk = SPAN_CHUNK
  ) {
    this.kept = new PerVersion(watch, () => ({ chunks: null }))
  }

  private chunks(): Chunks {
    const kept = this.kept.get()
    const quarters = this.quarters()
    if (kept.chunks?.quarters === quarters) return kept.chunks
    const C = this.chunk
    const n = Math.ceil(quarters.length / C)
    const min = new Int32Array(n)
    const max = new Int32Array(n)
    // Chunk by chunk in locals (NO_CALL too: an imported binding read per id can cost more
    // than the pass itself, ~150 against ~15 ms at 5,000,000 calls).
    const none = NO_CALL
    for (let c = 0; c < n; c++) {
      let lo = 0x7fffffff
      let hi = none
      const end = Math.min(quarters.length, (c + 1) * C)
      for (let i = c * C; i < end; i++) {
        const q = quarters[i]!
        if (q === none) continue
        if (q < lo) lo = q
        if (q > hi) hi = q
      }
      min[c] = lo
      max[c] = hi
    }
    kept.chunks = { quarters, min, max }
    return kept.chunks
  }

  /**
   * The smallest and largest id of the calls whose quarter hour meets [from, to): every call
   * of the range lies in it, and perhaps some of its edge quarters' (a ranking's range filter
   * cuts those), as spanInOrder. Null: no call.
   */
  span(from: number | null, to: number | null): [number, number] | null {
    const { quarters, min, max } = this.chunks()
    const q0 = from === null ? -Infinity : Math.floor(from / QUARTER_MS)
    const q1 = to === null ? Infinity : Math.ceil(to / QUARTER_MS) - 1
    const inRange = (q: number): boolean => q !== NO_CALL && q >= q0 && q <= q1
    const may = (c: number): boolean => max[c]! >= q0 && min[c]! <= q1 && max[c] !== NO_CALL
    const C = this.chunk
    let lo = -1
    for (let c = 0; c < min.length && lo < 0; c++) {
      if (!may(c)) continue
      const end = Math.min(quarters.length, (c + 1) * C)
      for (let i = c * C; i < end; i++) {
        if (inRange(quarters[i]!)) {
          lo = i
          break
        }
      }
    }
    if (lo < 0) return null
    for (let c = min.length - 1; c >= 0; c--) {
      if (!may(c)) continue
      for (let i = Math.min(quarters.length, (c + 1) * C) - 1; i >= c * C; i--) if (inRange(quarters[i]!)) return [lo, i]
    }
    return null
  }

  /**
   * Whether asking the chunks costs no pass over the quarter hours: they are made for the
   * data as it is, or the data has not changed for `restMs` (a cache at rest: making them,
   * ~10 ms at 5,000,000 calls, then serves every page until the next write; while a sync
   * writes each second, a page would pay it for the one answer).
   */
  ready(restMs: number): boolean {
    const kept = this.kept.get()
    return (kept.chunks !== null && kept.chunks.quarters === this.quarters()) || this.kept.atRest(restMs)
  }

  /**
   * Whether some call whose id is outside `ids` is dated at or after `at` (desc; at or before,
   * asc): what the date index's walk down to `at` answers (CallReads.datedOutside), from the
   * chunks. True or false when the quarter hours decide; null when only the date index can (a
   * call outside in `at`'s own quarter hour). A chunk whose quarters all fall on the far side
   * of `at`'s is passed over whole; when ids follow dates that is every chunk below the range
   * (desc), so the answer costs a few hundred comparisons instead of the index's entries down
   * to the page's end (~2 ms for two 5 % words' first page at 5,000,000 calls).
   */
  datedOutside(at: number, ids: CallSpan, desc: boolean): boolean | null {
    const { quarters, min, max } = this.chunks()
    const q = Math.floor(at / QUARTER_MS)
    const C = this.chunk
    const none = NO_CALL
    let unsure = false
    for (let c = 0; c < min.length; c++) {
      if (max[c] === NO_CALL || (desc ? max[c]! < q : min[c]! > q)) continue
      const first = c * C
      const last = Math.min(quarters.length, first + C) - 1
      if (first >= ids.lo && last <= ids.hi) continue
      for (let i = first; i <= last; i++) {
        if (i >= ids.lo && i <= ids.hi) continue
        const v = quarters[i]!
        if (v === none) continue
        if (desc ? v > q : v < q) return true
        if (v === q) unsure = true
      }
    }
    return unsure ? null : false
  }
}
