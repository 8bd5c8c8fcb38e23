import { describe, expect, it } from 'vitest'
import type { ScopeRef } from '../../../../src/core/cache'
import { compileQuery, prefixesOf, type QueryCatalog } from '../../../../src/core/search/query/compile'
import { SearchQuery, type SearchQueryInput } from '../../../../src/shared/domain'

// These caches were synced with all results; 'all' is no filter (the default is answered only).
const Q = (input: SearchQueryInput): SearchQuery => SearchQuery.parse({ results: 'all', ...input })
const any = { direction: null, results: 'all' as const, hasNewRequest: null, includeAnalysis: true }
const SCOPES: ScopeRef[] = [
  { id: 1, filters: { ...any, callTypes: ['Fatura'] } },
  { id: 2, filters: { ...any, callTypes: [], direction: 1 } },
  { id: 7, filters: { ...any, callTypes: ['Fatura', 'Kargo'] } }
]
const catalog = (over: Partial<QueryCatalog> = {}): QueryCatalog => ({
  scopes: SCOPES,
  keyIds: new Map([
    ['sentiment', [3, 9]],
    ['score', [4]]
  ]),
  keys: [
    { key: 'sentiment', friendlyName: 'Duygu', numeric: false },
    { key: 'score', friendlyName: 'Skor', numeric: true }
  ],
  expansions: new Map(),
  ...over
})

describe('compileQuery (pure)', () => {
  it('gives equal SQL for equal input, and says so through its key', () => {
    const q = Q({ text: 'fatura iade', callTypes: ['Fatura'], analysis: [{ kind: 'range', key: 'score', min: 1, max: null }] })
    const a = compileQuery(q, catalog())
    expect(compileQuery(q, catalog())).toEqual(a)
    expect(compileQuery(Q({ text: 'fatura kargo' }), catalog()).key).not.toBe(a.key)
  })

  it('turns dates and scope filters into predicates on calls c, scopes from the catalog', () => {
    const c = compileQuery(Q({ from: 10, to: 20, callTypes: ['Fatura'], direction: 1 }), catalog())
    expect(c.where).toEqual([
      'c.call_at >= ?',
      'c.call_at < ?',
      'EXISTS (SELECT 1 FROM scope_members m WHERE m.call = c.id AND m.scope IN (1))',
      'EXISTS (SELECT 1 FROM scope_members m WHERE m.call = c.id AND m.scope IN (2))'
    ])
    expect(c.params).toEqual([10, 20])
    expect(c.match).toBeNull()
    expect(c.empty).toBe(false)
    expect(c.dateOnly).toBe(false)
  })

  it('matches nothing when no scope vouches for a filter, or a key is unknown', () => {
    expect(compileQuery(Q({ direction: 2 }), catalog()).empty).toBe(true)
    expect(compileQuery(Q({ analysis: [{ kind: 'equals', key: 'nope', value: 'x' }] }), catalog()).empty).toBe(true)
    expect(compileQuery(Q({ direction: 1 }), catalog({ scopes: [] })).empty).toBe(true)
  })

  it('narrows key = value through the analysis column of the index, with every id of the key', () => {
    const c = compileQuery(Q({ analysis: [{ kind: 'equals', key: 'sentiment', value: 'Çok İyi' }] }), catalog())
    expect(c.where).toEqual([
      'analysis_has((SELECT l.items FROM analysis_lists l WHERE l.call = c.id), (SELECT analysis_ids(a.id) FROM analysis_values a WHERE a.key_id IN (3,9) AND fold_text(a.value) = ?))'
    ])
    expect(c.params).toEqual(['cok iyi'])
    expect(c.match).toBe('analysis : "cok iyi"')
    expect(c.order).toBe('date_desc')
  })

  it('expands a prefix into the terms the catalog lists, keeps it when there are too many (a costly probe)', () => {
    expect(prefixesOf('iade fatur')).toEqual(['iade', 'fatur'])
    expect(prefixesOf('"kargo gec" fat* -x')).toEqual(['fat', 'x'])
    const expanded = compileQuery(Q({ text: 'iade fatur' }), catalog({ expansions: new Map([['fatur', ['fatura', 'faturalar']]]) }))
    expect(expanded.match).toBe('"iade"* AND ("fatura" OR "faturalar")')
    expect(expanded.costlyProbe).toBe(false)
    const wide = compileQuery(Q({ text: 'iade fatur' }), catalog({ expansions: new Map([['fatur', null]]) }))
    expect(wide.match).toBe('"iade"* AND "fatur"*')
    expect(wide.costlyProbe).toBe(true)
    // Not looked up: stays a prefix, not known to be costly.
    const unknown = compileQuery(Q({ text: 'iade fatur' }), catalog())
    expect([unknown.match, unknown.costlyProbe]).toEqual(['"iade"* AND "fatur"*', false])
  })

  it('orders by relevance only when there is user text to rank', () => {
    expect(compileQuery(Q({ text: 'iade', sort: 'relevance' }), catalog()).order).toBe('relevance')
    expect(compileQuery(Q({ sort: 'relevance' }), catalog()).order).toBe('date_desc')
    expect(compileQuery(Q({ sort: 'relevance', analysis: [{ kind: 'equals', key: 'score', value: '5' }] }), catalog()).order).toBe(
      'date_desc'
    )
    expect(compileQuery(Q({ text: 'iade', sort: 'date_asc' }), catalog()).order).toBe('date_asc')
  })

  it('marks a query the running totals can answer: no text, no filter but dates', () => {
    expect(compileQuery(Q({}), catalog()).dateOnly).toBe(true)
    expect(compileQuery(Q({ from: 5 }), catalog()).dateOnly).toBe(true)
    expect(compileQuery(Q({ from: 5, text: 'x' }), catalog()).dateOnly).toBe(false)
    expect(compileQuery(Q({ analysis: [{ kind: 'range', key: 'score', min: 1, max: 2 }] }), catalog()).dateOnly).toBe(false)
    expect(compileQuery(Q({ direction: 2 }), catalog()).dateOnly).toBe(false)
  })
})
