import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DateTime } from 'luxon'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openCache, type CallCache, type ScopeFilters } from '../../../../src/core/cache'
import { createSearch, type LocalSearch } from '../../../../src/core/search'
import { SearchQuery, type CallRecord, type SearchQueryInput } from '../../../../src/shared/domain'
import { prng } from '../../../support/prng'

// Insight's breakdown by a column and a column over time, on a real SQLite file, against the
// same figures computed independently from the records; and each breakdown bar drilled into
// a search (the filter the renderer adds) finds exactly that bar's calls.

const T0 = Date.UTC(2026, 2, 2, 5)
const ZONE = 'Europe/Istanbul'
const AGENTS = ['Zeynep', 'Çağla', 'Cem', 'İpek']
const ALL: ScopeFilters = { callTypes: [], direction: null, results: 'all', hasNewRequest: null, includeAnalysis: true }
const FATURA: ScopeFilters = { callTypes: ['Fatura'], direction: null, results: 'all', hasNewRequest: null, includeAnalysis: true }

let dir = ''
let cache: CallCache
let search: LocalSearch
const records: CallRecord[] = []
const fatura = new Set<string>()

const q = (input: SearchQueryInput = {}): SearchQuery => SearchQuery.parse({ results: 'all', ...input })
const valueOf = (r: CallRecord, key: string): string | undefined => r.analysis.find((a) => a.key === key)?.value
const dayOf = (ms: number): string => DateTime.fromMillis(ms, { zone: ZONE }).toISODate()!
const weekOf = (ms: number): string => DateTime.fromMillis(ms, { zone: ZONE }).startOf('week').toISODate()!

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'callsight-insight-'))
  cache = openCache(join(dir, 'cache.db'))
  cache.ensureScope('all', ALL)
  cache.ensureScope('fatura', FATURA)
  const r = prng(11)
  for (let i = 0; i < 900; i++) {
    const callAt = T0 + Math.floor(r() * 24 * 86_400) * 1000
    const analysis = [{ key: 'sentiment', friendlyName: 'Duygu', value: ['Olumlu', 'Olumsuz', 'Nötr'][Math.floor(r() * 3)]! }]
    if (r() < 0.8) analysis.push({ key: 'score', friendlyName: 'Puan', value: String(Math.floor(r() * 100)) })
    const extra: Record<string, unknown> = { durationSeconds: Math.floor(r() * 600) }
    if (r() < 0.9) extra.agentName = AGENTS[Math.floor(r() * AGENTS.length)]
    const rec: CallRecord = {
      callId: `c${i}`,
      callAt,
      callDate: new Date(callAt).toISOString(),
      title: i % 2 === 0 ? `fatura ${i}` : `iptal ${i}`,
      summary: 'görüşme',
      analysis,
      extra
    }
    if (r() < 0.5) fatura.add(rec.callId)
    records.push(rec)
  }
  for (let i = 0; i < records.length; i += 100)
    cache.writePage({ scopeKey: 'all', records: records.slice(i, i + 100), includeAnalysis: true, checkpoint: null })
  cache.writePage({ scopeKey: 'fatura', records: records.filter((x) => fatura.has(x.callId)), includeAnalysis: true, checkpoint: null })
  cache.optimizeIndex()
  search = createSearch(cache)
})
afterAll(() => {
  cache.close()
  rmSync(dir, { recursive: true, force: true })
})

function tally(list: readonly CallRecord[], value: (r: CallRecord) => string | undefined): Map<string, number> {
  const out = new Map<string, number>()
  for (const r of list) {
    const v = value(r)
    if (v !== undefined) out.set(v, (out.get(v) ?? 0) + 1)
  }
  return out
}

