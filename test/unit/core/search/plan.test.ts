import { describe, expect, it } from 'vitest'
import { compileQuery, type CompiledQuery, type QueryCatalog } from '../../../../src/core/search/query/compile'
import { choosePlan, estimateCap, LONG_JUMP, needsEstimate, walkThreshold, type Estimate } from '../../../../src/core/search/plan/plan'
import { SearchQuery, type SearchQueryInput } from '../../../../src/shared/domain'

const CATALOG: QueryCatalog = {
  scopes: [{ id: 1, filters: { callTypes: [], direction: 1, results: 'all', hasNewRequest: null, includeAnalysis: true } }],
  keyIds: new Map([['score', [1]]]),
  keys: [{ key: 'score', friendlyName: 'Skor', numeric: true }],
  expansions: new Map([
    ['fatur', ['fatura']],
    ['f', null]
  ])
}
const compile = (input: SearchQueryInput): CompiledQuery => compileQuery(SearchQuery.parse({ results: 'all', ...input }), CATALOG)

const N = 1_000_000
const T = walkThreshold(N, 100)
const common: Estimate = { n: T + 1, ids: null }
const rare: Estimate = { n: 40, ids: '[1,2,3]' }
const page = (over: Partial<{ limit: number; gap: number; bitmapRead: boolean }> = {}) =>
  ({ for: 'page', limit: 100, gap: 0, bitmapRead: false, longJump: LONG_JUMP, ...over }) as const

describe('walkThreshold and the estimate cap', () => {
  it('walks when m² > 3 × limit × N', () => {
    expect(T).toBe(17_321)
    expect(walkThreshold(0, 0)).toBe(2)
    expect(estimateCap(N)).toBe(T + 1)
  })
  it('counts only when a plan depends on the count', () => {
    expect(needsEstimate(compile({ text: 'iade' }))).toBe(true)
    expect(needsEstimate(compile({ text: 'iade', sort: 'relevance' }))).toBe(false)
    expect(needsEstimate(compile({}))).toBe(false)
  })
})

describe('choosePlan for a page', () => {
  it('names the plan from the query and its estimate', () => {
    expect(choosePlan(compile({ direction: 2 }), common, N, page())).toEqual({ kind: 'nothing' })
    expect(choosePlan(compile({ from: 1 }), { n: N, ids: null }, N, page())).toEqual({ kind: 'scan' })
    expect(choosePlan(compile({ text: 'iade', sort: 'relevance' }), { n: Number.NaN, ids: null }, N, page())).toEqual({ kind: 'relevance' })
    expect(choosePlan(compile({ text: 'iade' }), rare, N, page())).toEqual({ kind: 'fts', ids: '[1,2,3]' })
    expect(choosePlan(compile({ text: 'iade' }), common, N, page())).toEqual({ kind: 'walk' })
    // The threshold itself is not above it.
    expect(choosePlan(compile({ text: 'iade' }), { n: T, ids: null }, N, page())).toEqual({ kind: 'fts', ids: null })
    // A larger page moves the threshold up: the same count is rare for it.
    expect(choosePlan(compile({ text: 'iade' }), common, N, page({ limit: 1000 }))).toEqual({ kind: 'fts', ids: null })
  })

  it('serves a common word from the match bitmap for long jumps, jumps once it exists, and wide prefixes', () => {
    const q = compile({ text: 'iade' })
    expect(choosePlan(q, common, N, page({ gap: LONG_JUMP - 1 })).kind).toBe('walk')
    expect(choosePlan(q, common, N, page({ gap: LONG_JUMP })).kind).toBe('bitmap')
    expect(choosePlan(q, common, N, page({ gap: 999, bitmapRead: true })).kind).toBe('walk')
    expect(choosePlan(q, common, N, page({ gap: 1000, bitmapRead: true })).kind).toBe('bitmap')
    expect(choosePlan(compile({ text: 'f' }), common, N, page()).kind).toBe('bitmap')
    // A rare word never needs it, whatever the jump.
    expect(choosePlan(q, rare, N, page({ gap: 10 * LONG_JUMP, bitmapRead: true })).kind).toBe('fts')
  })
})

describe('choosePlan for a count and an export', () => {
  it('counts from the estimate, the match list, or SQL', () => {
    expect(choosePlan(compile({ direction: 2 }), common, N, { for: 'count' })).toEqual({ kind: 'nothing' })
    expect(choosePlan(compile({ direction: 1 }), { n: N, ids: null }, N, { for: 'count' })).toEqual({ kind: 'scan' })
    expect(choosePlan(compile({ text: 'iade' }), rare, N, { for: 'count' })).toEqual({ kind: 'counted', n: 40 })
    // Another filter: the listed matches are not the count.
    expect(choosePlan(compile({ text: 'iade', direction: 1 }), rare, N, { for: 'count' })).toEqual({ kind: 'fts', ids: null })
    expect(choosePlan(compile({ text: 'iade' }), common, N, { for: 'count' })).toEqual({ kind: 'match-list' })
    expect(choosePlan(compile({ text: 'iade', sort: 'relevance' }), { n: Number.NaN, ids: null }, N, { for: 'count' })).toEqual({
      kind: 'fts',
      ids: null
    })
  })

  it('exports from FTS5 and sorts, never walking', () => {
    expect(choosePlan(compile({ text: 'iade' }), common, N, { for: 'export' })).toEqual({ kind: 'fts', ids: null })
    expect(choosePlan(compile({ text: 'iade', sort: 'relevance' }), common, N, { for: 'export' })).toEqual({ kind: 'relevance' })
    expect(choosePlan(compile({}), common, N, { for: 'export' })).toEqual({ kind: 'scan' })
    expect(choosePlan(compile({ analysis: [{ kind: 'equals', key: 'nope', value: '1' }] }), common, N, { for: 'export' })).toEqual({
      kind: 'nothing'
    })
  })
})
