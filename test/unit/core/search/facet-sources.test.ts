import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSearchReader, openCache, type SearchReader, type SqlPiece } from '../../../../src/core/cache'
import { CallColumns } from '../../../../src/core/search/memory/columns'
import { DataWatch } from '../../../../src/core/search/data-watch'
import { chooseFacetPlan, KEPT_COLUMNS_MIN } from '../../../../src/core/search/facets'
import { dayStarts, type NumericRange } from '../../../../src/core/search/facets/buckets'
import { ColumnsSource } from '../../../../src/core/search/facets/columns-source'
import type { DayRange, FacetSource, KeyColumns, TypeScopes } from '../../../../src/core/search/facets/source'
import { SqlSource } from '../../../../src/core/search/facets/sql-source'
import { TotalsSource } from '../../../../src/core/search/facets/totals-source'
import { MatchSet } from '../../../../src/core/search/memory/match-set'
import type { Facets } from '../../../../src/shared/domain'
import { buildFixture, T0, type Fixture } from './fixture'

/** A fallback that answers with a marker, so a test sees which facets were handed on. */
class Marker implements FacetSource {
  readonly kind = 'sql-scan'
  readonly asked: string[] = []
  perDay(): Facets['perDay'] {
    this.asked.push('day')
    return [{ day: 'fallback', count: -1 }]
  }
  perType(): Facets['perType'] {
    this.asked.push('type')
    return [{ value: 'fallback', count: -1 }]
  }
  perValue(): Facets['perValue'] {
    this.asked.push('value')
    return [{ value: 'fallback', min: null, max: null, count: -1 }]
  }
  numericRange(): NumericRange {
    this.asked.push('range')
    return { min: -1, max: -1, items: -1 }
  }
}

const EVERY_CALL: SqlPiece = { sql: 'SELECT id FROM calls', params: [] }

let fx: Fixture
let reader: SearchReader
let columns: CallColumns
let types: TypeScopes
const key = (name: string, numeric: boolean): KeyColumns => ({
  ids: reader.catalog
    .analysisKeys()
    .filter((k) => k.key === name)
    .map((k) => k.id),
  numeric
})
const days = (zone: string): DayRange => {
  const b = reader.totals.callBounds()!
  return { days: dayStarts(b.lo, b.hi, zone), hi: b.hi }
}

beforeAll(() => {
  fx = buildFixture(1500, 11)
  reader = createSearchReader(fx.cache)
  columns = new CallColumns(reader.columns, new DataWatch(reader.data))
  // Single-type scopes: 'fatura' (Fatura) and 'kargo' (Kargo); 'mixed' has two types.
  const scopes = reader.catalog.scopes()
  types = new Map([
    ['Fatura', [scopes.find((s) => s.filters.callTypes.join() === 'Fatura')!.id]],
    ['Kargo', [scopes.find((s) => s.filters.callTypes.join() === 'Kargo')!.id]]
  ])
})
afterAll(() => fx.close())

describe('facet sources', () => {
  it('all four count the same facets of every call, where each can', () => {
    const sources: FacetSource[] = [
      new TotalsSource(reader.totals, { from: null, to: null }, new Marker()),
      new ColumnsSource(columns, new MatchSet(null, reader.matches), new Marker()),
      new SqlSource(reader.facetSql, { form: 'scan', matches: null }),
      new SqlSource(reader.facetSql, { form: 'seek', matches: EVERY_CALL })
    ]
    const answers = sources.map((s) => ({
      perDay: s.perDay(days('Europe/Istanbul')),
      perType: s.perType(types),
      text: s.perValue(key('sentiment', false)),
      numeric: s.perValue(key('score', true)),
      range: s.numericRange(key('score', true))
    }))
    expect(answers[0]!.perDay.reduce((a, d) => a + d.count, 0)).toBe(fx.records.length)
    expect(answers[0]!.text.map((v) => v.value).sort()).toEqual(['nötr', 'olumlu', 'olumsuz'])
    const scores = fx.records.map((r) => Number(r.analysis.find((a) => a.key === 'score')!.value))
    expect(answers[0]!.range).toEqual({ min: Math.min(...scores), max: Math.max(...scores), items: scores.length })
    for (const a of answers.slice(1)) expect(a).toEqual(answers[0])
  })

  it('the totals hand on what they cannot fold: days off the hour, shared types, values in a range', () => {
    const fallback = new Marker()
    const totals = new TotalsSource(reader.totals, { from: T0, to: null }, fallback)
    expect(totals.perDay(days('Asia/Kolkata'))[0]!.day).toBe('fallback')
    expect(totals.perDay(days('UTC'))[0]!.day).not.toBe('fallback')
    const shared = new Map([['Fatura', [...types.get('Fatura')!, ...types.get('Kargo')!]]])
    expect(totals.perType(shared)[0]!.value).toBe('fallback')
    expect(totals.perValue(key('sentiment', false))[0]!.value).toBe('fallback')
    expect(totals.numericRange(key('score', true))!.min).toBe(-1)
    expect(fallback.asked).toEqual(['day', 'type', 'value', 'range'])
  })

  it('the columns hand on days off the quarter hour and more types than a mask holds', () => {
    const fallback = new Marker()
    const source = new ColumnsSource(columns, new MatchSet(null, reader.matches), fallback)
    // No zone in use today starts its days off the quarter hour (Kathmandu: +05:45); history has some.
    expect(source.perDay(days('Asia/Kathmandu'))[0]!.day).not.toBe('fallback')
    expect(source.perDay({ days: [{ start: T0 + 60_000, day: '2025-03-01' }], hi: T0 + 3_600_000 })[0]!.day).toBe('fallback')
    const many = new Map(Array.from({ length: 33 }, (_, i) => [`T${i}`, types.get('Fatura')!] as [string, number[]]))
    expect(source.perType(many)[0]!.value).toBe('fallback')
    expect(fallback.asked).toEqual(['day', 'type'])
  })

  it('kept-only counts in the columns already in memory, each facet on its own, and seeks the rest', () => {
    const fresh = new CallColumns(reader.columns, new DataWatch(reader.data))
    const matches = new MatchSet(null, reader.matches)
    const fallback = new Marker()
    const source = new ColumnsSource(fresh, matches, fallback, true)
    const sentiment = key('sentiment', false)
    const score = key('score', true)
    const ask = (): unknown[] => [
      source.perDay(days('Europe/Istanbul')),
      source.perType(types),
      source.perValue(sentiment),
      source.numericRange(score)
    ]
    // Nothing read yet: every facet handed on, and no column read for it.
    ask()
    expect(fresh.quartersKept()).toBe(false)
    expect(fallback.asked).toEqual(['day', 'type', 'value', 'range'])
    // The quarter hours kept (any query reads them): the days from them, the rest still handed on.
    fresh.quarters()
    fallback.asked.length = 0
    const whole = new ColumnsSource(columns, matches, new Marker())
    expect(source.perDay(days('Europe/Istanbul'))).toEqual(whole.perDay(days('Europe/Istanbul')))
    source.perType(types)
    source.perValue(sentiment)
    expect(fallback.asked).toEqual(['type', 'value'])
    // Every column kept: nothing handed on, the same answers as the columns counted whole.
    fresh.typeMasks([...types.values()])
    fresh.values(sentiment.ids, false)
    fresh.values(score.ids, true)
    fallback.asked.length = 0
    expect(ask()).toEqual([
      whole.perDay(days('Europe/Istanbul')),
      whole.perType(types),
      whole.perValue(sentiment),
      whole.numericRange(score)
    ])
    expect(fallback.asked).toEqual([])
  })
})

