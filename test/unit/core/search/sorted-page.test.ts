import { describe, expect, it } from 'vitest'
import { QueryState } from '../../../../src/core/search/paging/anchors'
import {
  sortedPage as sortedPager,
  probeAlong,
  PROBE_MAX,
  type SortedMatches,
  type SortedPager
} from '../../../../src/core/search/paging/sorted-page'
import { legacySortedPage } from '../../../../bench/baselines/sorted-probe'
import { orderByRank, positionAt, type SortedColumn } from '../../../../src/core/search/memory/view-columns'
import { prng } from '../../../support/prng'

/** A page's ids (the pager also says how it chose them). */
const sortedPage = (...a: Parameters<SortedPager>): number[] => sortedPager(...a).ids

// The drivers of a sorted page (the match list sorted by place, asking SQL about candidates
// along the order, walking the order against the bitmap), against the order filtered by a
// brute-force test of every call. SQL is a set here; the SQLite side is column-sort.test.ts.

const N = 20_000

function column(seed: number, ranks: number, noValue: number): SortedColumn {
  const r = prng(seed)
  // Ids not in date order, and gaps (removed calls) in the ids.
  const byDate = Int32Array.from({ length: N }, (_, i) => 1 + ((i * 7919) % (N + 500)))
  const rankOf = new Int32Array(N + 600).fill(-1)
  for (const id of byDate) rankOf[id] = r() < noValue ? -1 : Math.floor(r() * ranks)
  return { ...orderByRank(byDate, rankOf, ranks), rankOf, labels: Array.from({ length: ranks }, String), numbers: null }
}

interface Counting extends SortedMatches {
  asked: number
  listed: number
}

function matchesOf(s: SortedColumn, share: number, seed: number, read = false): Counting {
  const r = prng(seed)
  const bits = new Uint8Array(N + 600)
  for (const id of s.order) if (r() < share) bits[id] = 1
  const list = Int32Array.from(s.order.filter((id) => bits[id] === 1)).sort()
  const m: Counting = {
    asked: 0,
    listed: 0,
    read,
    rare: share < 0.02,
    total: N + 600,
    list: () => {
      m.listed++
      return list
    },
    bitmap: () => {
      m.listed++
      return bits
    },
    probe: (ids) => {
      m.asked += ids.length
      return new Set(ids.filter((id) => bits[id] === 1))
    }
  }
  return m
}

function bruteForce(s: SortedColumn, dir: 'asc' | 'desc', m: SortedMatches): number[] {
  const bits = m.bitmap()
  const out: number[] = []
  for (let i = 0; i < s.order.length; i++) if (bits[positionAt(s, dir, i)] === 1) out.push(positionAt(s, dir, i))
  return out
}

const SHARES: Array<[string, number]> = [
  ['a common word (90 %)', 0.9],
  ['a third', 0.33],
  ['a rare word (1 %)', 0.01],
  ['a very rare word', 0.0005],
  ['a selective filter without text (2.5 %, not known rare)', 0.025]
]

describe('a page of matches in a column order', () => {
  it.each(SHARES)('pages %s exactly, reading on, jumping and coming back', (_name, share) => {
    for (const dir of ['asc', 'desc'] as const) {
      for (const [ranks, noValue] of [
        [3, 0.3],
        [500, 0.05]
      ] as const) {
        const s = column(ranks, ranks, noValue)
        const want = bruteForce(s, dir, matchesOf(s, share, 11))
        for (const serve of [sortedPage, legacySortedPage]) {
          const m = matchesOf(s, share, 11)
          const state = new QueryState()
          const got: number[] = []
          for (let offset = 0; offset < Math.min(want.length + 50, 600); offset += 50) got.push(...serve(s, dir, m, state, offset, 50))
          expect(got).toEqual(want.slice(0, Math.min(want.length, 600)))
          for (const offset of [Math.floor(want.length / 2), 7, Math.max(0, want.length - 3), want.length + 10]) {
            expect(serve(s, dir, m, state, offset, 25)).toEqual(want.slice(offset, offset + 25))
          }
        }
      }
    }
  })

  it('asks about about limit / share candidates for a common word, and reads no list', () => {
    const s = column(1, 50, 0.1)
    const m = matchesOf(s, 0.9, 3)
    sortedPage(s, 'desc', m, new QueryState(), 0, 100)
    expect(m.listed).toBe(0)
    expect(m.asked).toBeLessThan(260)
  })

  it('reads the list of a word in 3 % once asking would cost more, and keeps asking for one in 7 %', () => {
    const s = column(6, 50, 0.1)
    // The costs as at 1,000,000 calls: 3 % needs ~4,000 probes against 30,000 ids read.
    const few = matchesOf(s, 0.03, 8)
    few.total = 1_000_000
    const state = new QueryState()
    expect(sortedPage(s, 'asc', few, state, 0, 100)).toEqual(bruteForce(s, 'asc', few).slice(0, 100))
    // One batch asked (what the page needs if every other call matched), then the list.
    expect(few.asked).toBeLessThanOrEqual(128)
    expect(few.listed).toBeGreaterThan(0)
    // 7 % at 1,000,000 calls: 1,400 probes cost less than 70,000 ids read and a pass over the calls.
    const sixth = matchesOf(s, 0.07, 9)
    sixth.total = 1_000_000
    expect(sortedPage(s, 'asc', sixth, new QueryState(), 0, 100)).toEqual(bruteForce(s, 'asc', sixth).slice(0, 100))
    // bruteForce's own read only.
    expect(sixth.listed).toBe(1)
    expect(sixth.asked).toBeLessThan(2_500)
  })

  it('sorts a rare word’s list by place instead of walking or asking', () => {
    const s = column(2, 50, 0.1)
    const m = matchesOf(s, 0.01, 4)
    const state = new QueryState()
    sortedPage(s, 'asc', m, state, 0, 100)
    sortedPage(s, 'asc', m, state, 100, 100)
    expect(m.asked).toBe(0)
    expect(m.listed).toBe(1)
  })

  it('gives up asking early for a selective filter, after one batch rather than PROBE_MAX candidates', () => {
    const s = column(3, 50, 0.1)
    const m = matchesOf(s, 0.002, 5)
    const at = (i: number): number => positionAt(s, 'asc', i)
    expect(probeAlong(at, s.order.length, 0, 0, 100, m.probe, N + 600)).toBeNull()
    expect(m.asked).toBeLessThan(PROBE_MAX / 10)
  })
})
