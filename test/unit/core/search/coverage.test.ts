import { describe, expect, it } from 'vitest'
import { CallTypeNames, intersectIntervals, uncovered, unionIntervals, type ScopeRef } from '../../../../src/core/cache'
import { queryCoverage } from '../../../../src/core/search/coverage'
import { SearchQuery, type SearchQueryInput } from '../../../../src/shared/domain'

const NAMES = new CallTypeNames([
  { value: 'Complaint', description: 'Şikayet' },
  { value: 'Refund', description: 'İade Talebi' }
])
const f = (over: Partial<ScopeRef['filters']>): ScopeRef['filters'] => ({
  callTypes: [],
  direction: null,
  results: 'answered',
  hasNewRequest: null,
  includeAnalysis: true,
  ...over
})
const SCOPES: ScopeRef[] = [
  { id: 1, filters: f({ callTypes: ['Şikayet'] }), coverage: [[0, 100]] },
  { id: 2, filters: f({ direction: 1 }), coverage: [[50, 150]] },
  { id: 3, filters: f({ results: 'all' }), coverage: [[0, 200]] },
  { id: 4, filters: f({}), coverage: [[120, 180]] }
]
const KEYS = [{ key: 'sentiment', friendlyName: 'Müşteri duygusu', numeric: false }]
const cov = (q: SearchQueryInput, scopes = SCOPES) => queryCoverage(SearchQuery.parse(q), scopes, NAMES, KEYS)
const gap = (over: Record<string, unknown>) => ({
  callTypes: [],
  direction: null,
  results: 'answered',
  hasNewRequest: null,
  analysis: false,
  ...over
})

describe('interval arithmetic', () => {
  it('unions, intersects and subtracts sorted lists', () => {
    expect(
      unionIntervals([
        [
          [0, 10],
          [20, 30]
        ],
        [[5, 22]]
      ])
    ).toEqual([[0, 30]])
    expect(
      intersectIntervals(
        [
          [0, 10],
          [20, 30]
        ],
        [[5, 25]]
      )
    ).toEqual([
      [5, 10],
      [20, 25]
    ])
    expect(
      uncovered(
        [0, 100],
        [
          [10, 20],
          [30, 40],
          [90, 120]
        ]
      )
    ).toEqual([
      [0, 10],
      [20, 30],
      [40, 90]
    ])
    expect(uncovered([0, 10], [])).toEqual([[0, 10]])
    expect(uncovered([0, 10], [[-5, 15]])).toEqual([])
  })
})

