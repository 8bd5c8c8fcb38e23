import type { SearchPage } from '../../../shared/domain'
import type { RowReads } from '../../cache'
import { windowPage } from './window-page'

/**
 * A deep page in date order once the query's count is known, without its match list: the
 * matches on the near side of the page (the newer or the older calls, whichever holds fewer
 * of them) are counted in FTS5 by id range, which reads the doclist without handing out a
 * row per match (about a third of listing them); only a window next to the page is then
 * evaluated and walked (window-page.ts). Reading the whole list, as the bitmap plan does,
 * costs the list's length whatever the offset; this costs the smaller side's matches.
 *
 * Exact whatever the ids' order: the near side is a run of the date order; its calls are
 * counted as a range of ids, corrected for the "strays" (the run's ids outside the range, the
 * range's calls on the far side of the date order), each asked about alone. More strays
 * than STRAY_MAX, or a side that cannot be sized in ROUNDS tries: null (another path serves).
 */

/** Strays (a counted run's ids outside its id range, and the range's calls outside the run) asked about one by one at most. */
export const STRAY_MAX = 64
/** Tries at sizing the counted side before giving up. */
const ROUNDS = 4

export interface CountSkipInput {
  /** Every call's id in ascending date order. */
  order: Int32Array
  /** The query's count. */
  count: number
  desc: boolean
  offset: number
  limit: number
  /** The query's matches with ids in [lo, hi] (FTS5's count, bounded by rowid). */
  countIn: (lo: number, hi: number) => number
  /** Every call's id is below this. */
  idLimit: number
  /** Whether a call has this id. */
  isCall: (id: number) => boolean
  /** Whether one call matches. */
  matches: (id: number) => boolean
  /** The query's exact matches over an id span (the bitmap evaluator). */
  evaluate: (within: readonly [number, number]) => { bits: Uint8Array; lo: number }
  rows: RowReads
}

/** Ids per block of the histogram that places the counted id range. */
const BLOCK_BITS = 10

/**
 * Matches among order[from, to): an id range counted in FTS5, corrected one id at a time for
 * the run's ids outside it and the range's calls outside the run (null: more than STRAY_MAX
 * of those). The range is the one that needs the fewest corrections: it starts at the run's
 * lowest id (from the oldest end; ends at its highest from the newest) and ends at the run's
 * last (first) id in the block where, on a histogram of ids per block, run and range differ
 * least, so a few old calls written late (high ids) do not stretch it over the whole cache.
 */
function matchesInRun(input: CountSkipInput, from: number, to: number, fromOldest: boolean): number | null {
  const { order, idLimit } = input
  if (to <= from) return 0
  const blocks = (idLimit >> BLOCK_BITS) + 1
  const inRun = new Uint8Array(idLimit)
  const runPer = new Int32Array(blocks)
  let lo = Infinity
  let hi = -Infinity
  for (let i = from; i < to; i++) {
    const id = order[i]!
    inRun[id] = 1
    runPer[id >> BLOCK_BITS]!++
    if (id < lo) lo = id
    if (id > hi) hi = id
  }
  // Per block: the run's first and last id in it, and the calls not in the run before the
  // first, before the last, and in all.
  const first = new Int32Array(blocks).fill(-1)
  const last = new Int32Array(blocks).fill(-1)
  const freeBeforeFirst = new Int32Array(blocks)
  const freeBeforeLast = new Int32Array(blocks)
  const free = new Int32Array(blocks)
  // Only the run's id span: no block outside it holds a run id to end the range at.
  for (let id = lo; id <= hi; id++) {
    const b = id >> BLOCK_BITS
    if (inRun[id] === 1) {
      if (first[b] === -1) {
        first[b] = id
        freeBeforeFirst[b] = free[b]!
      }
      last[b] = id
      freeBeforeLast[b] = free[b]!
    } else if (input.isCall(id)) free[b]!++
  }
  // The corrections (about) if the range ends (from the newest end: starts) at the run's last
  // (first) id in block b: the calls inside it not in the run, and the run's ids beyond it.
  // Only the choice rests on this; the corrections made below are exact.
  const fixed = fromOldest ? lo >> BLOCK_BITS : hi >> BLOCK_BITS
  let best = Infinity
  let bestEdge = fromOldest ? lo : hi
  let inside = 0
  let outside = to - from
  for (let k = 0; k < blocks; k++) {
    const b = fromOldest ? fixed + k : fixed - k
    if (b < 0 || b >= blocks) break
    outside -= runPer[b]!
    if (first[b] !== -1) {
      const cost = inside + (fromOldest ? freeBeforeLast[b]! : free[b]! - freeBeforeFirst[b]!) + outside
      if (cost < best) {
        best = cost
        bestEdge = fromOldest ? last[b]! : first[b]!
      }
    }
    inside += free[b]!
  }
  const rangeLo = fromOldest ? lo : bestEdge
  const rangeHi = fromOldest ? bestEdge : hi
  let m = input.countIn(rangeLo, rangeHi)
  let asked = 0
  for (let i = from; i < to; i++) {
    const id = order[i]!
    if (id >= rangeLo && id <= rangeHi) continue
    if (++asked > STRAY_MAX) return null
    if (input.matches(id)) m++
  }
  for (let id = rangeLo; id <= rangeHi; id++) {
    if (inRun[id] === 1 || !input.isCall(id)) continue
    if (++asked > STRAY_MAX) return null
    if (input.matches(id)) m--
  }
  return m
}

export function countSkipPage(input: CountSkipInput): SearchPage | null {
  const { order, count, offset, limit } = input
  const n = order.length
  // The page as ascending positions among the matches: [a, b).
  const b = input.desc ? count - offset : Math.min(count, offset + limit)
  const a = input.desc ? Math.max(0, count - offset - limit) : offset
  if (b <= a || n === 0) return { offset, rows: [] }
  const share = count / n
  const fromOldest = a <= count - b
  // Matches to leave on the counted side: those before the page (from the oldest end) or after it.
  const before = fromOldest ? a : count - b
  // Aim a little short of the page, so the window after the counted run starts just before it.
  let aim = Math.max(0, before - Math.max(4 * limit, Math.ceil(before * 0.02)))
  for (let round = 0; round < ROUNDS; round++) {
    const calls = Math.min(n, Math.floor(aim / Math.max(share, 1e-9)))
    const from = fromOldest ? 0 : n - calls
    const to = fromOldest ? calls : n
    const m = matchesInRun(input, from, to, fromOldest)
    if (m === null) return null
    if (m > before) {
      // The run held more than the page leaves on this side: aim shorter by what it overshot.
      aim = Math.max(0, Math.floor(aim * (before / m)) - limit)
      continue
    }
    // The window starts where the counted run ends and walks away from it.
    const skip = before - m
    const edge = fromOldest ? to : from
    const rest = fromOldest ? n - to : from
    const page = windowPage(
      (w) => (fromOldest ? order.subarray(edge, Math.min(n, edge + w)) : order.subarray(Math.max(0, edge - w), edge)),
      rest,
      !fromOldest,
      skip,
      b - a,
      share,
      input.evaluate,
      input.rows
    )
    if (page === null) return null
    // From the oldest end the rows come oldest first; from the newest, newest first.
    const rows = fromOldest === input.desc ? page.rows.reverse() : page.rows
    return { offset, rows }
  }
  return null
}
