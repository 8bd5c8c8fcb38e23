import { DateTime } from 'luxon'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseNumeric } from '../../../../src/core/cache'
import { createSearch, type LocalSearch } from '../../../../src/core/search'
import { analyzeQuery, CallText, evaluate, tokensOf } from '../../../../src/shared/query'
import { SearchQuery, type CallRecord, type Facets, type SearchQueryInput } from '../../../../src/shared/domain'
import { foldText } from '../../../../src/shared/text/fold'
import { buildFixture, SCOPES, T0, type Fixture } from './fixture'
import { FIXTURE_KEYS as KEYS } from './query-cases'

const memo = new Map<string, { stored: CallRecord; text: CallText }>()
function storedOf(fx: Fixture, id: string): { stored: CallRecord; text: CallText } {
  let m = memo.get(id)
  if (!m) {
    const stored = fx.cache.getCall(id)!
    m = { stored, text: new CallText(stored) }
    memo.set(id, m)
  }
  return m
}

function bruteMatches(fx: Fixture, r: CallRecord, q: SearchQuery): boolean {
  const { stored, text } = storedOf(fx, r.callId)
  const node = analyzeQuery(q.text, { keys: KEYS }).node
  if (node && !evaluate(node, text, parseNumeric)) return false
  if (q.from !== null && r.callAt < q.from) return false
  if (q.to !== null && r.callAt >= q.to) return false
  const scopes = [...fx.scopesOf.get(r.callId)!].map((k) => SCOPES[k]!)
  if (q.callTypes.length && !scopes.some((s) => s.callTypes.length > 0 && s.callTypes.every((t) => q.callTypes.includes(t)))) return false
  if (q.direction !== null && !scopes.some((s) => s.direction === q.direction)) return false
  if (q.results === 'answered' && !scopes.some((s) => s.results === 'answered')) return false
  const wanted = q.results
  if (Array.isArray(wanted) && !scopes.some((s) => Array.isArray(s.results) && s.results.every((x) => wanted.includes(x)))) return false
  if (q.hasNewRequest !== null && !scopes.some((s) => s.hasNewRequest === q.hasNewRequest)) return false
  for (const f of q.analysis) {
    const items = stored.analysis.filter((a) => a.key === f.key)
    if (f.kind === 'equals' && !items.some((a) => foldText(a.value) === foldText(f.value))) return false
    if (f.kind === 'range') {
      const ok = items.some((a) => {
        const v = parseNumeric(a.value)
        return v !== null && (f.min === null || v >= f.min) && (f.max === null || v <= f.max)
      })
      if (!ok) return false
    }
  }
  return true
}

function brute(fx: Fixture, q: SearchQuery): string[] {
  const list = fx.records.filter((r) => bruteMatches(fx, r, q))
  const cmp = (a: CallRecord, b: CallRecord): number => a.callAt - b.callAt || (a.callId < b.callId ? -1 : a.callId > b.callId ? 1 : 0)
  list.sort(cmp)
  if (q.sort !== 'date_asc') list.reverse()
  return list.map((r) => r.callId)
}

function all(s: LocalSearch, q: SearchQuery, limit = 400): string[] {
  const out: string[] = []
  for (let offset = 0; ; offset += limit) {
    const rows = s.page(q, offset, limit).rows
    out.push(...rows.map((r) => r.callId))
    if (rows.length < limit) return out
  }
}

// These caches were synced with all results; 'all' is no filter (the default is answered only).
const Q = (input: SearchQueryInput): SearchQuery => SearchQuery.parse({ results: 'all', ...input })
const N = 3000
let fx: Fixture
let search: LocalSearch
let jumpy: LocalSearch

beforeAll(() => {
  fx = buildFixture(N)
  search = createSearch(fx.cache)
  // Long jumps through the match set from 1,000 rows on, so small data exercises that path.
  jumpy = createSearch(fx.cache, { longJump: 1000 })
})
afterAll(() => fx.close())

