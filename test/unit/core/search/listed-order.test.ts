import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSearch, type LocalSearch } from '../../../../src/core/search'
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
