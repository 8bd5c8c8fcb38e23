import { QUARTER_MS } from '../../cache'

/**
 * The pruned ranking's parts (relevance-rank.ts, `pruned`): the matches scored from typed
 * arrays walked in id order, and only the first page's share of them kept and sorted.
 *
 * At 5,000,000 calls a week's span holds ~96,000 ids and a 30 % word's ~30,000 matches;
 * scoring each with a Map lookup of its repeat count (a Map of 278,000 rows for such a word)
 * and a byte set per word took 15–20 ms, sorting every rank to find the page's 3–6 ms, and
 * the span's ids read from the date index 6 ms. Here a word's repeats are two sorted arrays
 * merged with the matches (both ascending), each word's holders are its ids merged the
 * same way, the page is a bounded heap, and the span comes from the date order in memory.
 */

/** bm25's constants in FTS5 (fts5_aux.c). */
export const K1 = 1.2
export const B = 0.75
/** Column weights of FTS5's default rank: bm25() without arguments weighs every column 1. */
export const COLUMN_WEIGHT = 1

/** Rows holding a word more than once, ascending by id, with their instance counts. */
export interface SortedRepeats {
  ids: Int32Array
  counts: Int32Array
}

export function sortedRepeats(repeats: ReadonlyMap<number, number>): SortedRepeats {
  const ids = Int32Array.from(repeats.keys()).sort()
  const counts = new Int32Array(ids.length)
  for (let i = 0; i < ids.length; i++) counts[i] = repeats.get(ids[i]!)!
  return { ids, counts }
}

/** The first index of `a` (ascending) whose value is ≥ x. */
function lowerBound(a: Int32Array, x: number): number {
  let lo = 0
  let hi = a.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (a[mid]! < x) lo = mid + 1
    else hi = mid
  }
  return lo
}

export interface ScoredTerm {
  idf: number
  repeats: SortedRepeats
  /** The ids holding the word, ascending (at least the matches that do); null: every match does. */
  holders: Int32Array | null
}

/**
 * bm25's rank of each match (ids ascending), as fts5Bm25Function computes it: for each term
 * in the query's order, idf · f(k1+1) / (f + k1(1 − b + b·D/avgdl)) added to a score that
 * starts at 0.0, then negated. A term a match does not hold adds idf · 0 / x, +0.0, which
 * leaves any sum as it was: skipping it gives the same doubles. `sizeOf(id)`: the row's
 * token count; null when a match has none (the index and the read disagree).
 */
export function rankMatches(
  ids: Int32Array,
  terms: readonly ScoredTerm[],
  sizes: Int32Array,
  lo: number,
  avgdl: number
): Float64Array | null {
  const n = ids.length
  const norm = new Float64Array(n)
  for (let k = 0; k < n; k++) {
    const D = sizes[ids[k]! - lo]!
    if (D < 0) return null
    // The same operations as fts5Bm25Function's denominator, in its order, less the + f.
    norm[k] = K1 * (1 - B + (B * D) / avgdl)
  }
  const score = new Float64Array(n)
  for (const t of terms) {
    const rIds = t.repeats.ids
    const rN = t.repeats.counts
    let r = n === 0 ? 0 : lowerBound(rIds, ids[0]!)
    const held = t.holders
    let h = held === null || n === 0 ? 0 : lowerBound(held, ids[0]!)
    for (let k = 0; k < n; k++) {
      const id = ids[k]!
      if (held !== null) {
        while (h < held.length && held[h]! < id) h++
        if (h === held.length) break
        if (held[h] !== id) continue
      }
      while (r < rIds.length && rIds[r]! < id) r++
      const f = (r < rIds.length && rIds[r] === id ? rN[r]! : 1) * COLUMN_WEIGHT
      score[k] = score[k]! + t.idf * ((f * (K1 + 1.0)) / (f + norm[k]!))
    }
  }
  for (let k = 0; k < n; k++) score[k] = -1.0 * score[k]!
  return score
}

/** Whether a list of ids is ascending (FTS5 gives its rowids so; checked, not assumed). */
export function ascending(ids: Int32Array): Int32Array {
  for (let i = 1; i < ids.length; i++) if (ids[i]! < ids[i - 1]!) return Int32Array.from(ids).sort()
  return ids
}

/**
 * The first `want` candidates (ids ascending) by (rank, id), as the SQL orders them: a heap
 * of the `want` best seen so far, its worst on top. A candidate replaces the worst only when
 * its rank is strictly lower: one of equal rank comes later in id order, so it loses the tie.
 */
export function topByRank(ids: Int32Array, ranks: Float64Array, want: number): { ids: Int32Array; ranks: Float64Array } {
  const k = Math.min(want, ids.length)
  const heap = new Int32Array(k)
  // a after b in (rank, id) order; indices stand for ids (ascending with them).
  const worse = (a: number, b: number): boolean => ranks[a]! > ranks[b]! || (ranks[a] === ranks[b] && a > b)
  const down = (from: number): void => {
    let i = from
    for (;;) {
      const l = 2 * i + 1
      if (l >= k) return
      const c = l + 1 < k && worse(heap[l + 1]!, heap[l]!) ? l + 1 : l
      if (!worse(heap[c]!, heap[i]!)) return
      const t = heap[i]!
      heap[i] = heap[c]!
      heap[c] = t
      i = c
    }
  }
  for (let i = 0; i < k; i++) heap[i] = i
  for (let i = (k >> 1) - 1; i >= 0; i--) down(i)
  for (let i = k; i < ranks.length; i++) {
    if (ranks[i]! < ranks[heap[0]!]!) {
      heap[0] = i
      down(0)
    }
  }
  const picked = Array.from(heap).sort((a, b) => ranks[a]! - ranks[b]! || a - b)
  return { ids: Int32Array.from(picked, (i) => ids[i]!), ranks: Float64Array.from(picked, (i) => ranks[i]!) }
}

/**
 * The smallest and largest id of the calls whose quarter hour meets [from, to), from the date
 * order in memory (ids in (call_at, id) order) and each id's quarter hour: every call of the
 * range is in it, and perhaps a few of its edge quarters' (the ranking's range filter cuts
 * those). Null: no call. What `SELECT min(id), max(id)` over the date index answers, less
 * its scan of the range's index entries.
 */
export function spanInOrder(order: Int32Array, quarters: Int32Array, from: number | null, to: number | null): [number, number] | null {
  const q0 = from === null ? -Infinity : Math.floor(from / QUARTER_MS)
  const q1 = to === null ? Infinity : Math.ceil(to / QUARTER_MS) - 1
  const first = (q: number): number => {
    let lo = 0
    let hi = order.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (quarters[order[mid]!]! < q) lo = mid + 1
      else hi = mid
    }
    return lo
  }
  const a = first(q0)
  const b = q1 === Infinity ? order.length : first(q1 + 1)
  if (a >= b) return null
  let min = order[a]!
  let max = min
  for (let k = a + 1; k < b; k++) {
    const id = order[k]!
    if (id < min) min = id
    else if (id > max) max = id
  }
  return [min, max]
}