const DAY = 24 * 3600 * 1000
const QUERIES: Array<[string, SearchQueryInput]> = [
  ['everything', {}],
  ['common word', { text: 'fatura' }],
  ['prefix as typed', { text: 'fatur' }],
  ['explicit prefix', { text: 'fatur*' }],
  ['no prefix after a space', { text: 'fatura ' }],
  ['two words', { text: 'iade kargo' }],
  ['phrase', { text: '"kargo gecikti"' }],
  ['unbalanced quote is a phrase', { text: '"kargo gecikti' }],
  ['Turkish folding', { text: 'ISIK sikayet' }],
  ['analysis value through text', { text: 'olumsuz' }],
  ['date range', { from: T0 + 5 * DAY, to: T0 + 9 * DAY }],
  ['text and date, ascending', { text: 'müşteri', from: T0 + 3 * DAY, to: T0 + 30 * DAY, sort: 'date_asc' }],
  ['call type', { callTypes: ['Fatura'] }],
  ['call types (subset rule)', { callTypes: ['Fatura', 'Kargo'] }],
  ['direction', { direction: 2 }],
  ['results answered', { results: 'answered' }],
  ['results list', { results: [1, 2, 3] }],
  ['results list not covering', { results: [1] }],
  ['hasNewRequest', { hasNewRequest: false }],
  ['type and direction from different scopes', { callTypes: ['Kargo'], direction: 1 }],
  ['analysis equals', { analysis: [{ kind: 'equals', key: 'sentiment', value: 'nötr' }] }],
  ['analysis equals, multi-word value', { analysis: [{ kind: 'equals', key: 'agent', value: 'Temsilci 3' }] }],
  ['analysis range', { analysis: [{ kind: 'range', key: 'score', min: 20, max: 35 }] }],
  ['analysis open range', { analysis: [{ kind: 'range', key: 'score', min: 90, max: null }] }],
  ['unknown key', { analysis: [{ kind: 'equals', key: 'nope', value: 'x' }] }],
  [
    'everything at once',
    { text: 'fatura', callTypes: ['Fatura'], from: T0, to: T0 + 35 * DAY, analysis: [{ kind: 'range', key: 'score', min: 10, max: null }] }
  ]
]

describe('local search against a brute-force reading of the query', () => {
  it.each(QUERIES)('%s: every row, in order, and the count', (_label, input) => {
    const q = Q(input)
    const want = brute(fx, q)
    expect(all(search, q)).toEqual(want)
    expect(search.count(q)).toBe(want.length)
  })

  it('holds the Turkish folding examples', () => {
    const found = (text: string): CallRecord[] => all(search, Q({ text: `${text} ` })).map((id) => fx.cache.getCall(id)!)
    const has = (list: CallRecord[], raw: string): boolean => list.length > 0 && list.every((r) => `${r.title} ${r.summary}`.includes(raw))
    expect(has(found('istanbul'), 'İSTANBUL')).toBe(true)
    expect(has(found('sikayet'), 'şikayet')).toBe(true)
    expect(has(found('ISIK'), 'ışık')).toBe(true)
    expect(has(found('iptal'), 'İPTAL')).toBe(true)
    expect(found('İstanbul')).toEqual(found('ISTANBUL'))
  })

  it('never lets user text reach FTS5 as syntax: it runs as the language reads it, or is refused with the span', () => {
    const hostile = [
      '"',
      '""',
      'AND',
      'OR OR',
      'NOT fatura',
      'NEAR(',
      'NEAR(a b, 2)',
      'title:fatura',
      'summary : x',
      '*',
      'fat*ura',
      '(',
      ')',
      '-kargo',
      '+iade',
      '^fatura',
      '{title}: x',
      "'; DROP TABLE calls; --",
      '\u0000',
      'a'.repeat(500),
      '😀 fatura',
      '" OR "',
      'nope:x',
      'score>=abc'
    ]
    let refused = 0
    for (const text of hostile) {
      const q = Q({ text })
      const errors = analyzeQuery(text, { keys: KEYS }).errors
      if (errors.length > 0) {
        refused++
        expect(() => search.page(q, 0, 50), text).toThrow(expect.objectContaining({ code: 'InvalidInput' }))
        continue
      }
      expect(() => search.page(q, 0, 50)).not.toThrow()
      expect(search.count(q), text).toBe(brute(fx, q).length)
    }
    expect(refused).toBeGreaterThan(3)
    expect(search.count(Q({ text: 'title:fatura' }))).toBe(fx.records.filter((r) => /fatura/i.test(r.title)).length)
  })
})

