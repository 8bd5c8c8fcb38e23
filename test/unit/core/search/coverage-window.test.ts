import { describe, expect, it } from 'vitest'
import { CallTypeNames, type HeldWindow, type ScopeRef } from '../../../../src/core/cache'
import { queryCoverage } from '../../../../src/core/search/coverage'
import { SearchQuery, type SearchQueryInput } from '../../../../src/shared/domain'

const NAMES = new CallTypeNames([{ value: 'Refund', description: 'İade Talebi' }])
// One scope of everything, synced by the worker over [0, 1000): the team cache's coverage.
const SCOPES: ScopeRef[] = [
  {
    id: 1,
    filters: { callTypes: [], direction: null, results: 'all', hasNewRequest: null, includeAnalysis: true },
    coverage: [[0, 1000]]
  }
]
const WINDOW: HeldWindow = { start: 600, days: 90, scopes: null }
const cov = (q: SearchQueryInput, window: HeldWindow | null = WINDOW) =>
  queryCoverage(SearchQuery.parse({ results: 'all', ...q }), SCOPES, NAMES, [], window)

describe('coverage of a cache holding a window of the team cache', () => {
  it('is complete inside the window, without a notice', () => {
    const c = cov({ from: 600, to: 900 })
    expect(c.complete).toBe(true)
    expect(c.notices).toBeUndefined()
  })

  it('a range reaching before the start misses that stretch and says it is outside the window', () => {
    const c = cov({ from: 100, to: 900 })
    expect(c.complete).toBe(false)
    expect(c.missing).toEqual([expect.objectContaining({ from: 100, to: 600 })])
    expect(c.notices).toEqual([{ kind: 'outside-window', windowStart: 600, days: 90 }])
  })

  it('a range wholly before the window is missing whole', () => {
    const c = cov({ from: 100, to: 500 })
    expect(c.complete).toBe(false)
    expect(c.missing).toEqual([expect.objectContaining({ from: 100, to: 500 })])
    expect(c.notices?.[0]?.kind).toBe('outside-window')
  })

  it('an open start is judged from the window on, with the notice', () => {
    const c = cov({})
    expect(c.from).toBe(600)
    expect(c.complete).toBe(true)
    expect(c.notices).toEqual([{ kind: 'outside-window', windowStart: 600, days: 90 }])
  })

  it('without a window the same query is complete over the whole coverage', () => {
    const c = cov({ from: 100, to: 900 }, null)
    expect(c.complete).toBe(true)
    expect(c.notices).toBeUndefined()
  })
})

describe('coverage of a cache holding chosen worker scopes', () => {
  // The inbound scope only, over every date the worker synced.
  const INBOUND: ScopeRef[] = [
    {
      id: 1,
      filters: { callTypes: [], direction: 1, results: 'all', hasNewRequest: null, includeAnalysis: false },
      coverage: [[0, 1000]]
    }
  ]
  const HELD: HeldWindow = { start: null, days: null, scopes: ['inbound'] }
  const scoped = (q: SearchQueryInput) => queryCoverage(SearchQuery.parse({ results: 'all', ...q }), INBOUND, NAMES, [], HELD)

  it('a query the chosen scope answers is complete, without a notice', () => {
    const c = scoped({ direction: 1, from: 100, to: 900 })
    expect(c.complete).toBe(true)
    expect(c.notices).toBeUndefined()
  })

  it('a query another scope would answer is outside the window, naming the scopes held', () => {
    for (const q of [
      { direction: 2, from: 100, to: 900 },
      { from: 100, to: 900 }
    ]) {
      const c = scoped(q)
      expect(c.complete).toBe(false)
      expect(c.notices).toEqual([{ kind: 'outside-window', windowStart: null, days: null, scopes: ['inbound'] }])
    }
  })
})
