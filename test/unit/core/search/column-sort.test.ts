import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { openCache, type CallCache, type ScopeFilters } from '../../../../src/core/cache'
import { SqliteColumnReads } from '../../../../src/core/cache/read/column-reads'
import { createSearch, type LocalSearch } from '../../../../src/core/search'
import { LEGACY_SORT } from '../../../../bench/baselines/search-strategies'
import { SearchQuery, type CallRecord, type ColumnSort, type SearchQueryInput } from '../../../../src/shared/domain'
import { prng } from '../../../support/prng'

// Sorting the results list by a chosen column, on a real SQLite file, against an independent
// sort of the same calls: numbers numerically, text in Turkish order, calls without a value
// last, ties in date order; paged in small pages, with jumps, and after a write.

const T0 = Date.UTC(2026, 0, 5)
const AGENTS = ['Zeynep', 'Çağla', 'Cem', 'İpek', 'Işıl', 'Ilgaz', 'Ömer', 'Oğuz', 'Şule', 'Selin', 'ufuk', 'Ülkü']
/** Turkish alphabetical order of AGENTS: c < ç, ı < i, o < ö, s < ş, u < ü. */
const TURKISH_ORDER = ['Cem', 'Çağla', 'Ilgaz', 'Işıl', 'İpek', 'Oğuz', 'Ömer', 'Selin', 'Şule', 'ufuk', 'Ülkü', 'Zeynep']
const FATURA: ScopeFilters = { callTypes: ['Fatura'], direction: null, results: 'all', hasNewRequest: null, includeAnalysis: true }
const IPTAL: ScopeFilters = { callTypes: ['İptal'], direction: null, results: 'all', hasNewRequest: null, includeAnalysis: true }
const ALL: ScopeFilters = { callTypes: [], direction: null, results: 'all', hasNewRequest: null, includeAnalysis: true }

let dir = ''
let cache: CallCache
let search: LocalSearch
let legacy: LocalSearch
const records: CallRecord[] = []
const typeOf = new Map<string, string>()

function writeAll(list: CallRecord[]): void {
  for (let i = 0; i < list.length; i += 100)
    cache.writePage({ scopeKey: 'all', records: list.slice(i, i + 100), includeAnalysis: true, checkpoint: null })
  const fatura = list.filter((r) => typeOf.get(r.callId) === 'Fatura')
  const iptal = list.filter((r) => typeOf.get(r.callId) === 'İptal')
  if (fatura.length) cache.writePage({ scopeKey: 'fatura', records: fatura, includeAnalysis: true, checkpoint: null })
  if (iptal.length) cache.writePage({ scopeKey: 'iptal', records: iptal, includeAnalysis: true, checkpoint: null })
}

function makeCalls(n: number, seed: number, prefix: string): CallRecord[] {
  const r = prng(seed)
  const out: CallRecord[] = []
  for (let i = 0; i < n; i++) {
    // Ties: several calls share a second now and then.
    const callAt = i > 0 && r() < 0.15 ? out[i - 1]!.callAt : T0 + Math.floor(r() * 20 * 86_400) * 1000
    const analysis = [
      { key: 'sentiment', friendlyName: 'Duygu', value: ['olumlu', 'Olumsuz', 'nötr', 'çok olumsuz'][Math.floor(r() * 4)]! }
    ]
    // Some calls have no score (null last), some a score twice (the first one counts).
    if (r() < 0.85) analysis.push({ key: 'score', friendlyName: 'Puan', value: String(Math.floor(r() * 120) - 10) })
    const extra: Record<string, unknown> = { durationSeconds: Math.floor(r() * 900) }
    if (r() < 0.9) extra.agentName = AGENTS[Math.floor(r() * AGENTS.length)]
    const rec: CallRecord = {
      callId: `${prefix}${Math.floor(r() * 1e9).toString(36)}-${i}`,
      callAt,
      callDate: new Date(callAt).toISOString(),
      title: `${['fatura', 'iptal', 'kargo'][i % 3]} ${i}`,
      // A common word (~90 %) and a rare one (~1 %): the sorted page's drivers differ.
      summary: ['görüşme', ...(r() < 0.9 ? ['müşteri'] : []), ...(r() < 0.01 ? ['kuzguncuk'] : [])].join(' '),
      analysis,
      extra
    }
    const t = r()
    if (t < 0.4) typeOf.set(rec.callId, 'Fatura')
    else if (t < 0.7) typeOf.set(rec.callId, 'İptal')
    out.push(rec)
  }
  return out
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'callsight-colsort-'))
  cache = openCache(join(dir, 'cache.db'))
  cache.ensureScope('all', ALL)
  cache.ensureScope('fatura', FATURA)
  cache.ensureScope('iptal', IPTAL)
  records.push(...makeCalls(2_500, 7, 'a'))
  writeAll(records)
  cache.optimizeIndex()
  search = createSearch(cache)
  legacy = createSearch(cache, {}, LEGACY_SORT)
})
afterAll(() => {
  cache.close()
  rmSync(dir, { recursive: true, force: true })
})

