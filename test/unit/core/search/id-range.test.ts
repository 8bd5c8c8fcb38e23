import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSearchReader, QUARTER_MS, type CallSpan } from '../../../../src/core/cache'
import { createSearch, searchTuning } from '../../../../src/core/search'
import { DataWatch } from '../../../../src/core/search/data-watch'
import { QuarterSpans } from '../../../../src/core/search/memory/quarter-spans'
import { idRangePage } from '../../../../src/core/search/paging/id-range-page'
import { allAnded } from '../../../../src/core/search/paging/date-page'
import { analyzeQuery } from '../../../../src/shared/query'
import { SearchContext } from '../../../../src/core/search/search-context'
import { SearchQuery, type CallRecord, type SearchQueryInput } from '../../../../src/shared/domain'
import { buildFixture, T0, type Fixture } from './fixture'

// A first page from the last ids' range (id-range), before the query's matches are counted:
// exact when ids follow dates (as a sync in time order writes them), declined when a call
// outside the range may come first. Compared with SQL alone on real files, in both layouts.
const N = 3000
const DAY = 86_400_000
let ordered: Fixture
let shuffled: Fixture
beforeAll(() => {
  ordered = buildFixture(N, 5, { timeOrdered: true })
  // Ties written against call id order: ids ascending, call ids descending, one second.
  const last = ordered.records[ordered.records.length - 1]!
  const at = T0 + 41 * DAY
  const tied: CallRecord[] = Array.from({ length: 12 }, (_, i) => ({
    ...last,
    callId: `tie-${String(20 - i).padStart(2, '0')}`,
    callAt: at,
    callDate: new Date(at).toISOString(),
    summary: i % 2 === 0 ? 'refund modem ödeme' : 'refund görüşme'
  }))
  ordered.cache.writePage({ scopeKey: 'everything', records: tied, includeAnalysis: true, checkpoint: { i: 'tied' } })
  shuffled = buildFixture(N, 5)
})
afterAll(() => {
  ordered.close()
  shuffled.close()
})

const QUERIES: SearchQueryInput[] = [
  { text: 'refund modem' },
  { text: 'ödeme görüşme' },
  { text: 'refund modem', callTypes: ['Kargo'] },
  { text: 'İPTAL ışık', results: 'all' },
  { text: 'refund duygu:olumsuz' },
  { text: 'ödeme görüşme', from: T0 + 10 * DAY }
]
const PAGES: Array<[number, number]> = [
  [0, 5],
  [0, 100],
  [40, 20],
  [300, 100]
]

function pages(fx: Fixture, input: SearchQueryInput, sort: 'date_desc' | 'date_asc', offset: number, limit: number) {
  const q = SearchQuery.parse({ ...input, sort })
  const sql = createSearch(fx.cache, { bitmaps: false })
    .page(q, offset, limit)
    .rows.map((r) => r.callId)
  const reader = createSearchReader(fx.cache)
  const ctx = new SearchContext(reader, searchTuning({}, {}, fx.cache))
  const p = ctx.prepare(q)
  const ranges: CallSpan[] = []
  const args = {
    q: p.q,
    offset,
    limit,
    desc: sort === 'date_desc',
    reader,
    matchesIn: (span: CallSpan) => (ranges.push(span), reader.matches.ftsIds(p.q.match!, [span.lo, span.hi]))
  }
  const page = idRangePage(args)
  // The same asked of the quarter hours in memory first (small chunks: several per range).
  const spans = new QuarterSpans(() => ctx.columns.quarters(), new DataWatch(reader.data), 16)
  const fromSpans = idRangePage({ ...args, datedOutside: (at, ids, desc) => spans.datedOutside(at, ids, desc) })
  const ids = (pg: typeof page): string[] | null => (pg === null ? null : pg.rows.map((r) => r.callId))
  expect(ids(fromSpans), `quarter hours: ${JSON.stringify(q)} ${offset}+${limit}`).toEqual(ids(page))
  return { sql, ours: ids(page), ranges: ranges.length }
}