describe('breakdown by a column', () => {
  it('counts an extra text field (the agent) per value, with calls without one as missing', () => {
    const b = search.breakdown(q(), 'extra:agentName')
    const want = tally(records, (r) => r.extra.agentName as string | undefined)
    expect(b.numeric).toBe(false)
    expect(b.total).toBe(records.length)
    expect(new Map(b.bars.map((x) => [x.value, x.count]))).toEqual(want)
    expect(b.missing).toBe(records.filter((r) => r.extra.agentName === undefined).length)
    expect(b.bars.map((x) => x.count)).toEqual([...b.bars.map((x) => x.count)].sort((x, y) => y - x))
  })

  it('counts only the query’s matches (text and a call type), by an analysis key', () => {
    const query = q({ text: 'fatura', callTypes: ['Fatura'] })
    const matched = records.filter((r) => r.title.startsWith('fatura') && fatura.has(r.callId))
    const b = search.breakdown(query, 'analysis:sentiment')
    expect(b.total).toBe(matched.length)
    expect(new Map(b.bars.map((x) => [x.value, x.count]))).toEqual(tally(matched, (r) => valueOf(r, 'sentiment')))
  })

  it('puts a numeric column into ranges that cover every valued call once', () => {
    const b = search.breakdown(q(), 'extra:durationSeconds')
    expect(b.numeric).toBe(true)
    expect(b.bars.reduce((s, x) => s + x.count, 0)).toBe(records.length)
    for (const bar of b.bars) {
      const inBar = records.filter((r) => {
        const v = r.extra.durationSeconds as number
        return v >= bar.min! && (v < bar.max! || (bar.closed === true && v === bar.max))
      })
      expect(bar.count).toBe(inBar.length)
    }
  })

  it('drills from a bar into a search that finds exactly its calls', () => {
    for (const bar of search.breakdown(q(), 'extra:agentName').bars)
      expect(search.count(q({ fields: [{ kind: 'equals', field: 'agentName', value: bar.value }] }))).toBe(bar.count)
    for (const bar of search.breakdown(q(), 'extra:durationSeconds').bars) {
      // The last range holds its upper bound (closed); the others stop just below it.
      const max = bar.closed ? bar.max! : bar.max! - 1e-9
      expect(search.count(q({ fields: [{ kind: 'range', field: 'durationSeconds', min: bar.min, max }] }))).toBe(bar.count)
    }
  })

  it('answers empty for a query that matches nothing', () => {
    expect(search.breakdown(q({ text: 'yokböyleşey' }), 'extra:agentName')).toMatchObject({ total: 0, bars: [] })
  })
})

describe('a column over time', () => {
  it('gives the mean of a numeric key per day of the zone, with days without calls empty', () => {
    const t = search.trend(q(), 'analysis:score', { kind: 'mean' }, 'day', ZONE)
    const sums = new Map<string, { n: number; sum: number }>()
    for (const r of records) {
      const v = valueOf(r, 'score')
      if (v === undefined) continue
      const s = sums.get(dayOf(r.callAt)) ?? { n: 0, sum: 0 }
      sums.set(dayOf(r.callAt), { n: s.n + 1, sum: s.sum + Number(v) })
    }
    const days = [...sums.keys()].sort()
    expect(t.points[0]!.period).toBe(days[0])
    expect(t.points.at(-1)!.period).toBe(days.at(-1))
    for (const p of t.points) {
      const s = sums.get(p.period)
      expect(p.n).toBe(s?.n ?? 0)
      if (s) expect(p.value).toBeCloseTo(s.sum / s.n, 9)
      else expect(p.value).toBeNull()
    }
  })

  it('gives the share of one value per week (weeks start on Monday) among calls with a value', () => {
    const t = search.trend(q({ callTypes: ['Fatura'] }), 'analysis:sentiment', { kind: 'share', value: 'Olumsuz' }, 'week', ZONE)
    const weeks = new Map<string, { n: number; hit: number }>()
    for (const r of records) {
      if (!fatura.has(r.callId)) continue
      const w = weeks.get(weekOf(r.callAt)) ?? { n: 0, hit: 0 }
      weeks.set(weekOf(r.callAt), { n: w.n + 1, hit: w.hit + (valueOf(r, 'sentiment') === 'Olumsuz' ? 1 : 0) })
    }
    expect(t.points.map((p) => p.period)).toEqual([...weeks.keys()].sort())
    for (const p of t.points) {
      expect(DateTime.fromISO(p.period, { zone: ZONE }).weekday).toBe(1)
      const w = weeks.get(p.period)!
      expect(p.n).toBe(w.n)
      expect(p.value).toBeCloseTo(w.hit / w.n, 12)
    }
  })

  it('has no mean for a text column and rejects an unknown zone', () => {
    expect(search.trend(q(), 'analysis:sentiment', { kind: 'mean' }, 'day', ZONE).points).toEqual([])
    expect(() => search.trend(q(), 'analysis:score', { kind: 'mean' }, 'day', 'Mars/Base')).toThrow(/time zone/)
  })
})
