import { describe, expect, it } from 'vitest'
import type { LocalSearch } from '../../../../src/core/search'
import { PrefixSets } from '../../../../src/core/search/memory/prefix-sets'
import { SearchQuery, type SearchQueryInput } from '../../../../src/shared/domain'
import { searchedBothWays, T0 } from './fixture'

/**
 * One- and two-letter prefixes kept as id sets per data version (prefix-sets.ts): every
 * answer built on a kept set (counts, the first page from it, deep pages, facets, values)
 * equals search without the bitmap evaluator (SQL only, itself tested against the
 * brute-force evaluation in query-language.test.ts), before the set is kept, once it is, and
 * after writes that add calls and change calls that held the prefix.
 */
const both = searchedBothWays(1500, 23)

const DAY = 24 * 3600 * 1000
const CASES: Array<[string, SearchQueryInput]> = [
  ['one letter', { text: 'o', results: 'all' }],
  ['one letter, Turkish dotless ı', { text: 'ı', results: 'all' }],
  ['two letters', { text: 'ka', results: 'all' }],
  ['two letters, answered (a scope filter)', { text: 'ka' }],
  ['two letters, a range cutting quarter hours', { text: 'ka', results: 'all', from: T0 + 2 * DAY + 7 * 60_000 + 9, to: T0 + 9 * DAY }],
  ['two letters, oldest first', { text: 'ka', results: 'all', sort: 'date_asc' }],
  ['two letters by relevance over a range', { text: 'ka', results: 'all', sort: 'relevance', from: T0 + 5 * DAY, to: T0 + 12 * DAY }],
  ['two letters and a filter-bar range', { text: 'ka', results: 'all', analysis: [{ kind: 'range', key: 'score', min: 40, max: null }] }],
  ['prefixes ORed and negated', { text: '(ı OR ö) -ka', results: 'all' }],
  ['prefix and a negated word', { text: 'ka -fatura', results: 'all' }],
  ['prefix OR an analysis value', { text: 'ka OR duygu:olumsuz', results: 'all' }],
  ['a field prefix (not kept)', { text: 'title:ka', results: 'all' }],
  ['a three-letter prefix (not kept)', { text: 'kar', results: 'all' }]
]

function pageIds(s: LocalSearch, q: SearchQuery, offset: number, limit = 50): string[] {
  return s.page(q, offset, limit).rows.map((r) => r.callId)
}

function expectSame(q: SearchQuery): void {
  both.ours.resetCaches()
  both.sqlOnly.resetCaches()
  // The first pages before the count (the set may not be kept yet), the count (which keeps
  // it), then again from a reset: first pages from the kept set, deep pages, facets, values.
  expect(pageIds(both.ours, q, 0)).toEqual(pageIds(both.sqlOnly, q, 0))
  const n = both.sqlOnly.count(q)
  expect(both.ours.count(q)).toBe(n)
  both.ours.resetCaches()
  expect(pageIds(both.ours, q, 0)).toEqual(pageIds(both.sqlOnly, q, 0))
  expect(pageIds(both.ours, q, 50)).toEqual(pageIds(both.sqlOnly, q, 50))
  expect(both.ours.count(q)).toBe(n)
  expect(pageIds(both.ours, q, 600, 100)).toEqual(pageIds(both.sqlOnly, q, 600, 100))
  expect(both.ours.facets(q, 'sentiment', 'UTC')).toEqual(both.sqlOnly.facets(q, 'sentiment', 'UTC'))
  expect(both.ours.values(q, 'score')).toEqual(both.sqlOnly.values(q, 'score'))
}

describe('short-prefix sets', () => {
  it('keep exactly the one- and two-letter prefixes typed as they are', () => {
    for (const m of ['"i"*', '"ka"*', '"ış"*']) expect(PrefixSets.takes(m), m).toBe(true)
    for (const m of ['"kar"*', '"ka"', 'title : "ka"*', '("ka"*) NOT ("fatura")', '"ka"* OR "o"*', '"a b"*']) {
      expect(PrefixSets.takes(m), m).toBe(false)
    }
  })

  it.each(CASES)('%s: equal to SQL before and after the set is kept', (_label, input) => {
    expectSame(SearchQuery.parse(input))
  })

  it('the cases match calls (or the comparison proves little)', () => {
    for (const [label, input] of CASES) expect(both.sqlOnly.count(SearchQuery.parse(input)), label).toBeGreaterThan(10)
  })

  it('follow writes: new calls with the prefix, and changed calls that lost it', () => {
    const q = SearchQuery.parse({ text: 'ka', results: 'all' })
    const before = both.ours.count(q)
    expect(before).toBe(both.sqlOnly.count(q))
    const holders = both.fx.records.filter((r) => /\bka/i.test(`${r.title} ${r.summary}`)).slice(0, 5)
    expect(holders.length).toBe(5)
    both.fx.cache.writePage({
      scopeKey: 'everything',
      records: [
        { ...both.fx.records[0]!, callId: 'prefix-new-1', title: 'kaplan', summary: 'kaplan geldi', callAt: T0 + 41 * DAY },
        // The same calls written again without any word starting with "ka".
        ...holders.map((r) => ({ ...r, title: 'iade', summary: 'iade' }))
      ],
      includeAnalysis: true,
      checkpoint: null
    })
    expect(both.sqlOnly.count(q)).toBe(before + 1 - 5)
    expectSame(q)
    expect(pageIds(both.ours, q, 0, 1)).toEqual(['prefix-new-1'])
  })
})
