import type { QueryState } from './anchors'
import { lazy, servePage, type ColumnFacts, type PageTrace } from '../plan/page-plan'
import { positionAt, type SortedColumn } from '../memory/view-columns'

/**
 * A page of a query's matches in a chosen column's order (docs/search.md, "Sorting by a
 * column"). The column's order of every call is built once per data version
 * (view-columns.ts); a page picks the query's matches along it with one of three drivers,
 * chosen by how many calls match:
 *
 *  - few matches (their list read already, or cheap to read: a rare word): the list itself
 *    sorted by each match's position in the order, kept for the query's later pages;
 *  - many matches, list not read (a common word's first pages): the order walked from the
 *    nearest known position, its calls asked about in SQL a batch at a time, the batch sized
 *    by the share of matches the previous batch found (about limit / share candidates);
 *    as soon as that share says reading the list costs less than the asking left to do (a
 *    word in a few percent of calls: 4,000 probes at 3 % against 30,000 ids and a pass
 *    over the calls at 1,000,000 calls; from about 4 % down), the list is read instead;
 *  - many matches, list read (or a jump too far for asking): the order walked, each call
 *    tested against the match bitmap.
 *
 * Every driver reads the same fixed order (value, then date; no value last), so pages are
 * exact and agree with each other whichever serves them.
 */

/** Sorted by a column, candidates asked about at most this many at once. */
const PROBE_BATCH = 500
/** Candidates asked about per page before the match list is read instead (a rare filter). */
export const PROBE_MAX = 10_000
/** The share of all calls up to which a match list is sorted by position rather than walked in the order. */
const LIST_SORT_SHARE = 1 / 32
/**
 * What asking SQL about one candidate costs (the filters and an FTS5 probe for it) in ids
 * read from a match list (~10–20 µs against ~0.3 µs at 1,000,000 calls), and what reading a
 * list costs besides its ids, in ids per call (the evaluator's pass over a byte per call).
 * At 1,000,000 calls a 7 % word's 1,400 probes cost about what its list does (docs/perf-log.md,
 * sorted pages by selectivity); a 2 % filter's 6,000 do not.
 */
export const PROBE_COST = 40
const LIST_COST_PER_CALL = 1 / 16

/** What a page needs of the query's matches; each read only if the chosen driver asks. */
export interface SortedMatches {
  /** Whether the match list was read already (the count or facets read it). */
  read: boolean
  /** Whether the match list is cheap to read: a rare word (counted under the walk threshold). */
  rare: boolean
  /** Ids in use (the largest id + 1): what reading the list costs when every call matches. */
  total: number
  /** Every match's id (reads the list once). */
  list(): Int32Array
  /** A byte per id, 1 for a match (reads the list once). */
  bitmap(): Uint8Array
  /** Which of these ids match, asked in SQL. */
  probe(ids: readonly number[]): Set<number>
}

/** Each call's position in a column's ascending order, built once per sorted column. */
const positions = new WeakMap<SortedColumn, Int32Array>()

function positionsOf(s: SortedColumn): Int32Array {
  let pos = positions.get(s)
  if (!pos) {
    let size = 0
    for (let i = 0; i < s.order.length; i++) if (s.order[i]! >= size) size = s.order[i]! + 1
    pos = new Int32Array(size).fill(-1)
    for (let i = 0; i < s.order.length; i++) pos[s.order[i]!] = i
    positions.set(s, pos)
  }
  return pos
}

/** The query's matches in the order's direction (positions in it), sorted once and kept with the query. */
const sortedLists = new WeakMap<QueryState, Int32Array>()

/**
 * The matches' places in the order, ascending: a match's place is its position read in the
 * direction (descending reads the valued part backwards, the calls without a value last).
 * Sorting the places (integers, a typed-array sort) sorts the matches; a call missing from
 * the order (written after it was built) cannot be in the list, which comes from the same
 * data version.
 */
export function placesInOrder(s: SortedColumn, dir: 'asc' | 'desc', list: Int32Array): Int32Array {
  const pos = positionsOf(s)
  const places = new Int32Array(list.length)
  let n = 0
  for (let i = 0; i < list.length; i++) {
    const id = list[i]!
    const p = id < pos.length ? pos[id]! : -1
    if (p < 0) continue
    places[n++] = dir === 'asc' || p >= s.valued ? p : s.valued - 1 - p
  }
  return places.subarray(0, n).sort()
}

