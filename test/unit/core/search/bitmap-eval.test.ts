import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSearch, type LocalSearch } from '../../../../src/core/search'
import { SearchQuery, type SearchQueryInput } from '../../../../src/shared/domain'
import { buildFixture, T0, type Fixture } from './fixture'
import { LANGUAGE_CASES } from './query-cases'

/**
 * The bitmap evaluator (counts, match lists, the windowed first page) against search without
 * it (SQL only, itself tested against the brute-force evaluation in query-language.test.ts):
 * same counts, same pages, same facets, for every case of the shared table, with the
 * filters the table leaves out: a date range that cuts quarter hours, call type and result
 * filters (scopes), an analysis filter of the filter bar.
 */
let fx: Fixture
let ours: LocalSearch
let sqlOnly: LocalSearch

beforeAll(() => {
  fx = buildFixture(1500, 17)
  ours = createSearch(fx.cache)
  sqlOnly = createSearch(fx.cache, { bitmaps: false })
})
afterAll(() => fx.close())

const DAY = 24 * 3600 * 1000
const FILTERS: Array<[string, Partial<SearchQueryInput>]> = [
  ['every call', { results: 'all' }],
  ['answered (a scope filter)', {}],
  ['a date range cutting quarter hours', { results: 'all', from: T0 + 3 * DAY + 7 * 60_000 + 123, to: T0 + 40 * DAY + 11 * 60_000 + 5 }],
  ['a call type and a range', { callTypes: ['Fatura'], from: T0 + 2 * DAY, to: T0 + 60 * DAY }],
  ['a filter-bar analysis filter', { results: 'all', analysis: [{ kind: 'range', key: 'score', min: 20, max: null }] }]
]

function pageIds(s: LocalSearch, q: SearchQuery, offset: number): string[] {
  return s.page(q, offset, 50).rows.map((r) => r.callId)
}

describe('the bitmap evaluator agrees with SQL', () => {
  for (const [filterLabel, filters] of FILTERS) {
    it.each(LANGUAGE_CASES)(`${filterLabel}: %s: %s`, (_label, text) => {
      const q = SearchQuery.parse({ ...filters, text })
      ours.resetCaches()
      sqlOnly.resetCaches()
      // The first pages before the count (the windowed page), then the count, then pages
      // from the match list.
      const first = pageIds(ours, q, 0)
      expect(first).toEqual(pageIds(sqlOnly, q, 0))
      expect(pageIds(ours, q, 50)).toEqual(pageIds(sqlOnly, q, 50))
      const n = sqlOnly.count(q)
      expect(ours.count(q)).toBe(n)
      expect(pageIds(ours, q, 0)).toEqual(first)
      expect(ours.facets(q, 'sentiment', 'UTC')).toEqual(sqlOnly.facets(q, 'sentiment', 'UTC'))
      expect(ours.values(q, 'score')).toEqual(sqlOnly.values(q, 'score'))
    })
  }

  it('some of the cases under each filter match and some do not (or the comparison proves little)', () => {
    for (const [, filters] of FILTERS) {
      const counts = LANGUAGE_CASES.map(([, text]) => ours.count(SearchQuery.parse({ ...filters, text })))
      expect(counts.filter((n) => n > 20).length, JSON.stringify(filters)).toBeGreaterThan(5)
    }
  })
})
