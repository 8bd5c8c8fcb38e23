import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DateTime } from 'luxon'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openCache, parseNumeric, type CallCache, type ScopeFilters } from '../../../../src/core/cache'
import { createSearch, type LocalSearch } from '../../../../src/core/search'
import { SearchQuery, type CallRecord, type Facets, type SearchQueryInput } from '../../../../src/shared/domain'
import { rnd } from './fixture'

/**
 * Facets with no text and no filter but dates come from running totals kept at ingest;
 * here they are compared with a brute-force count over an in-memory copy of what was
 * written, across a DST change, mid-hour range ends, rewritten records and clear().
 */
const HOUR = 3_600_000
const DAY = 24 * HOUR
// 2025-11-02: New York leaves DST; Istanbul has none; Kolkata is UTC+05:30.
const T0 = Date.UTC(2025, 9, 28)
const ZONES = ['UTC', 'Europe/Istanbul', 'America/New_York', 'Asia/Kolkata']
const SCOPES: Record<string, ScopeFilters> = {
  all: { callTypes: [], direction: null, results: 'all', hasNewRequest: null, includeAnalysis: true },
  fatura: { callTypes: ['Fatura'], direction: null, results: 'all', hasNewRequest: null, includeAnalysis: false },
  kargo: { callTypes: ['Kargo'], direction: 1, results: 'all', hasNewRequest: null, includeAnalysis: true }
}

interface Model {
  records: Map<string, CallRecord>
  scopes: Map<string, Set<string>>
}

function makeRecord(r: () => number, id: string): CallRecord {
  const at = T0 + Math.floor(r() * 9 * DAY)
  return {
    callId: id,
    callAt: at,
    callDate: new Date(at).toISOString(),
    title: `görüşme ${id}`,
    summary: 'fatura',
    analysis: [
      { key: 'sentiment', friendlyName: 'Duygu', value: ['olumlu', 'olumsuz', 'nötr'][Math.floor(r() * 3)]! },
      { key: 'score', friendlyName: 'Skor', value: String(Math.floor(r() * 101)) }
    ],
    extra: {}
  }
}

function write(cache: CallCache, model: Model, scopeKey: string, records: CallRecord[]): void {
  const withAnalysis = SCOPES[scopeKey]!.includeAnalysis
  cache.writePage({
    scopeKey,
    records: withAnalysis ? records : records.map((x) => ({ ...x, analysis: [] })),
    includeAnalysis: withAnalysis,
    checkpoint: null
  })
  for (const x of records) {
    const prev = model.records.get(x.callId)
    // A page without analysis keeps the stored analysis.
    model.records.set(
      x.callId,
      withAnalysis || !prev ? { ...x, analysis: withAnalysis ? x.analysis : [] } : { ...x, analysis: prev.analysis }
    )
    const set = model.scopes.get(x.callId) ?? new Set<string>()
    set.add(scopeKey)
    model.scopes.set(x.callId, set)
  }
}

function brute(model: Model, q: SearchQuery, key: string, zone: string): Facets {
  const calls = [...model.records.values()].filter((x) => (q.from === null || x.callAt >= q.from) && (q.to === null || x.callAt < q.to))
  const days = new Map<string, number>()
  for (const x of calls) {
    const d = DateTime.fromMillis(x.callAt, { zone }).toISODate()!
    days.set(d, (days.get(d) ?? 0) + 1)
  }
  const types = new Map<string, number>()
  for (const x of calls) {
    for (const s of model.scopes.get(x.callId)!) {
      const t = SCOPES[s]!.callTypes
      if (t.length === 1) types.set(t[0]!, (types.get(t[0]!) ?? 0) + 1)
    }
  }
  const values = new Map<string, number>()
  for (const x of calls) for (const a of x.analysis) if (a.key === key) values.set(a.value, (values.get(a.value) ?? 0) + 1)
  return {
    total: calls.length,
    perDay: [...days].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([day, count]) => ({ day, count })),
    perType: [...types].map(([value, count]) => ({ value, count })).sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : 1)),
    perValue: [...values]
      .map(([value, count]) => ({ value, min: null, max: null, count }))
      .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : 1))
  }
}

