import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openCache, parseNumeric, type CallCache } from '../../../../src/core/cache'
import { createSearch, type LocalSearch } from '../../../../src/core/search'
import { SearchQuery, type CallRecord, type SearchQueryInput } from '../../../../src/shared/domain'
import { foldText } from '../../../../src/shared/text/fold'
import { prng } from '../../../support/prng'

// The analysis filter's value box: the values of a key among a query's matches, with counts
// (spellings equals cannot tell apart counted as one), and a numeric key's observed range.
// Checked against a tally of the same calls read page by page through search.

const T0 = Date.UTC(2025, 5, 1)
const SENTIMENTS = ['Negative', 'negative', 'NEGATİVE', 'Positive', 'Nötr', 'notr', 'Olumsuz']
const WORDS = ['fatura', 'kargo', 'iade', 'modem', 'iptal']

let dir: string
let cache: CallCache
let search: LocalSearch
const records: CallRecord[] = []

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'callsight-values-'))
  cache = openCache(join(dir, 'cache.db'))
  const r = prng(5)
  for (let i = 0; i < 3000; i++) {
    const csat = r() < 0.1 ? `${1 + Math.floor(r() * 4)},5` : String(1 + Math.floor(r() * 5))
    records.push({
      callId: `v-${i}`,
      callAt: T0 + i * 60_000,
      callDate: new Date(T0 + i * 60_000).toISOString(),
      title: `${WORDS[Math.floor(r() * r() * WORDS.length)]} ${i}`,
      summary: WORDS.filter(() => r() < 0.3).join(' '),
      // Some calls lack a key, some hold a numeric key as text ("yok").
      analysis: [
        ...(r() < 0.9 ? [{ key: 'sentiment', friendlyName: 'Duygu', value: SENTIMENTS[Math.floor(r() * r() * SENTIMENTS.length)]! }] : []),
        { key: 'csat', friendlyName: 'Memnuniyet', value: r() < 0.02 ? 'yok' : csat }
      ],
      extra: {}
    })
  }
  cache.ensureScope('all', { callTypes: [], direction: null, results: 'answered', hasNewRequest: null, includeAnalysis: true })
  for (let i = 0; i < records.length; i += 100)
    cache.writePage({ scopeKey: 'all', records: records.slice(i, i + 100), includeAnalysis: true, checkpoint: { i } })
  cache.optimizeIndex()
  search = createSearch(cache)
})
afterAll(() => {
  cache.close()
  rmSync(dir, { recursive: true, force: true })
})

/** The calls of a query, read page by page. */
function matching(q: SearchQuery): CallRecord[] {
  const byId = new Map(records.map((r) => [r.callId, r]))
  const out: CallRecord[] = []
  for (let offset = 0; ; offset += 500) {
    const rows = search.page(q, offset, 500).rows
    out.push(...rows.map((row) => byId.get(row.callId)!))
    if (rows.length < 500) return out
  }
}

const QUERIES: Array<[string, SearchQueryInput]> = [
  ['every call (the running totals)', {}],
  ['a date range (the totals hand on)', { from: T0 + 500 * 60_000, to: T0 + 1200 * 60_000 }],
  ['a common word (the columns)', { text: 'fatura' }],
  ['a rare word (seek from the matches)', { text: 'iptal modem' }],
  ['a field query', { text: 'duygu:negative' }],
  ['nothing matches', { text: 'zzzz' }]
]

describe('value suggestions', () => {
  for (const [name, input] of QUERIES) {
    it(`text key, ${name}: each value once however spelt, counted over the matches`, () => {
      const q = SearchQuery.parse(input)
      const tally = new Map<string, Map<string, number>>()
      for (const r of matching(q))
        for (const a of r.analysis.filter((x) => x.key === 'sentiment')) {
          const spellings = tally.get(foldText(a.value)) ?? new Map<string, number>()
          spellings.set(a.value, (spellings.get(a.value) ?? 0) + 1)
          tally.set(foldText(a.value), spellings)
        }
      const expected = [...tally.values()]
        .map((spellings) => {
          const [value] = [...spellings].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1))[0]!
          return { value, count: [...spellings.values()].reduce((n, c) => n + c, 0) }
        })
        .sort((x, y) => y.count - x.count || (x.value < y.value ? -1 : 1))
      const got = search.values(q, 'sentiment')
      expect(got.numeric).toBe(false)
      expect(got.range).toBeNull()
      expect(got.values).toEqual(expected)
      expect(got.items).toBe(expected.reduce((n, v) => n + v.count, 0))
      if (input.text !== 'zzzz') expect(got.values.length).toBeGreaterThan(0)
    })

    it(`numeric key, ${name}: the observed smallest and largest value`, () => {
      const q = SearchQuery.parse(input)
      const nums = matching(q)
        .flatMap((r) => r.analysis.filter((a) => a.key === 'csat'))
        .map((a) => parseNumeric(a.value))
        .filter((v): v is number => v !== null)
      const got = search.values(q, 'csat')
      expect(got.numeric).toBe(true)
      expect(got.values).toEqual([])
      expect(got.range).toEqual(nums.length === 0 ? null : { min: Math.min(...nums), max: Math.max(...nums) })
      expect(got.items).toBe(nums.length)
    })
  }

  it('a key the cache does not hold suggests nothing', () => {
    expect(search.values(SearchQuery.parse({}), 'nope')).toEqual({ key: 'nope', numeric: false, items: 0, values: [], range: null })
  })
})

describe('value suggestions past the 100 most frequent', () => {
  it('finds a rare value by the typed text, folded, with its count', () => {
    const d = mkdtempSync(join(tmpdir(), 'callsight-values-many-'))
    const c = openCache(join(d, 'cache.db'))
    try {
      // 300 distinct values; the first 100 are the most frequent (two calls each).
      const recs: CallRecord[] = []
      for (let i = 0; i < 400; i++) {
        const v = i < 200 ? `Kayıt ${i % 100}` : `Kayıt ${i - 100}`
        recs.push({
          callId: `m-${i}`,
          callAt: T0 + i * 60_000,
          callDate: new Date(T0 + i * 60_000).toISOString(),
          title: `çağrı ${i}`,
          summary: 'fatura',
          analysis: [{ key: 'ticket', friendlyName: 'Kayıt', value: v }],
          extra: {}
        })
      }
      c.ensureScope('all', { callTypes: [], direction: null, results: 'answered', hasNewRequest: null, includeAnalysis: true })
      c.writePage({ scopeKey: 'all', records: recs, includeAnalysis: true, checkpoint: { i: 0 } })
      const s = createSearch(c)
      for (const q of [SearchQuery.parse({}), SearchQuery.parse({ text: 'fatura' })]) {
        const top = s.values(q, 'ticket')
        expect(top.values).toHaveLength(100)
        expect(top.values.map((v) => v.value)).not.toContain('Kayıt 250')
        // Typed in capitals and without the dotless ı: folded as equals compares.
        expect(s.values(q, 'ticket', 'KAYIT 25').values).toEqual([
          { value: 'Kayıt 25', count: 2 },
          ...[250, 251, 252, 253, 254, 255, 256, 257, 258, 259].map((n) => ({ value: `Kayıt ${n}`, count: 1 }))
        ])
        expect(s.values(q, 'ticket', 'nothing like it').values).toEqual([])
      }
    } finally {
      c.close()
      rmSync(d, { recursive: true, force: true })
    }
  })
})
