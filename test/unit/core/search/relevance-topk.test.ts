import { describe, expect, it } from 'vitest'
import { QUARTER_MS } from '../../../../src/core/cache'
import { inRankOrder } from '../../../../src/core/search/memory/relevance-rank'
import { rankMatches, sortedRepeats, spanInOrder, topByRank } from '../../../../src/core/search/memory/relevance-topk'
import { rnd } from './fixture'

/** Every candidate in (rank, id) order: the reference the page is cut from. */
const fullOrder = (ids: Int32Array, ranks: Float64Array): number[] =>
  Array.from(ids.keys())
    .sort((a, b) => ranks[a]! - ranks[b]! || ids[a]! - ids[b]!)
    .map((i) => ids[i]!)

describe('the pruned ranking (relevance-topk.ts)', () => {
  it('keeps every candidate that belongs on the page, ties at its edge cut in id order', () => {
    const r = rnd(7)
    for (let round = 0; round < 150; round++) {
      const n = 1 + Math.floor(r() * 300)
      // Few distinct ranks (most candidates tie, as one-word ranks do at equal lengths), or many.
      const distinct = round % 3 === 0 ? 1 + Math.floor(r() * 4) : 1000
      const ids = new Int32Array(n)
      let id = Math.floor(r() * 50)
      for (let i = 0; i < n; i++) ids[i] = id += 1 + Math.floor(r() * 5)
      const ranks = Float64Array.from({ length: n }, () => -Math.floor(r() * distinct) / 7)
      const want = fullOrder(ids, ranks)
      for (const k of [1, 2, 5, Math.floor(n / 2) + 1, n - 1, n, n + 3]) {
        if (k < 1) continue
        const got = topByRank(ids, ranks, k)
        expect(Array.from(got.ids), `round ${round}, ${k} of ${n}`).toEqual(want.slice(0, k))
        const rankOf = new Map(Array.from(ids, (x, i) => [x, ranks[i]!]))
        expect(Array.from(got.ranks)).toEqual(Array.from(got.ids, (x) => rankOf.get(x)))
        expect(Array.from(inRankOrder(ids, ranks, k).ids)).toEqual(want.slice(0, k))
      }
    }
  })

  it('scores as bm25 term by term: repeats and holders merged with the matches, a term not held adding nothing', () => {
    const r = rnd(11)
    const lo = 100
    const sizes = Int32Array.from({ length: 300 }, () => 1 + Math.floor(r() * 60))
    const ids = Int32Array.from({ length: 300 }, (_, i) => lo + i).filter(() => r() < 0.6)
    const avgdl = 23.5
    const holders = [null, ids.filter(() => r() < 0.5), ids.filter(() => r() < 0.1), new Int32Array(0)]
    const repeats = holders.map((h) => {
      const m = new Map<number, number>()
      for (const id of h ?? ids) if (r() < 0.2) m.set(id, 2 + Math.floor(r() * 3))
      // Rows outside the span and rows that do not match hold repeats too.
      m.set(3, 5)
      m.set(lo + 299 + 50, 2)
      return m
    })
    const idfs = [0.3, 1.7, 4.2, 2.2]
    const got = rankMatches(
      ids,
      holders.map((h, t) => ({ idf: idfs[t]!, repeats: sortedRepeats(repeats[t]!), holders: h })),
      sizes,
      lo,
      avgdl
    )!
    // fts5Bm25Function as relevance-rank.ts wrote it before: every term, f = 0 where not held.
    const want = Array.from(ids, (id) => {
      const D = sizes[id - lo]!
      let score = 0.0
      for (let t = 0; t < idfs.length; t++) {
        const h = holders[t]!
        const f = h === null || h.includes(id) ? (repeats[t]!.get(id) ?? 1) : 0
        score += idfs[t]! * ((f * (1.2 + 1.0)) / (f + 1.2 * (1 - 0.75 + (0.75 * D) / avgdl)))
      }
      return -1.0 * score
    })
    expect(Array.from(got)).toEqual(want)
    // A match without a size: the ranking does not apply.
    const holed = Int32Array.from(sizes)
    holed[ids[5]! - lo] = -1
    expect(rankMatches(ids, [{ idf: 1, repeats: sortedRepeats(new Map()), holders: null }], holed, lo, avgdl)).toBeNull()
  })

  it("finds the range's ids from the date order: every call of the range, and only its edge quarters' besides", () => {
    const r = rnd(3)
    const n = 2000
    const at = Array.from({ length: n }, () => Math.floor(r() * 40 * 24) * (QUARTER_MS / 4) + Math.floor(r() * 1000))
    const quarters = Int32Array.from(at, (t) => Math.floor(t / QUARTER_MS))
    const order = Int32Array.from(at.keys()).sort((a, b) => at[a]! - at[b]! || a - b)
    for (let round = 0; round < 200; round++) {
      const a = Math.floor(r() * 11 * 24 * QUARTER_MS) - QUARTER_MS
      const from = round % 10 === 0 ? null : a
      const to = round % 7 === 0 ? null : a + Math.floor(r() * 30 * QUARTER_MS)
      const inRange = [...at.keys()].filter((id) => (from === null || at[id]! >= from) && (to === null || at[id]! < to))
      const span = spanInOrder(order, quarters, from, to)
      if (inRange.length === 0) {
        // None in the range: none in its quarters either, or only edge ones.
        if (span !== null) for (let id = span[0]; id <= span[1]; id++) expect(inRange).not.toContain(id)
        continue
      }
      expect(span).not.toBeNull()
      const [lo, hi] = span!
      expect(lo).toBeLessThanOrEqual(Math.min(...inRange))
      expect(hi).toBeGreaterThanOrEqual(Math.max(...inRange))
      const q0 = from === null ? -Infinity : Math.floor(from / QUARTER_MS)
      const q1 = to === null ? Infinity : Math.ceil(to / QUARTER_MS) - 1
      expect(quarters[lo]! >= q0 && quarters[lo]! <= q1).toBe(true)
      expect(quarters[hi]! >= q0 && quarters[hi]! <= q1).toBe(true)
    }
  })
})