describe('paging', () => {
  const cases: Array<[string, SearchQueryInput]> = [
    ['everything', {}],
    ['common word (walk)', { text: 'fatura ' }],
    ['rarer word (fts)', { text: 'refund ' }],
    ['scope filter', { direction: 1, sort: 'date_asc' }],
    ['common word, ascending, within dates (walk)', { text: 'fatura ', sort: 'date_asc', from: T0 + 2 * DAY, to: T0 + 38 * DAY }],
    ['common word and a scope filter (walk)', { text: 'fatura ', direction: 1 }]
  ]
  it.each(cases)('%s: any offset equals the slice of a full ordered scan', (_label, input) => {
    const q = Q(input)
    const want = brute(fx, q)
    for (const s of [search, jumpy]) {
      for (const offset of [0, 1, 999, 1000, 1001, 1999, 2000, 2345, Math.max(0, want.length - 10), want.length, want.length + 500]) {
        // Cold each time for the jumpy one: every offset past 1,000 is then a long jump.
        if (s === jumpy) s.resetCaches()
        expect(
          s.page(q, offset, 50).rows.map((r) => r.callId),
          `offset ${offset}`
        ).toEqual(want.slice(offset, offset + 50))
      }
      // Back and forth, then sequentially from a deep point.
      for (const offset of [2500, 100, 1700, 1500, 2900]) {
        expect(s.page(q, offset, 37).rows.map((r) => r.callId)).toEqual(want.slice(offset, offset + 37))
      }
      for (let offset = 1200; offset < 1500; offset += 60) {
        expect(s.page(q, offset, 60).rows.map((r) => r.callId)).toEqual(want.slice(offset, offset + 60))
      }
    }
  })

  it('after the count of a common word, pages far apart come from its match bitmap, in order', () => {
    for (const input of [{ text: 'fatura ' }, { text: 'fatura ', sort: 'date_asc' as const, direction: 1 as const }]) {
      const q = Q(input)
      const want = brute(fx, q)
      const s = createSearch(fx.cache)
      expect(s.explain(q, 50).plan).toBe('walk')
      expect(s.count(q)).toBe(want.length)
      for (const offset of [want.length - 30, 1000, 2100, 5, 1999, want.length + 10]) {
        expect(
          s.page(q, offset, 50).rows.map((r) => r.callId),
          `offset ${offset}`
        ).toEqual(want.slice(offset, offset + 50))
      }
    }
  })

  it('chooses the date walk for a common term and the index for a rare one', () => {
    expect(search.explain(Q({ text: 'fatura ' }), 100).plan).toBe('walk')
    expect(search.explain(Q({ text: 'refund ' }), 100).plan).toBe('fts')
    expect(search.explain(Q({}), 100).plan).toBe('scan')
    expect(search.explain(Q({ text: 'fatura', sort: 'relevance' }), 100).plan).toBe('relevance')
  })

  it('rows carry the cached fields and a bounded summary preview', () => {
    const row = search.page(Q({}), 0, 1).rows[0]!
    const rec = fx.cache.getCall(row.callId)!
    expect(row).toEqual({
      callId: rec.callId,
      callAt: rec.callAt,
      callDate: rec.callDate,
      title: rec.title,
      summaryPreview: rec.summary.slice(0, 240),
      analysisCount: rec.analysis.length
    })
    expect(() => search.page(Q({}), -1, 10)).toThrow()
    expect(() => search.page(Q({}), 0, 0)).toThrow()
  })

  it('sees new data after a write', () => {
    const q = Q({ text: 'zeplin' })
    expect(search.count(q)).toBe(0)
    fx.cache.writePage({
      scopeKey: 'everything',
      records: [{ ...fx.records[0]!, callId: 'new-1', summary: 'zeplin' }],
      includeAnalysis: true,
      checkpoint: null
    })
    expect(search.count(q)).toBe(1)
    expect(search.page(q, 0, 10).rows.map((r) => r.callId)).toEqual(['new-1'])
    fx.records.push(fx.cache.getCall('new-1')!)
    fx.scopesOf.set('new-1', new Set(['everything']))
  })
})