/** Serves a page of matches in a column's order: its ids, and how it was chosen (page-plan.ts). */
export type SortedPager = (
  s: SortedColumn,
  dir: 'asc' | 'desc',
  m: SortedMatches,
  state: QueryState,
  offset: number,
  limit: number
) => { ids: number[]; trace: PageTrace }

/** The ids of a page of matches in a column's order, by the driver choosePage names (see the module comment). */
export const sortedPage: SortedPager = (s, dir, m, state, offset, limit) => {
  const at = (i: number): number => positionAt(s, dir, i)
  const kept = sortedLists.get(state)
  const near = state.nearest(offset)
  const start = near.key === null ? 0 : near.key[0] + 1
  const skip = offset - near.position
  const remember = (found: { ids: number[]; end: number }): number[] => {
    if (found.ids.length > 0) state.remember(offset + found.ids.length, [found.end - 1, 0])
    return found.ids
  }
  const list = lazy(() => m.list())
  const facts: ColumnFacts = {
    order: 'column',
    empty: false,
    filtered: true,
    kept: kept !== undefined,
    listRead: m.read,
    rare: m.rare,
    skip,
    probeMax: PROBE_MAX,
    listLength: lazy(() => list.get().length),
    listSortMax: Math.max(limit, s.order.length * LIST_SORT_SHARE),
    declined: []
  }
  const { result, trace } = servePage(facts, (path): number[] | null => {
    switch (path.kind) {
      case 'column-kept':
        return pick(kept!, offset, limit, at)
      case 'column-probe': {
        const asked = probeAlong(at, s.order.length, start, skip, limit, m.probe, m.total)
        return asked === null ? null : remember(asked)
      }
      case 'column-list': {
        const places = placesInOrder(s, dir, list.get())
        sortedLists.set(state, places)
        return pick(places, offset, limit, at)
      }
      case 'column-bits':
        return remember(walkBits(at, s.order.length, start, skip, limit, m.bitmap()))
      default:
        throw new Error(`A sorted page cannot be served by ${path.kind}.`)
    }
  })
  return { ids: result, trace }
}

function pick(places: Int32Array, offset: number, limit: number, at: (i: number) => number): number[] {
  const ids: number[] = []
  for (let i = offset; i < Math.min(places.length, offset + limit); i++) ids.push(at(places[i]!))
  return ids
}

/** The order walked from `start`, each call tested against the bitmap. */
function walkBits(
  at: (i: number) => number,
  length: number,
  start: number,
  skip: number,
  limit: number,
  bits: Uint8Array
): { ids: number[]; end: number } {
  const ids: number[] = []
  let seen = 0
  let i = start
  for (; i < length && ids.length < limit; i++) {
    const id = at(i)
    if (bits[id] !== 1) continue
    if (seen++ >= skip) ids.push(id)
  }
  return { ids, end: i }
}

/**
 * Matches along the order from `start`, skipping `skip` of them, up to `limit`: candidates
 * asked about in SQL a batch at a time. The first batch is what the page would need if
 * nearly every call matched (a common word); each next one what the share found so far says
 * the rest needs (with a margin), at most PROBE_BATCH. Null as soon as that share says the
 * asking left costs more than reading the match list (`total` × share ids and a pass over
 * the calls, PROBE_COST ids a candidate), or PROBE_MAX candidates will not do.
 */
export function probeAlong(
  at: (i: number) => number,
  length: number,
  start: number,
  skip: number,
  limit: number,
  probe: (ids: readonly number[]) => Set<number>,
  total: number
): { ids: number[]; end: number } | null {
  const ids: number[] = []
  const want = skip + limit
  let seen = 0
  let i = start
  // A common word's page is nearly its candidates: ask a few more than it needs, then adapt.
  let batchSize = Math.min(PROBE_BATCH, Math.ceil(1.2 * want) + 8)
  while (i < length && ids.length < limit) {
    const batch: number[] = []
    for (let k = i; k < Math.min(length, i + batchSize); k++) batch.push(at(k))
    const hits = probe(batch)
    for (const id of batch) {
      i++
      if (!hits.has(id)) continue
      if (seen++ >= skip) ids.push(id)
      if (ids.length === limit) break
    }
    if (ids.length === limit) break
    const asked = i - start
    // Matches per candidate so far; none found yet counts as half of one.
    const share = Math.max(seen, 0.5) / asked
    const more = Math.ceil((1.25 * (want - seen)) / share)
    if (asked + more > PROBE_MAX || more * PROBE_COST > (share + LIST_COST_PER_CALL) * total) return null
    batchSize = Math.min(PROBE_BATCH, Math.max(16, more))
  }
  return { ids, end: i }
}
