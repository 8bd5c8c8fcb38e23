import { describe, expect, it } from 'vitest'
import type { LocalSearch } from '../../../../src/core/search'
import { WordSets } from '../../../../src/core/search/memory/word-sets'
import { SearchQuery, type SearchQueryInput } from '../../../../src/shared/domain'
import { searchedBothWays, T0 } from './fixture'

/**
 * Common words' id sets kept per data version (word-sets.ts): every answer built on a kept
 * set (counts, facets, values, first pages from a window, deep pages) equals search without
 * the bitmap evaluator (SQL only, itself tested against the brute-force evaluation in
 * query-language.test.ts), before the sets are kept, once they are, and after writes that
 * add calls with the word and rewrite calls that held it (a stale set must not answer).
 */
const both = searchedBothWays(1500, 31)

const DAY = 24 * 3600 * 1000
const CASES: Array<[string, SearchQueryInput]> = [
  ['a common word as typed (its prefix expanded)', { text: 'fatura', results: 'all' }],
  ['a common word exactly', { text: '"iade"', results: 'all' }],
  ['a common word, answered (a scope filter)', { text: 'kargo' }],
  ['a common word and an analysis equals', { text: 'duygu:olumsuz kargo', results: 'all' }],
  [
    'a common word and a filter-bar range',
    { text: 'kargo', results: 'all', analysis: [{ kind: 'range', key: 'score', min: 40, max: null }] }
  ],
  ['a common word without a rarer one', { text: 'fatura -gecikti', results: 'all' }],
  ['a common word negated alone', { text: '-iade', results: 'all' }],
  ['two common words', { text: 'kargo iade', results: 'all' }],
  ['common words ORed', { text: 'kargo OR gecikti', results: 'all' }],
  ['an OR inside an AND with NOT', { text: '(kargo OR gecikti) fatura -iade', results: 'all' }],
  ['mixed with an analysis term', { text: '(kargo OR duygu:olumsuz) -iade', results: 'all' }],
  [
    'a common word over a range cutting quarter hours',
    { text: 'kargo', results: 'all', from: T0 + 2 * DAY + 7 * 60_000 + 9, to: T0 + 9 * DAY }
  ],
  ['a common word oldest first', { text: 'kargo', results: 'all', sort: 'date_asc' }],
  ['a common word by relevance over a range', { text: 'kargo', results: 'all', sort: 'relevance', from: T0 + 5 * DAY, to: T0 + 12 * DAY }]
]

function pageIds(s: LocalSearch, q: SearchQuery, offset: number, limit = 50): string[] {
  return s.page(q, offset, limit).rows.map((r) => r.callId)
}

function expectSame(q: SearchQuery): void {
  both.ours.resetCaches()
  both.sqlOnly.resetCaches()
  // The first page before the count (no set kept for this version yet), the count and facets
  // (which keep the sets), then again from a reset: first pages with the kept sets, deep pages.
  expect(pageIds(both.ours, q, 0)).toEqual(pageIds(both.sqlOnly, q, 0))
  const n = both.sqlOnly.count(q)
  expect(both.ours.count(q)).toBe(n)
  expect(both.ours.facets(q, 'sentiment', 'UTC')).toEqual(both.sqlOnly.facets(q, 'sentiment', 'UTC'))
  both.ours.resetCaches()
  expect(both.ours.count(q)).toBe(n)
  both.ours.resetCaches()
  expect(pageIds(both.ours, q, 0)).toEqual(pageIds(both.sqlOnly, q, 0))
  expect(pageIds(both.ours, q, 50)).toEqual(pageIds(both.sqlOnly, q, 50))
  expect(pageIds(both.ours, q, 600, 100)).toEqual(pageIds(both.sqlOnly, q, 600, 100))
  expect(both.ours.facets(q, 'sentiment', 'UTC')).toEqual(both.sqlOnly.facets(q, 'sentiment', 'UTC'))
  expect(both.ours.values(q, 'score')).toEqual(both.sqlOnly.values(q, 'score'))
}