describe('relevance', () => {
  it('returns the matches, best first by bm25', () => {
    const q = Q({ text: 'iade', sort: 'relevance' })
    const got = all(search, q, 100)
    expect([...got].sort()).toEqual([...brute(fx, Q({ text: 'iade' }))].sort())
    const density = (id: string): number => {
      const r = fx.cache.getCall(id)!
      const t = tokensOf(`${r.title} ${r.summary}`)
      return t.filter((x) => x.startsWith('iade')).length / t.length
    }
    // bm25 favours a dense short text: the first rows are denser than the last ones on average.
    const head = got.slice(0, 20).map(density)
    const tail = got.slice(-20).map(density)
    expect(head.reduce((a, b) => a + b) / head.length).toBeGreaterThan(tail.reduce((a, b) => a + b) / tail.length)
    // Paging in relevance order is stable and gap-free.
    expect(search.page(q, 150, 50).rows.map((r) => r.callId)).toEqual(got.slice(150, 200))
  })

  it('with a date range: the whole order restricted to the range (ids here do not follow call time)', () => {
    for (const text of ['iade', 'fatura']) {
      const whole = all(search, Q({ text, sort: 'relevance' }), 100)
      const ranges: Array<[number | null, number | null]> = [
        [T0 + 3 * DAY, T0 + 10 * DAY],
        [T0 + 30 * DAY, null],
        [null, T0 + 2 * DAY],
        [T0 + 500 * DAY, T0 + 501 * DAY]
      ]
      for (const [from, to] of ranges) {
        const inRange = (id: string): boolean => {
          const at = fx.cache.getCall(id)!.callAt
          return (from === null || at >= from) && (to === null || at < to)
        }
        const got = all(search, Q({ text, sort: 'relevance', from, to }), 100)
        expect(got).toEqual(whole.filter(inRange))
        if (from === T0 + 500 * DAY) expect(got).toEqual([])
        else expect(got.length).toBeGreaterThan(0)
      }
    }
  })
})

// Three ways to count: the default split, always the in-memory columns, always the SQL seek.
const FACET_FORMS: Array<[string, number | undefined]> = [
  ['default', undefined],
  ['columns', 0],
  ['seek', 2]
]