// These caches were synced with all results; 'all' is no filter (the default is answered only).
const Q = (input: SearchQueryInput): SearchQuery => SearchQuery.parse({ results: 'all', ...input })
const QUERIES: Array<[string, SearchQueryInput]> = [
  ['whole cache', {}],
  ['whole days in UTC', { from: T0 + DAY, to: T0 + 6 * DAY }],
  ['range ending mid-hour, across the DST change', { from: T0 + 2 * DAY + 17 * 60_000 + 5, to: T0 + 7 * DAY - 23 * 60_000 }],
  ['open start, mid-hour end', { to: T0 + 4 * DAY + 30 * 60_000 }],
  ['mid-hour start, open end', { from: T0 + 3 * DAY + 59 * 60_000 }],
  ['inside one hour', { from: T0 + 5 * DAY + 10 * 60_000, to: T0 + 5 * DAY + 50 * 60_000 }]
]

let dir: string
let cache: CallCache
let search: LocalSearch
/** Always the in-memory columns, kept across the stages: they follow each write incrementally. */
let columns: LocalSearch
const model: Model = { records: new Map(), scopes: new Map() }

function expectAllMatch(): void {
  for (const [, input] of QUERIES) {
    const q = Q(input)
    // Every call says "fatura": the same facets, counted from the columns.
    const viaText = Q({ ...input, text: 'fatura' })
    for (const zone of ZONES) {
      const want = brute(model, q, 'sentiment', zone)
      expect(search.facets(q, 'sentiment', zone)).toEqual(want)
      expect(columns.facets(viaText, 'sentiment', zone)).toEqual(want)
    }
    expect(columns.facets(viaText, 'score', 'UTC').perValue).toEqual(search.facets(q, 'score', 'UTC').perValue)
    // Numeric key: the buckets add up to the items, and each holds exactly its values.
    const f = search.facets(q, 'score', 'UTC')
    const scores = [...model.records.values()]
      .filter((x) => (q.from === null || x.callAt >= q.from) && (q.to === null || x.callAt < q.to))
      .flatMap((x) => x.analysis.filter((a) => a.key === 'score').map((a) => parseNumeric(a.value)!))
    for (const b of f.perValue)
      expect(b.count).toBe(scores.filter((s) => s >= b.min! && (s < b.max! || (b.closed === true && s === b.max))).length)
    expect(f.perValue.reduce((a, b) => a + b.count, 0)).toBe(scores.length)
  }
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'callsight-facet-totals-'))
  cache = openCache(join(dir, 'cache.db'))
  for (const [k, f] of Object.entries(SCOPES)) cache.ensureScope(k, f)
  search = createSearch(cache)
  columns = createSearch(cache, { facetScanShare: 0 })
})
afterAll(() => {
  cache.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('facets from running totals equal a brute-force count', () => {
  const r = rnd(11)
  const ids = Array.from({ length: 1500 }, (_, i) => `call-${i}`)

  it('after a first sync through several scopes', () => {
    const records = ids.map((id) => makeRecord(r, id))
    for (let i = 0; i < records.length; i += 100) write(cache, model, 'all', records.slice(i, i + 100))
    write(
      cache,
      model,
      'fatura',
      records.filter(() => r() < 0.3)
    )
    write(cache, model, 'kargo', records.filter(() => r() < 0.2).slice(0, 250))
    expectAllMatch()
  })

  it('after changed records (moved in time, new analysis, without analysis) and repeated pages', () => {
    const changed = ids.filter(() => r() < 0.2).map((id) => makeRecord(r, id))
    write(cache, model, 'all', changed.slice(0, 150))
    write(cache, model, 'fatura', changed.slice(100, 250))
    write(cache, model, 'kargo', changed.slice(50, 120))
    write(cache, model, 'kargo', changed.slice(50, 120))
    expectAllMatch()
  })

  it('after another connection wrote (a CLI sync into the same file)', () => {
    const other = openCache(join(dir, 'cache.db'))
    try {
      const changed = ids.filter(() => r() < 0.1).map((id) => makeRecord(r, id))
      write(other, model, 'all', changed)
      write(other, model, 'fatura', changed.slice(0, 40))
    } finally {
      other.close()
    }
    expectAllMatch()
  })

  it('after clear() and a new sync', () => {
    cache.clear()
    model.records.clear()
    model.scopes.clear()
    for (const [k, f] of Object.entries(SCOPES)) cache.ensureScope(k, f)
    expect(search.facets(Q({}), 'sentiment', 'UTC')).toEqual({ total: 0, perType: [], perDay: [], perValue: [] })
    write(
      cache,
      model,
      'all',
      ids.slice(0, 200).map((id) => makeRecord(r, id))
    )
    write(
      cache,
      model,
      'fatura',
      ids.slice(0, 50).map((id) => makeRecord(r, id))
    )
    expectAllMatch()
  })
})
