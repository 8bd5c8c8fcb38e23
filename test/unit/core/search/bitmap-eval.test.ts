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

/**
 * Ids in date order (as a sync writes them): the first page's window is a narrow id span at
 * the newest (or oldest) end, evaluated over that span alone (bitmap-eval.ts evaluateSpan:
 * doclists read between the span's ids, analysis items found by binary search), and walk
 * plans take it too. Same pages as SQL, newest and oldest first.
 */
describe('the window of the newest calls, ids in date order', () => {
  let timed: Fixture
  let windowed: LocalSearch
  let sql: LocalSearch
  beforeAll(() => {
    timed = buildFixture(1500, 23, { timeOrdered: true })
    windowed = createSearch(timed.cache)
    sql = createSearch(timed.cache, { bitmaps: false })
  })
  afterAll(() => timed.close())

  const ORDERED: Array<[string, Partial<SearchQueryInput>]> = [
    ['every call, newest first', { results: 'all' }],
    ['every call, oldest first', { results: 'all', sort: 'date_asc' }],
    ['a date range and a scope', { from: T0 + 5 * DAY + 7 * 60_000 + 123, to: T0 + 30 * DAY }],
    ['a filter-bar analysis filter', { results: 'all', analysis: [{ kind: 'range', key: 'score', min: 40, max: null }] }]
  ]
  for (const [filterLabel, filters] of ORDERED) {
    it.each(LANGUAGE_CASES)(`${filterLabel}: %s: %s`, (_label, text) => {
      const q = SearchQuery.parse({ ...filters, text })
      windowed.resetCaches()
      sql.resetCaches()
      for (const offset of [0, 50, 150]) expect(pageIds(windowed, q, offset), `offset ${offset}`).toEqual(pageIds(sql, q, offset))
      expect(windowed.count(q)).toBe(sql.count(q))
    })
  }
})