describe.each(FACET_FORMS)('facets (%s)', (_form, facetScanShare) => {
  let s: LocalSearch
  beforeAll(() => {
    s = createSearch(fx.cache, facetScanShare === undefined ? {} : { facetScanShare })
  })
  const zones = ['Europe/Istanbul', 'America/New_York', 'Asia/Kolkata']
  const queries: Array<[string, SearchQueryInput]> = [
    ['everything', {}],
    ['common word', { text: 'fatura' }],
    ['rare word', { text: 'refund' }],
    ['date range and scope', { from: T0 + 2 * DAY, to: T0 + 20 * DAY, direction: 1 }],
    ['type and analysis value', { callTypes: ['Kargo'], analysis: [{ kind: 'equals', key: 'sentiment', value: 'olumlu' }] }]
  ]
  const expectBrute = (q: SearchQuery, zone: string, f: Facets): void => {
    const ids = brute(fx, q)
    expect(f.total).toBe(ids.length)
    const days = new Map<string, number>()
    for (const id of ids) {
      const day = DateTime.fromMillis(storedOf(fx, id).stored.callAt, { zone }).toISODate()!
      days.set(day, (days.get(day) ?? 0) + 1)
    }
    expect(f.perDay).toEqual([...days].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([day, count]) => ({ day, count })))
    const typeCount = (scope: string): number => ids.filter((id) => fx.scopesOf.get(id)!.has(scope)).length
    const wantTypes = [
      { value: 'Fatura', count: typeCount('fatura') },
      { value: 'Kargo', count: typeCount('kargo') }
    ].filter((t) => t.count > 0)
    expect([...f.perType].sort((a, b) => (a.value < b.value ? -1 : 1))).toEqual(wantTypes)
    const values = new Map<string, number>()
    for (const id of ids)
      for (const a of storedOf(fx, id).stored.analysis) if (a.key === 'sentiment') values.set(a.value, (values.get(a.value) ?? 0) + 1)
    expect(new Map(f.perValue.map((v) => [v.value, v.count]))).toEqual(values)
  }

  it.each(queries)('%s: per day, per type and per value equal a brute-force count', (_label, input) => {
    const q = Q(input)
    for (const zone of zones) expectBrute(q, zone, s.facets(q, 'sentiment', zone))
  })

  it('sees a write made after the columns were read', () => {
    const q = Q({ text: 'fatura' })
    s.facets(q, 'sentiment', 'UTC')
    const callId = `facet-${_form}`
    const rec: CallRecord = {
      ...fx.records[1]!,
      callId,
      callAt: T0 + 45 * DAY,
      callDate: new Date(T0 + 45 * DAY).toISOString(),
      summary: 'fatura',
      analysis: [{ key: 'sentiment', friendlyName: 'Duygu', value: `yeni-${_form}` }]
    }
    fx.cache.writePage({ scopeKey: 'fatura', records: [rec], includeAnalysis: true, checkpoint: null })
    fx.records.push(fx.cache.getCall(callId)!)
    fx.scopesOf.set(callId, new Set(['fatura']))
    const f = s.facets(q, 'sentiment', 'UTC')
    expect(f.perValue.find((v) => v.value === `yeni-${_form}`)?.count).toBe(1)
    expectBrute(q, 'UTC', f)
  })

  it('buckets a numeric key into about ten ranges that add up', () => {
    const q = Q({ text: 'kargo' })
    const ids = brute(fx, q)
    const scores = ids.map((id) => Number(fx.cache.getCall(id)!.analysis.find((a) => a.key === 'score')!.value))
    const f = s.facets(q, 'score', 'UTC')
    expect(f.perValue.length).toBeGreaterThanOrEqual(5)
    expect(f.perValue.length).toBeLessThanOrEqual(11)
    for (const b of f.perValue) {
      expect(b.count).toBe(scores.filter((s) => s >= b.min! && (s < b.max! || (b.closed === true && s === b.max))).length)
    }
    expect(f.perValue.reduce((a, b) => a + b.count, 0)).toBe(scores.length)
  })

  it('rejects an unknown zone', () => {
    expect(() => s.facets(Q({}), null, 'Mars/Base')).toThrow()
  })
})

describe('analysis keys and export iteration', () => {
  it('lists keys with their friendly names and which are numeric', () => {
    const keys = search.analysisKeys()
    expect(keys.map((k) => [k.key, k.friendlyName, k.numeric])).toEqual([
      ['agent', 'Temsilci', false],
      ['score', 'Skor', true],
      ['sentiment', 'Duygu', false]
    ])
    expect(keys.every((k) => k.calls > 0)).toBe(true)
  })

  it('streams a query in query order, records exactly as cached', () => {
    const q = Q({ text: 'kargo', sort: 'date_asc' })
    const it = search.iterate({ kind: 'query', query: q })
    const got = [...it.records]
    expect(it.total).toBe(got.length)
    expect(got.map((r) => r.callId)).toEqual(brute(fx, q))
    expect(got[0]).toEqual(fx.cache.getCall(got[0]!.callId))
    expect(it.analysisKeys.map((k) => k.key)).toEqual(['agent', 'score', 'sentiment'])
  })

  it('streams ids in the order given, once each, skipping unknown ones', () => {
    const ids = [fx.records[5]!.callId, 'missing', fx.records[2]!.callId, fx.records[5]!.callId]
    const it = search.iterate({ kind: 'ids', ids })
    expect(it.total).toBe(2)
    expect([...it.records].map((r) => r.callId)).toEqual([fx.records[5]!.callId, fx.records[2]!.callId])
    expect(search.get(fx.records[2]!.callId)?.callId).toBe(fx.records[2]!.callId)
  })
})