const collator = new Intl.Collator('tr', { sensitivity: 'base', numeric: true })
const byDate = (a: CallRecord, b: CallRecord): number => a.callAt - b.callAt || (a.callId < b.callId ? -1 : a.callId > b.callId ? 1 : 0)

function valueOf(r: CallRecord, column: string): string | number | null {
  if (column === 'callType') return typeOf.get(r.callId) ?? null
  if (column.startsWith('extra:')) return (r.extra[column.slice(6)] as string | number | undefined) ?? null
  const item = r.analysis.find((a) => a.key === column.slice(9))
  if (!item) return null
  return column === 'analysis:score' ? Number(item.value) : item.value
}

/** The expected order, written independently: value, then date; no value last, in date order. */
function expected(ids: readonly string[], sort: ColumnSort): string[] {
  const list = ids.map((id) => records.find((r) => r.callId === id)!)
  const cmpValue = (a: string | number, b: string | number): number =>
    typeof a === 'number' && typeof b === 'number' ? a - b : collator.compare(String(a), String(b))
  const valued = list.filter((r) => valueOf(r, sort.column) !== null)
  const none = list.filter((r) => valueOf(r, sort.column) === null).sort(byDate)
  valued.sort((a, b) => cmpValue(valueOf(a, sort.column)!, valueOf(b, sort.column)!) || byDate(a, b))
  if (sort.dir === 'desc') valued.reverse()
  return [...valued, ...none].map((r) => r.callId)
}

function pages(q: SearchQuery, sortBy: ColumnSort | null, limit: number, over: LocalSearch = search): string[] {
  const out: string[] = []
  for (let offset = 0; ; offset += limit) {
    const rows = over.page(q, offset, limit, { sortBy }).rows
    out.push(...rows.map((r) => r.callId))
    if (rows.length < limit) return out
  }
}

// Synced with every result: 'all' is no filter (the default is answered only).
const Q = (input: SearchQueryInput): SearchQuery => SearchQuery.parse({ results: 'all', ...input })
const SORTS: ColumnSort[] = [
  { column: 'analysis:score', dir: 'asc' },
  { column: 'analysis:score', dir: 'desc' },
  { column: 'extra:agentName', dir: 'asc' },
  { column: 'extra:durationSeconds', dir: 'desc' },
  { column: 'analysis:sentiment', dir: 'asc' },
  { column: 'callType', dir: 'desc' }
]
const QUERIES: Array<[string, SearchQueryInput]> = [
  ['everything', {}],
  ['a word', { text: 'fatura' }],
  [
    'a date range and a score range',
    { from: T0 + 3 * 86_400_000, to: T0 + 12 * 86_400_000, analysis: [{ kind: 'range', key: 'score', min: 10, max: 80 }] }
  ],
  ['a call type', { callTypes: ['İptal'] }],
  ['a common word', { text: 'müşteri' }],
  ['a rare word', { text: 'kuzguncuk' }],
  ['a common word and a score range', { text: 'müşteri', analysis: [{ kind: 'range', key: 'score', min: 100 }] }],
  ['a date range alone', { from: T0 + 17 * 86_400_000, to: T0 + 18 * 86_400_000 }]
]

