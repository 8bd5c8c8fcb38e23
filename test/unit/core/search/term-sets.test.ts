import { describe, expect, it } from 'vitest'
import { createSearch, type LocalSearch } from '../../../../src/core/search'
import { SearchQuery, type SearchQueryInput } from '../../../../src/shared/domain'
import { searchedBothWays, T0 } from './fixture'

/**
 * Counts with term sets (the termSets strategy: analysis terms' sets and a whole
 * evaluation's base kept per data version, counts summed from the evaluator's bytes, words
 * with a NOT counted from their kept sets): every count equals search without the bitmap
 * evaluator (SQL only), before the sets are kept, once they are, after facets made the list
 * from the counted bytes, and after writes that change a term's calls (a stale set must not
 * answer). The shapes: NOT, OR with an analysis term, range and equals, the filter bar.
 */
const both = searchedBothWays(1500, 47)

const DAY = 24 * 3600 * 1000
const CASES: Array<[string, SearchQueryInput]> = [
  ['NOT: a common word without another', { text: 'fatura -kargo', results: 'all' }],
  ['NOT: two words without a third', { text: 'fatura iade -kargo', results: 'all' }],
  ['NOT alone', { text: '-kargo', results: 'all' }],
  ['OR with an analysis term, NOT', { text: '(gecikti OR duygu:olumsuz) -iade', results: 'all' }],
  ['range and equals', { text: 'skor:30..60 duygu:olumsuz', results: 'all' }],
  ['a strict range and equals', { text: 'skor>30 skor<60 duygu:olumlu', results: 'all' }],
  ['filter bar: a word and a range', { text: 'kargo', results: 'all', analysis: [{ kind: 'range', key: 'score', min: 40, max: null }] }],
  [
    'filter bar: a word and a range, answered (a scope filter)',
    { text: 'kargo', analysis: [{ kind: 'range', key: 'score', min: 40, max: null }] }
  ],
  [
    'range and equals over a range cutting quarter hours',
    { text: 'skor:30..60 duygu:olumsuz', results: 'all', from: T0 + 2 * DAY + 7 * 60_000 + 9, to: T0 + 30 * DAY }
  ],
  ['equals negated', { text: 'kargo -duygu:olumsuz', results: 'all' }]
]

/** Search with term sets off (main's way): the same cache, made again per test. */
function withoutTermSets(): LocalSearch {
  return createSearch(both.fx.cache, {}, { termSets: false })
}

function expectCounts(q: SearchQuery): void {
  both.ours.resetCaches()
  const n = both.sqlOnly.count(q)
  // Cold (no set kept for this version yet), then from kept sets, then with facets after
  // the count (the list made from the counted bytes), then the count again after them.
  expect(both.ours.count(q)).toBe(n)
  both.ours.resetCaches()
  expect(both.ours.count(q)).toBe(n)
  expect(both.ours.facets(q, 'sentiment', 'UTC')).toEqual(both.sqlOnly.facets(q, 'sentiment', 'UTC'))
  expect(both.ours.page(q, 0, 50).rows.map((r) => r.callId)).toEqual(both.sqlOnly.page(q, 0, 50).rows.map((r) => r.callId))
  both.ours.resetCaches()
  expect(both.ours.facets(q, 'sentiment', 'UTC')).toEqual(both.sqlOnly.facets(q, 'sentiment', 'UTC'))
  expect(both.ours.count(q)).toBe(n)
  expect(withoutTermSets().count(q)).toBe(n)
}

describe('counts from kept term sets', () => {
  it.each(CASES)('%s: equal to SQL before and after the sets are kept', (_label, input) => {
    expectCounts(SearchQuery.parse(input))
  })

  it('the cases match calls, not every call (or the comparison proves little)', () => {
    const all = both.sqlOnly.count(SearchQuery.parse({ text: '', results: 'all' }))
    for (const [label, input] of CASES) {
      const n = both.sqlOnly.count(SearchQuery.parse(input))
      expect(n, label).toBeGreaterThan(10)
      expect(n, label).toBeLessThan(all)
    }
  })

  it('the same terms in other queries take the kept sets and stay exact', () => {
    const queries = ['duygu:olumsuz', 'skor:30..60', 'skor:30..60 -duygu:olumsuz', 'duygu:olumsuz OR skor:30..60', 'fatura duygu:olumsuz']
    for (let round = 0; round < 2; round++) {
      for (const text of queries) {
        const q = SearchQuery.parse({ text, results: 'all' })
        both.ours.resetCaches()
        expect(both.ours.count(q), `${text} (round ${round})`).toBe(both.sqlOnly.count(q))
      }
    }
  })

  it('follow writes: a term set kept before a write does not answer after it', () => {
    const eq = SearchQuery.parse({ text: 'duygu:olumsuz', results: 'all' })
    const range = SearchQuery.parse({ text: 'skor:30..60 duygu:olumsuz', results: 'all' })
    const not = SearchQuery.parse({ text: 'fatura -kargo', results: 'all' })
    for (const q of [eq, range, not]) expect(both.ours.count(q)).toBe(both.sqlOnly.count(q))
    const before = both.sqlOnly.count(eq)
    // Calls rewritten (same ids: every set keeps its size) from olumsuz to olumlu, and kargo in.
    const holders = both.fx.records.filter((r) => r.analysis.some((a) => a.key === 'sentiment' && a.value === 'olumsuz')).slice(0, 7)
    expect(holders.length).toBe(7)
    both.fx.cache.writePage({
      scopeKey: 'everything',
      records: holders.map((r) => ({
        ...r,
        summary: `${r.summary} kargo`,
        analysis: r.analysis.map((a) => (a.key === 'sentiment' ? { ...a, value: 'olumlu' } : a))
      })),
      includeAnalysis: true,
      checkpoint: null
    })
    expect(both.sqlOnly.count(eq)).toBe(before - 7)
    // No reset: the search's own memory must see the data version move.
    for (const q of [eq, range, not]) expect(both.ours.count(q)).toBe(both.sqlOnly.count(q))
    for (const q of [eq, range, not]) expectCounts(q)
  })
})