describe('chooseFacetPlan', () => {
  const ids: SqlPiece = { sql: 'SELECT rowid AS id FROM calls_fts WHERE calls_fts MATCH ?', params: ['"x"'] }
  it('counts many matches (or every call) in the columns, few by seeking, totals first for date-only queries', () => {
    expect(chooseFacetPlan({ dateOnly: true }, { total: 10, allCalls: 10, ids: null })).toEqual({ totals: true, matches: 'many' })
    expect(chooseFacetPlan({ dateOnly: false }, { total: 51, allCalls: 1000, ids })).toEqual({ totals: false, matches: 'many' })
    expect(chooseFacetPlan({ dateOnly: false }, { total: 50, allCalls: 1000, ids })).toEqual({ totals: false, matches: 'few', ids })
    expect(chooseFacetPlan({ dateOnly: true }, { total: 50, allCalls: 1000, ids })).toEqual({ totals: true, matches: 'few', ids })
    expect(chooseFacetPlan({ dateOnly: false }, { total: 50, allCalls: 1000, ids }, 0)).toEqual({ totals: false, matches: 'many' })
  })

  it('counts a few percent in the columns once they are in memory, from KEPT_COLUMNS_MIN matches', () => {
    const m = { allCalls: 1_000_000, ids }
    expect(chooseFacetPlan({ dateOnly: false }, { ...m, total: KEPT_COLUMNS_MIN, columnsKept: true })).toEqual({
      totals: false,
      matches: 'many'
    })
    expect(chooseFacetPlan({ dateOnly: false }, { ...m, total: KEPT_COLUMNS_MIN - 1, columnsKept: true })).toEqual({
      totals: false,
      matches: 'few',
      ids
    })
    expect(chooseFacetPlan({ dateOnly: false }, { ...m, total: 40_000, columnsKept: false })).toEqual({
      totals: false,
      matches: 'few',
      ids
    })
  })
})

describe('DataWatch', () => {
  it("tells own writes (with what they changed) from other connections' and from a clear", () => {
    const watch = new DataWatch(reader.data)
    expect(watch.since(null).change).toEqual({ kind: 'unknown' })
    const v0 = watch.version()
    expect(watch.since(v0).change).toEqual({ kind: 'none' })
    const before = reader.data.maxCallId()
    fx.cache.writePage({
      scopeKey: 'everything',
      records: [{ ...fx.records[0]!, callId: 'watch-new' }],
      includeAnalysis: true,
      checkpoint: null
    })
    expect(watch.since(v0).change).toEqual({ kind: 'own-writes', changes: { newFrom: before + 1, touched: [] } })
    const v1 = watch.version()
    const other = openCache(fx.cache.file)
    try {
      other.writePage({
        scopeKey: 'everything',
        records: [{ ...fx.records[1]!, callId: 'watch-other' }],
        includeAnalysis: true,
        checkpoint: null
      })
    } finally {
      other.close()
    }
    expect(watch.since(v1).change).toEqual({ kind: 'unknown' })
  })
})
