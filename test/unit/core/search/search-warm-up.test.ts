import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createSearchReader, type SearchReader } from '../../../../src/core/cache'
import { createSearch } from '../../../../src/core/search'
import { CallColumns, type ValueColumn } from '../../../../src/core/search/memory/columns'
import { DataWatch } from '../../../../src/core/search/data-watch'
import { whenIdle } from '../../../../src/core/search/memory/search-warm-up'
import { SearchQuery, type SearchQueryInput } from '../../../../src/shared/domain'
import { buildFixture, type Fixture } from './fixture'

// The warm-up (search-warm-up.ts) reads analysis columns a piece at a time between requests;
// a first page reads a cold column for its window only. Both must give what a whole read gives.

const Q = (input: SearchQueryInput): SearchQuery => SearchQuery.parse({ results: 'all', ...input })

/** A column's items as sorted "call=value" strings: what equals, ranges and facets see of it. */
function itemsOf(col: ValueColumn): string[] {
  const out: string[] = []
  for (let i = 0; i < col.length; i++) {
    if (col.calls[i]! < 0) continue
    out.push(`${col.calls[i]}=${col.codes ? col.dict[col.codes[i]!] : col.nums![i]}`)
  }
  return out.sort()
}

let fx: Fixture
let reader: SearchReader
const idsOf = (key: string): number[] =>
  reader.catalog
    .analysisKeys()
    .filter((k) => k.key === key)
    .map((k) => k.id)

beforeEach(() => {
  fx = buildFixture(600, 5)
  reader = createSearchReader(fx.cache)
})
afterEach(() => fx.close())

describe('a column read in pieces', () => {
  it('holds what a whole read holds, text and numeric, and is kept', () => {
    const columns = new CallColumns(reader.columns, new DataWatch(reader.data))
    for (const [key, numeric] of [
      ['sentiment', false],
      ['score', true]
    ] as const) {
      const step = columns.valuesInPieces(idsOf(key), numeric, 37)
      let steps = 1
      while (step() === 'reading') steps++
      expect(steps).toBeGreaterThan(10)
      const whole = new CallColumns(reader.columns, new DataWatch(reader.data)).values(idsOf(key), numeric)
      const kept = columns.values(idsOf(key), numeric)
      expect(itemsOf(kept)).toEqual(itemsOf(whole))
      expect(kept.length).toBeGreaterThan(0)
      // Kept without the room its pieces grew it by.
      expect(kept.calls.length).toBe(kept.length)
      expect((kept.codes ?? kept.nums)!.length).toBe(kept.length)
    }
  })

  it('is dropped, not kept, when the data changes between pieces', () => {
    const columns = new CallColumns(reader.columns, new DataWatch(reader.data))
    const step = columns.valuesInPieces(idsOf('sentiment'), false, 50)
    expect(step()).toBe('reading')
    // A piece already read holds the old value of this call: keeping it would be stale.
    const first = fx.cache.getCall(fx.records[0]!.callId)!
    fx.cache.writePage({
      scopeKey: 'everything',
      records: [{ ...first, analysis: first.analysis.map((a) => (a.key === 'sentiment' ? { ...a, value: 'çok olumsuz' } : a)) }],
      includeAnalysis: true,
      checkpoint: null
    })
    expect(step()).toBe('dropped')
    const now = itemsOf(columns.values(idsOf('sentiment'), false))
    expect(now).toEqual(itemsOf(new CallColumns(reader.columns, new DataWatch(reader.data)).values(idsOf('sentiment'), false)))
    expect(now.filter((s) => s.endsWith('=çok olumsuz'))).toHaveLength(1)
  })

  it('reads a window alone when the column is not kept', () => {
    const columns = new CallColumns(reader.columns, new DataWatch(reader.data))
    const within = itemsOf(columns.valuesWithin(idsOf('score'), true, { lo: 100, hi: 199 }))
    const whole = itemsOf(columns.values(idsOf('score'), true))
    expect(within.length).toBeGreaterThan(0)
    expect(within).toEqual(whole.filter((s) => Number(s.split('=')[0]) >= 100 && Number(s.split('=')[0]) <= 199))
  })
})

describe('search warm-up', () => {
  const queries: SearchQueryInput[] = [
    { text: 'duygu:olumsuz' },
    { text: 'skor>=50' },
    { text: 'fatura skor:10..60' },
    { text: 'sentiment:olumlu OR iade', sort: 'date_asc' }
  ]

  it('answers first pages and counts as SQL does, cold, warming and warm', async () => {
    // Ids in date order, as a sync writes them: first pages take the window path (date-page.ts).
    fx.close()
    fx = buildFixture(600, 5, { timeOrdered: true })
    const sqlOnly = createSearch(fx.cache, { bitmaps: false })
    const expected = queries.map((q) => ({ page: sqlOnly.page(Q(q), 0, 20).rows.map((r) => r.callId), count: sqlOnly.count(Q(q)) }))
    const check = (s: ReturnType<typeof createSearch>): void => {
      queries.forEach((q, i) => {
        expect(s.page(Q(q), 0, 20).rows.map((r) => r.callId)).toEqual(expected[i]!.page)
        expect(s.count(Q(q))).toBe(expected[i]!.count)
      })
    }
    expect(expected.every((e) => e.count > 0)).toBe(true)
    // Cold: first pages read their window's items.
    const cold = createSearch(fx.cache)
    queries.forEach((q, i) => expect(cold.page(Q(q), 0, 20).rows.map((r) => r.callId)).toEqual(expected[i]!.page))
    // Warming: requests between its steps.
    const search = createSearch(fx.cache)
    const warm = search.warmUp()
    for (let k = 0; k < 5; k++) {
      check(search)
      await new Promise((r) => setImmediate(r))
    }
    expect(await warm.done).toBe(true)
    check(search)
  })

  it('reads a piece only once the search has been asked nothing for the idle time', async () => {
    let last = performance.now()
    const t0 = performance.now()
    const ran = new Promise<number>((resolve) => whenIdle(() => last, 100)(() => resolve(performance.now())))
    // A request 60 ms in: the piece waits 100 ms from it.
    await new Promise((r) => setTimeout(r, 60))
    last = performance.now()
    expect((await ran) - last).toBeGreaterThanOrEqual(95)
    expect((await ran) - t0).toBeGreaterThanOrEqual(150)
  })

  it('stops when asked', async () => {
    const search = createSearch(fx.cache)
    const warm = search.warmUp()
    warm.stop()
    expect(await warm.done).toBe(false)
  })
})