describe('id-range: a first page from the last ids', () => {
  it('gives the pages SQL gives when ids follow dates, across ranges and ties', () => {
    let served = 0
    let straddled = 0
    for (const input of QUERIES) {
      for (const sort of ['date_desc', 'date_asc'] as const) {
        for (const [offset, limit] of PAGES) {
          const where = `${JSON.stringify(input)} ${sort} ${offset}+${limit}`
          const { sql, ours, ranges } = pages(ordered, input, sort, offset, limit)
          if (ours === null) continue
          expect(ours, where).toEqual(sql)
          served++
          if (ranges > 1 && sql.length > 0) straddled++
        }
      }
    }
    // Most are served (a rare text under other conditions gives up), many over several ranges.
    expect(served).toBeGreaterThan(30)
    expect(straddled).toBeGreaterThan(10)
    // The tied calls: newest, in call id order (descending), though written the other way.
    expect(pages(ordered, { text: 'refund', results: 'all' }, 'date_desc', 0, 5).ours).toEqual([
      'tie-20',
      'tie-19',
      'tie-18',
      'tie-17',
      'tie-16'
    ])
  })

  it('declines when dates do not follow ids, and never gives another page', () => {
    const declined: string[] = []
    for (const input of QUERIES) {
      for (const sort of ['date_desc', 'date_asc'] as const) {
        for (const [offset, limit] of PAGES) {
          const where = `${JSON.stringify(input)} ${sort} ${offset}+${limit}`
          const { sql, ours } = pages(shuffled, input, sort, offset, limit)
          if (ours === null) declined.push(where)
          else expect(ours, where).toEqual(sql)
        }
      }
    }
    // Pages that fill within a range short of every id: a call outside it comes first.
    expect(declined).toContain(`${JSON.stringify(QUERIES[3])} date_desc 0+5`)
    expect(declined.length).toBeGreaterThanOrEqual(5)
  })

  it('declines for a newer call written before older ones (its id is low)', () => {
    const fx = buildFixture(500, 7, { timeOrdered: true })
    try {
      const last = fx.records[fx.records.length - 1]!
      const dated = (callId: string, at: number, summary: string): CallRecord => ({
        ...last,
        callId,
        callAt: at,
        callDate: new Date(at).toISOString(),
        summary
      })
      const late = [
        dated('newest', T0 + 60 * DAY, 'iade kargo'),
        ...Array.from({ length: 150 }, (_, i) => dated(`late-${i}`, T0 + 50 * DAY + i * 1000, 'iade kargo'))
      ]
      fx.cache.writePage({ scopeKey: 'everything', records: late, includeAnalysis: true, checkpoint: { i: 'late' } })
      const text = { text: 'iade kargo', results: 'all' } as const
      const { sql, ours } = pages(fx, text, 'date_desc', 0, 5)
      expect(sql[0]).toBe('newest')
      expect(ours).toBeNull()
      expect(pages(fx, text, 'date_desc', 1, 5).ours).toBeNull()
      const search = createSearch(fx.cache)
      const q = SearchQuery.parse(text)
      expect(search.page(q, 0, 5).rows.map((r) => r.callId)).toEqual(sql)
    } finally {
      fx.close()
    }
  })

  it("declines for a newer call outside the range in the quarter hour of the page's end", () => {
    // The quarter hours cannot tell that call from an older one of the same quarter: the date
    // index is asked, and the page declined as SQL alone would have it.
    const fx = buildFixture(500, 7, { timeOrdered: true })
    try {
      const last = fx.records[fx.records.length - 1]!
      const quarter = Math.ceil((T0 + 50 * DAY) / QUARTER_MS) * QUARTER_MS
      const dated = (callId: string, at: number): CallRecord => ({
        ...last,
        callId,
        callAt: at,
        callDate: new Date(at).toISOString(),
        summary: 'iade kargo'
      })
      const late = [dated('sneaky', quarter + 746_000), ...Array.from({ length: 150 }, (_, i) => dated(`late-${i}`, quarter + i * 5000))]
      fx.cache.writePage({ scopeKey: 'everything', records: late, includeAnalysis: true, checkpoint: { i: 'late' } })
      const { sql, ours } = pages(fx, { text: 'iade kargo', results: 'all' }, 'date_desc', 0, 5)
      expect(sql[0]).toBe('sneaky')
      expect(ours).toBeNull()
    } finally {
      fx.close()
    }
  })

  it('puts a newer call found in a later range before the rows of the first', () => {
    const fx = buildFixture(500, 7, { timeOrdered: true })
    try {
      const last = fx.records[fx.records.length - 1]!
      const dated = (callId: string, at: number, summary: string): CallRecord => ({
        ...last,
        callId,
        callAt: at,
        callDate: new Date(at).toISOString(),
        summary
      })
      // The newest call first, then a hundred without the words, then three with them: the
      // first range (80 ids for 5 rows) holds only the three.
      const late = [
        dated('newest', T0 + 60 * DAY, 'iade kargo'),
        ...Array.from({ length: 100 }, (_, i) => dated(`filler-${i}`, T0 + 50 * DAY + i * 1000, 'teşekkür')),
        ...Array.from({ length: 3 }, (_, i) => dated(`late-${i}`, T0 + 50 * DAY + (200 + i) * 1000, 'iade kargo'))
      ]
      fx.cache.writePage({ scopeKey: 'everything', records: late, includeAnalysis: true, checkpoint: { i: 'late' } })
      const { sql, ours, ranges } = pages(fx, { text: 'iade kargo', results: 'all' }, 'date_desc', 0, 5)
      expect(sql.slice(0, 4)).toEqual(['newest', 'late-2', 'late-1', 'late-0'])
      expect(ranges).toBeGreaterThan(1)
      expect(ours).toEqual(sql)
    } finally {
      fx.close()
    }
  })

  it('serves first pages of rarer text through the search, and not with the strategy off', () => {
    const plans = (idRange: boolean): Set<string> => {
      const s = createSearch(ordered.cache, {}, { idRange })
      const sql = createSearch(ordered.cache, { bitmaps: false })
      const seen = new Set<string>()
      for (const input of QUERIES) {
        for (const sort of ['date_desc', 'date_asc'] as const) {
          const q = SearchQuery.parse({ ...input, sort })
          s.resetCaches()
          expect(s.page(q, 0, 100).rows, JSON.stringify(input)).toEqual(sql.page(q, 0, 100).rows)
          s.resetCaches()
          seen.add(s.explain(q, 100).served.plan)
        }
      }
      return seen
    }
    expect(plans(true)).toContain('id-range')
    expect(plans(false)).not.toContain('id-range')
  })

  it('tries the range before the window for terms ANDed, and the window when the range declines', () => {
    const served = (fx: Fixture, text: string, idRangeFirst = true): string => {
      const e = createSearch(fx.cache, {}, { idRangeFirst }).explain(SearchQuery.parse({ text, results: 'all' }), 20)
      return [...e.served.tried, e.served.plan].join(' > ')
    }
    const sameAsSql = (fx: Fixture, text: string): void => {
      const q = SearchQuery.parse({ text, results: 'all' })
      expect(createSearch(fx.cache).page(q, 0, 20).rows, text).toEqual(createSearch(fx.cache, { bitmaps: false }).page(q, 0, 20).rows)
    }
    const shuffledPaths: string[] = []
    for (const text of ['refund modem', 'ödeme duygu:olumsuz', 'refund (modem ödeme)', 'İPTAL ışık']) {
      expect(served(ordered, text), text).toBe('id-range')
      expect(served(ordered, text, false), text).not.toBe('id-range')
      sameAsSql(ordered, text)
      shuffledPaths.push(served(shuffled, text))
      sameAsSql(shuffled, text)
    }
    // Ids not following dates: the range declines, and the window is tried as before.
    expect(shuffledPaths.filter((p) => p.startsWith('id-range > window-first >')).length, JSON.stringify(shuffledPaths)).toBeGreaterThan(1)
    // A lone word, an OR, a NOT: the window first, as before.
    for (const text of ['refund', 'refund OR modem', 'refund -modem']) expect(served(ordered, text), text).not.toMatch(/^id-range/)
    expect(allAnded(analyzeQuery('a b -c', { keys: [] }).node)).toBe(false)
    expect(allAnded(analyzeQuery('a (b OR c)', { keys: [] }).node)).toBe(false)
    expect(allAnded(analyzeQuery('a (b c)', { keys: [] }).node)).toBe(true)
  })
})