describe('sorting the results by a chosen column', () => {
  it.each(SORTS.map((s) => [`${s.column} ${s.dir}`, s] as const))(
    'pages %s exactly as an independent sort, for every query',
    (_name, sort) => {
      for (const [, input] of QUERIES) {
        const q = Q(input)
        const inDateOrder = pages(q, null, 500)
        expect(inDateOrder.length).toBeGreaterThan(0)
        const want = expected(inDateOrder, sort)
        expect(pages(q, sort, 37)).toEqual(want)
        // A jump straight to a deep page, then back: the same rows as read in order.
        const deep = search.page(q, Math.floor(want.length / 2), 25, { sortBy: sort }).rows.map((r) => r.callId)
        expect(deep).toEqual(want.slice(Math.floor(want.length / 2), Math.floor(want.length / 2) + 25))
        expect(search.page(q, 3, 5, { sortBy: sort }).rows.map((r) => r.callId)).toEqual(want.slice(3, 8))
        // Once the count has read a common word's match list, pages test its bitmap instead of
        // asking SQL about candidates: the same rows.
        search.count(q)
        expect(pages(q, sort, 41)).toEqual(want)
        // The first way sorted pages were served (the bench's baseline) agrees.
        expect(pages(q, sort, 53, legacy)).toEqual(want)
      }
    }
  )

  it('has queries that exercise every driver: many matches, a few, none with a value', () => {
    const counts = QUERIES.map(([, input]) => search.count(Q(input)))
    const total = search.count(Q({}))
    expect(counts.some((n) => n > total * 0.8)).toBe(true)
    expect(counts.some((n) => n > 0 && n < total * 0.03)).toBe(true)
    // Calls without a score and ties of a score are both there.
    const scores = records.map((r) => valueOf(r, 'analysis:score'))
    expect(scores.filter((v) => v === null).length).toBeGreaterThan(100)
    expect(new Set(scores).size).toBeLessThan(scores.length / 10)
  })

  it('orders names the Turkish way: C < Ç, I < İ, O < Ö, S < Ş, U < Ü', () => {
    const names = pages(Q({}), { column: 'extra:agentName', dir: 'asc' }, 500)
      .map((id) => records.find((r) => r.callId === id)!.extra.agentName as string | undefined)
      .filter((n): n is string => n !== undefined)
    expect([...new Set(names)]).toEqual(TURKISH_ORDER)
  })

  it('gives each row the chosen columns’ values, numbers as numbers', () => {
    const columns = ['callType', 'extra:agentName', 'extra:durationSeconds', 'analysis:score', 'analysis:sentiment']
    const page = search.page(Q({}), 0, 50, { columns })
    expect(Object.keys(page.cells ?? {})).toHaveLength(50)
    for (const row of page.rows) {
      const r = records.find((x) => x.callId === row.callId)!
      const cell = page.cells![row.callId]!
      for (const c of columns) expect(cell[c]).toEqual(valueOf(r, c))
    }
  })

  it('offers the call type, the extra fields and the analysis keys as columns', () => {
    const list = search.resultColumns()
    expect(list).toEqual(
      expect.arrayContaining([
        { column: 'callType', label: 'callType', numeric: false },
        { column: 'extra:agentName', label: 'agentName', numeric: false },
        { column: 'extra:durationSeconds', label: 'durationSeconds', numeric: true },
        expect.objectContaining({ column: 'analysis:score', label: 'Puan', numeric: true })
      ])
    )
  })

  it('exports a query, and a hand selection over it, in the list’s column order', () => {
    const sortBy: ColumnSort = { column: 'extra:agentName', dir: 'asc' }
    const q = Q({ text: 'fatura' })
    const listed = pages(q, sortBy, 300)
    const exported = [...search.iterate({ kind: 'query', query: q, sortBy }).records].map((r) => r.callId)
    expect(exported).toEqual(listed)
    // Rows 5–9 and 40 of the sorted list, as the user selected them there.
    const picked = [
      ...search.iterate({
        kind: 'ranges',
        query: q,
        ranges: [
          [5, 9],
          [40, 40]
        ],
        sortBy
      }).records
    ].map((r) => r.callId)
    expect(picked).toEqual([...listed.slice(5, 10), listed[40]])
    // Without a sort the file keeps the date order.
    const byDateOrder = [...search.iterate({ kind: 'query', query: q }).records].map((r) => r.callId)
    expect(byDateOrder).toEqual(pages(q, null, 300))
    expect(byDateOrder).not.toEqual(listed)
  })

  it('follows a write: new calls take their place in the sorted order', () => {
    const sort: ColumnSort = { column: 'analysis:score', dir: 'desc' }
    const before = pages(Q({}), sort, 500)
    const more = makeCalls(300, 8, 'b')
    records.push(...more)
    writeAll(more)
    const q = Q({})
    const after = pages(q, sort, 500)
    expect(after.length).toBe(before.length + 300)
    expect(after).toEqual(expected(pages(q, null, 500), sort))
  })

  it('follows a sync of one day and calls rewritten with another time and score (the order merged, not read again)', () => {
    const sorts: ColumnSort[] = [
      { column: 'analysis:score', dir: 'asc' },
      { column: 'extra:agentName', dir: 'desc' }
    ]
    for (const sort of sorts) pages(Q({ text: 'müşteri' }), sort, 500)
    // After the first build the date order is merged, never read whole again.
    const wholeReads = vi.spyOn(SqliteColumnReads.prototype, 'idsByDate')
    for (let round = 0; round < 3; round++) {
      // New calls within one day, some sharing a second with an old call.
      const day = T0 + (5 + round * 6) * 86_400_000
      const fresh = makeCalls(120, 20 + round, `d${round}`).map((r, i) => {
        const callAt = i % 10 === 0 ? records[i]!.callAt : day + (r.callAt % 86_400_000)
        return { ...r, callAt, callDate: new Date(callAt).toISOString() }
      })
      for (const r of fresh) typeOf.delete(r.callId)
      // Old calls rewritten: another time (the date order moves them) and another score.
      const rewritten = records.slice(round * 40, round * 40 + 25).map((r, i) => {
        const callAt = r.callAt + (i % 2 === 0 ? 3 : -7) * 3_600_000
        return {
          ...r,
          callAt,
          callDate: new Date(callAt).toISOString(),
          analysis: [...r.analysis.filter((a) => a.key !== 'score'), { key: 'score', friendlyName: 'Puan', value: String(round * 50 - i) }]
        }
      })
      for (const r of rewritten) records[records.findIndex((x) => x.callId === r.callId)] = r
      records.push(...fresh)
      writeAll([...fresh, ...rewritten])
      const inDateOrder = pages(Q({}), null, 500)
      expect(inDateOrder).toEqual(
        [...records]
          .sort(byDate)
          .reverse()
          .map((r) => r.callId)
      )
      for (const sort of sorts) {
        for (const input of [{}, { text: 'müşteri' }, { text: 'kuzguncuk' }]) {
          const q = Q(input)
          expect(pages(q, sort, 97), `${sort.column} ${JSON.stringify(input)}`).toEqual(expected(pages(q, null, 500), sort))
        }
      }
    }
    expect(wholeReads).not.toHaveBeenCalled()
    wholeReads.mockRestore()
  })
})