describe('query coverage', () => {
  it('one scope answers its own filters over its coverage, by Value, Description or casing', () => {
    for (const name of ['Complaint', 'Şikayet', 'ŞİKAYET'])
      expect(cov({ callTypes: [name], from: 0, to: 100 })).toEqual({ complete: true, from: 0, to: 100, missing: [] })
    expect(cov({ callTypes: ['Complaint'], from: 0, to: 130 }).missing).toEqual([gap({ callTypes: ['Complaint'], from: 100, to: 130 })])
  })

  it('a type scope and a direction scope answer both filters on their common coverage', () => {
    expect(cov({ callTypes: ['Complaint'], direction: 1, from: 50, to: 100 }).complete).toBe(true)
    expect(cov({ callTypes: ['Complaint'], direction: 1, from: 0, to: 150 }).missing).toEqual([
      gap({ callTypes: ['Complaint'], direction: 1, from: 0, to: 50 }),
      gap({ callTypes: ['Complaint'], direction: 1, from: 100, to: 150 })
    ])
  })

  it('names the types no scope answers, grouped with the range they miss', () => {
    expect(cov({ callTypes: ['Refund', 'Şikayet'], from: 0, to: 100 }).missing).toEqual([gap({ callTypes: ['Refund'], from: 0, to: 100 })])
    expect(() => cov({ callTypes: ['Kargo'] })).toThrow(expect.objectContaining({ code: 'UnknownCallType' }))
  })

  it('answered only needs an answered scope that holds every call; all results needs a scope with no filter', () => {
    // The all-results scope holds every answered call but cannot say which ones are answered.
    expect(cov({ from: 0, to: 200 }).missing).toEqual([gap({ from: 0, to: 120 }), gap({ from: 180, to: 200 })])
    expect(cov({ results: 'all', from: 0, to: 200 }).complete).toBe(true)
    expect(cov({ results: [1, 2], from: 0, to: 10 }).missing).toEqual([
      gap({ results: [1], from: 0, to: 10 }),
      gap({ results: [2], from: 0, to: 10 })
    ])
  })

  it('an open range is judged over the span the scopes cover; with nothing synced, nothing is covered', () => {
    expect(cov({ results: 'all' })).toEqual({ complete: true, from: 0, to: 200, missing: [], asOf: 200 })
    expect(cov({ callTypes: ['Complaint'], to: 150 }).missing).toEqual([gap({ callTypes: ['Complaint'], from: 100, to: 150 })])
    expect(cov({}, [])).toEqual({ complete: false, from: null, to: null, missing: [gap({ from: null, to: null })] })
  })

  it('judges a range only up to the newest synced instant (after it the cache claims nothing)', () => {
    expect(cov({ results: 'all', from: 150, to: 10_000 })).toMatchObject({ complete: true, from: 150, to: 200, asOf: 200 })
    expect(cov({ callTypes: ['Refund'], from: 300, to: 400 })).toMatchObject({ complete: true, from: 300, to: 300, missing: [] })
    // A range that ends inside what the cache holds is judged strictly, to its end.
    expect(cov({ callTypes: ['Complaint'], from: 0, to: 200 })).toEqual({
      complete: false,
      from: 0,
      to: 200,
      missing: [gap({ callTypes: ['Complaint'], from: 100, to: 200 })]
    })
  })

  it('a range open to now is judged per filter up to the newest moment that filter is synced, and says as of when', () => {
    // Two complete syncs, "all results" and "answered only", whose ends are 76 seconds apart.
    const END = 1_000_000
    const scopes: ScopeRef[] = [
      { id: 1, filters: f({ results: 'all' }), coverage: [[0, END]] },
      { id: 2, filters: f({}), coverage: [[0, END - 76_000]] },
      { id: 3, filters: f({ callTypes: ['Refund'], results: 'all' }), coverage: [[0, END - 30_000]] }
    ]
    for (const to of [null, END + 3_600_000]) {
      expect(cov({ from: 0, to }, scopes)).toEqual({ complete: true, from: 0, to: END - 76_000, missing: [], asOf: END - 76_000 })
      expect(cov({ results: 'all', from: 0, to }, scopes)).toMatchObject({ complete: true, asOf: END })
      // Type and answered: the older of the two filters' newest moments.
      expect(cov({ callTypes: ['Refund'], from: 0, to }, scopes)).toMatchObject({ complete: true, asOf: END - 76_000 })
      expect(cov({ callTypes: ['Refund'], results: 'all', from: 0, to }, scopes)).toMatchObject({ complete: true, asOf: END - 30_000 })
    }
    // A filter no scope covers after the range's start is missing over the whole range.
    expect(cov({ callTypes: ['Complaint'], results: 'all', from: 10, to: null }, scopes).missing).toEqual([
      gap({ callTypes: ['Complaint'], results: 'all', from: 10, to: END })
    ])
    // A range that ends before the newest synced instant is judged to its end: no as-of.
    expect(cov({ from: 0, to: END - 10_000 }, scopes)).toEqual({
      complete: false,
      from: 0,
      to: END - 10_000,
      missing: [gap({ from: END - 76_000, to: END - 10_000 })]
    })
  })

  it('a query that reads analysis items is covered only where the scopes were synced with analysis', () => {
    // Scope 1 (Complaint, 0–100) with analysis; a second Complaint scope without it over 100–200.
    const scopes: ScopeRef[] = [
      SCOPES[0]!,
      { id: 5, filters: f({ callTypes: ['Complaint'], includeAnalysis: false }), coverage: [[100, 200]] }
    ]
    const sentiment = { kind: 'equals' as const, key: 'sentiment', value: 'olumsuz' }
    // Without analysis in the query, both scopes answer it.
    expect(cov({ callTypes: ['Complaint'], from: 0, to: 200 }, scopes).complete).toBe(true)
    // An analysis filter, a term on a key by its friendly name, and one under NOT: only 0–100.
    for (const q of [{ analysis: [sentiment] }, { text: 'müşteriduygusu:olumsuz' }, { text: 'fatura -sentiment:olumlu' }]) {
      expect(cov({ ...q, callTypes: ['Complaint'], from: 0, to: 200 }, scopes)).toEqual({
        complete: false,
        from: 0,
        to: 200,
        missing: [gap({ callTypes: ['Complaint'], analysis: true, from: 100, to: 200 })]
      })
    }
    // Free text is not an analysis filter: title and summary are stored by every scope.
    expect(cov({ text: 'fatura', callTypes: ['Complaint'], from: 0, to: 200 }, scopes).complete).toBe(true)
    // Outside any scope the gap says to sync with analysis.
    expect(cov({ analysis: [sentiment], callTypes: ['Refund'], from: 0, to: 100 }, scopes).missing).toEqual([
      gap({ callTypes: ['Refund'], analysis: true, from: 0, to: 100 })
    ])
  })
})
