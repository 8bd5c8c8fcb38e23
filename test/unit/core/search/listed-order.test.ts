import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSearch, type LocalSearch } from '../../../../src/core/search'
import { listedSlicePage } from '../../../../src/core/search/paging/listed-order-page'
import { SearchQuery, type SearchQueryInput } from '../../../../src/shared/domain'
import { buildFixture, T0, type Fixture } from './fixture'

// Listed matches (a pair of rarer words, under the walk threshold) put in date order by their
// places in the date order in memory: the same pages as SQL alone, with the query's other
// conditions (call types, analysis, dates) asked of them in date order, and after a write.
const N = 4000
let fx: Fixture
beforeAll(() => {
  fx = buildFixture(N, 11)
})
afterAll(() => fx.close())

const QUERIES: SearchQueryInput[] = [
  { text: 'refund modem' },
  { text: 'ödeme görüşme' },
  { text: 'İPTAL ışık' },
  { text: 'refund mod' },
  { text: 'refund modem', callTypes: ['Kargo'] },
  { text: 'ödeme görüşme', results: 'all' },
  { text: 'refund modem duygu:olumsuz' },
  { text: 'ödeme görüşme', from: T0 + 10 * 86_400_000, to: T0 + 30 * 86_400_000 }
]

// Listed, and common enough among the newest calls for a page to be read from the date index.
const SLICED: SearchQueryInput[] = [
  { text: 'müşteri' },
  { text: 'refund', results: 'all' },
  { text: 'iade kargo' },
  { text: 'modem', callTypes: ['Kargo'] },
  { text: 'arıza duygu:olumsuz' },
  { text: 'müşteri', from: T0, to: T0 + 7 * 86_400_000 },
  { text: 'görüşme' }
]

const ids = (s: LocalSearch, q: SearchQuery, offset: number): string[] => s.page(q, offset, 100).rows.map((r) => r.callId)

async function compare(ours: LocalSearch, sql: LocalSearch): Promise<Set<string>> {
  const plans = new Set<string>()
  for (const input of QUERIES) {
    for (const sort of ['date_desc', 'date_asc'] as const) {
      const q = SearchQuery.parse({ ...input, sort })
      const count = sql.count(q)
      for (const offset of [0, 100, Math.max(0, count - 30), 900]) {
        const where = `${JSON.stringify(input)} ${sort} at ${offset} of ${count}`
        ours.resetCaches()
        expect(ids(ours, q, offset), where).toEqual(ids(sql, q, offset))
        ours.resetCaches()
        plans.add(ours.explain(q, 100, offset).served.plan)
      }
    }
  }
  return plans
}

describe('listed-order: listed matches put in date order from memory', () => {
  it('before the date order is in memory (no warm-up, as the bench measures), takes them from the date index: the pages SQL gives', () => {
    // Without id-range, which serves first pages before the matches are listed.
    const ours = createSearch(fx.cache, {}, { idRange: false })
    const sql = createSearch(fx.cache, { bitmaps: false })
    const plans = new Map<string, string>()
    for (const input of SLICED) {
      for (const sort of ['date_desc', 'date_asc'] as const) {
        const q = SearchQuery.parse({ ...input, sort })
        // First pages only: a deep page reads the date order, which this is about not having.
        for (const offset of [0, 100, 300]) {
          const where = `${input.text}${input.from ? ' early' : ''} ${sort} at ${offset}`
          ours.resetCaches()
          expect(ids(ours, q, offset), where).toEqual(ids(sql, q, offset))
          ours.resetCaches()
          const served = ours.explain(q, 100, offset).served
          expect(served.inputs.orderKept, where).toBe(false)
          plans.set(where, [...served.tried.filter((k) => k !== 'window-first'), served.plan].join(' > '))
        }
      }
    }
    expect(plans.get('müşteri date_desc at 0')).toBe('listed-slice')
    expect(plans.get('iade kargo date_asc at 100')).toBe('listed-slice')
    // Most matches fail the other conditions (call types): the slice gives up, SQL serves it.
    expect(plans.get('görüşme date_desc at 0')).toBe('listed-slice > fts')
    // Too few listed for a page within the slice's reads: not tried.
    expect(plans.get('görüşme date_desc at 300')).toBe('fts')
  })

  it('gives the pages SQL gives, before and after a write; off, the SQL path serves them', async () => {
    const ours = createSearch(fx.cache)
    const before = createSearch(fx.cache, {}, { listedOrder: false })
    const sql = createSearch(fx.cache, { bitmaps: false })
    await ours.warmUp().done
    await before.warmUp().done
    expect(await compare(ours, sql)).toContain('listed-order')
    expect(await compare(before, sql)).not.toContain('listed-order')
    // A write: new calls with both words, newest and oldest, and an old call changed.
    const last = fx.records[fx.records.length - 1]!
    fx.cache.writePage({
      scopeKey: 'everything',
      records: [
        {
          ...last,
          callId: 'new-newest',
          callAt: T0 + 41 * 86_400_000,
          callDate: new Date(T0 + 41 * 86_400_000).toISOString(),
          summary: 'refund modem ödeme görüşme'
        },
        {
          ...last,
          callId: 'new-oldest',
          callAt: T0 - 86_400_000,
          callDate: new Date(T0 - 86_400_000).toISOString(),
          summary: 'refund modem ödeme görüşme'
        }
      ],
      includeAnalysis: true,
      checkpoint: { i: 'late' }
    })
    expect(await compare(ours, sql)).toContain('listed-order')
    const newest = SearchQuery.parse({ text: 'refund modem', results: 'all' })
    expect(ids(ours, newest, 0)[0]).toBe('new-newest')
  })
})

describe('listedSlicePage', () => {
  // Calls 0..99 in date order 0 oldest; the listed ones every third. `newest(w)`: the w newest, ascending.
  const order = Array.from({ length: 100 }, (_, i) => i)
  const listed = order.filter((id) => id % 3 === 0)
  const reads: number[] = []
  const newest = (w: number): Int32Array => {
    reads.push(w)
    return Int32Array.from(order.slice(Math.max(0, order.length - w)))
  }
  const rows = { byIds: (ids: readonly number[]) => ids.map((id) => ({ callId: String(id) })) }
  const page = (offset: number, limit: number, maxRead: number) =>
    listedSlicePage({
      listed,
      newest,
      total: order.length,
      desc: true,
      maxRead,
      q: { where: [] } as never,
      offset,
      limit,
      reader: { rows } as never
    })

  it('walks the newest calls, slices doubling, and gives up past maxRead', () => {
    reads.length = 0
    expect(page(0, 5, 100)!.rows.map((r) => r.callId)).toEqual(['99', '96', '93', '90', '87'])
    reads.length = 0
    // Ten listed need 30 entries; the first slice holds 1.25 × 15 × 100 / 34 = 56 of them.
    expect(page(5, 10, 100)!.rows.map((r) => r.callId)).toEqual(['84', '81', '78', '75', '72', '69', '66', '63', '60', '57'])
    expect(reads).toEqual([56])
    reads.length = 0
    // 40 entries allowed: 14 listed among them, 20 wanted.
    expect(page(0, 20, 40)).toBeNull()
    expect(reads).toEqual([40])
    reads.length = 0
    // Past the oldest call: every call read, the page is what there is.
    expect(page(30, 10, 1000)!.rows.map((r) => r.callId)).toEqual(['9', '6', '3', '0'])
  })
})