/** How many of the query's words have a kept set, as its first page's explain says. */
function keptWords(q: SearchQuery): number {
  return Number(both.ours.explain(q, 50).served.inputs.keptWords)
}

describe('common words kept as id sets', () => {
  it('keep any text expression but a short prefix alone (the prefix sets keep those)', () => {
    for (const m of ['"fatura"', '("kargo" OR "kargolar")', '"a b"', 'title : "iade"']) expect(WordSets.takes(m), m).toBe(true)
    for (const m of ['"i"*', '"ka"*']) expect(WordSets.takes(m), m).toBe(false)
  })

  it.each(CASES)('%s: equal to SQL before and after the sets are kept', (_label, input) => {
    expectSame(SearchQuery.parse(input))
  })

  it('the cases match calls, not every call (or the comparison proves little)', () => {
    const all = both.sqlOnly.count(SearchQuery.parse({ text: '', results: 'all' }))
    for (const [label, input] of CASES) {
      const n = both.sqlOnly.count(SearchQuery.parse(input))
      expect(n, label).toBeGreaterThan(10)
      expect(n, label).toBeLessThan(all)
    }
  })

  it('a count keeps a common word, and its first page then takes it from memory', () => {
    const q = SearchQuery.parse({ text: 'duygu:olumsuz kargo', results: 'all' })
    both.ours.count(SearchQuery.parse({ text: 'kargo', results: 'all' }))
    both.ours.resetCaches()
    expect(keptWords(q)).toBe(1)
    expect(pageIds(both.ours, q, 0)).toEqual(pageIds(both.sqlOnly, q, 0))
  })

  it('follow writes: new calls with the word, and changed calls that lost it', () => {
    const q = SearchQuery.parse({ text: '"kargo"', results: 'all' })
    const with_ = SearchQuery.parse({ text: 'duygu:olumsuz "kargo"', results: 'all' })
    const without = SearchQuery.parse({ text: '-"kargo"', results: 'all' })
    const before = both.ours.count(q)
    expect(before).toBe(both.sqlOnly.count(q))
    both.ours.count(with_)
    both.ours.count(without)
    expect(keptWords(q)).toBe(1)
    const holders = both.fx.records.filter((r) => /\bkargo\b/i.test(`${r.title} ${r.summary}`)).slice(0, 5)
    expect(holders.length).toBe(5)
    // First only calls rewritten (no new id: every set keeps its size), then a call added.
    both.fx.cache.writePage({
      scopeKey: 'everything',
      records: holders.map((r) => ({ ...r, title: 'iade', summary: 'iade' })),
      includeAnalysis: true,
      checkpoint: null
    })
    expect(both.sqlOnly.count(q)).toBe(before - 5)
    // No reset: the search's own memory must see the data version move.
    expect(both.ours.count(q)).toBe(before - 5)
    expect(both.ours.count(with_)).toBe(both.sqlOnly.count(with_))
    expect(both.ours.count(without)).toBe(both.sqlOnly.count(without))
    both.fx.cache.writePage({
      scopeKey: 'everything',
      records: [
        {
          ...both.fx.records[0]!,
          callId: 'word-new-1',
          title: 'kargo',
          summary: 'kargo geldi',
          callAt: T0 + 41 * DAY,
          analysis: [{ key: 'sentiment', friendlyName: 'Duygu', value: 'olumsuz' }]
        }
      ],
      includeAnalysis: true,
      checkpoint: null
    })
    expect(both.sqlOnly.count(q)).toBe(before + 1 - 5)
    expect(both.ours.count(q)).toBe(before + 1 - 5)
    expect(both.ours.count(with_)).toBe(both.sqlOnly.count(with_))
    expect(both.ours.count(without)).toBe(both.sqlOnly.count(without))
    for (const input of [q, with_, without]) expectSame(input)
    expect(pageIds(both.ours, q, 0, 1)).toEqual(['word-new-1'])
  })
})
