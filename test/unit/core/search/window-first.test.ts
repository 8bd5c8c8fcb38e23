import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { wordsNear } from '../../../../bench/query'
import { ingest } from '../../../../bench/search'
import { createSearchReader, openCache, type CallCache, type SearchReader } from '../../../../src/core/cache'
import { createSearch, searchTuning } from '../../../../src/core/search'
import { countOf } from '../../../../src/core/search/count'
import { datePage } from '../../../../src/core/search/paging/date-page'
import { SearchContext } from '../../../../src/core/search/search-context'
import { SearchQuery, type CallRecord } from '../../../../src/shared/domain'

// The first page of text in date order on a search just opened is tried from a window of the
// newest calls before the query's matches are counted (window-first): counting them (the
// estimate, an FTS5 read of up to the walk threshold's matches) was the largest cost of the
// first query after opening. The page must be the one every other plan gives; a word too
// rare for the window is counted and served as before; whoever needs the estimate later (a
// count) still gets it.
const N = 5000

let dir: string
let cache: CallCache
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'callsight-window-first-'))
  cache = openCache(join(dir, 'cache.db'))
  ingest(cache, N, 20, () => {})
})
afterAll(() => {
  cache.close()
  rmSync(dir, { recursive: true, force: true })
})

/** The real reader, with each estimate it is asked for (the bounded counts) written down. */
function watchedReader(estimates: string[]): SearchReader {
  const reader = createSearchReader(cache)
  const m = reader.matches
  const matches: SearchReader['matches'] = {
    ftsCount: (match) => m.ftsCount(match),
    boundedIds: (ids, cap) => (estimates.push('ids'), m.boundedIds(ids, cap)),
    boundedMatches: (match, cap) => (estimates.push(match), m.boundedMatches(match, cap)),
    boundedSplit: (split, cap, kept) => (estimates.push(split.long), m.boundedSplit(split, cap, kept)),
    idList: (ids) => m.idList(ids),
    count: (sql) => m.count(sql),
    ftsIds: (match, bounds) => m.ftsIds(match, bounds),
    idsInTime: (from, to) => m.idsInTime(from, to)
  }
  return { ...reader, matches }
}

function openedContext(estimates: string[], pageBeforeEstimate = true, idRange = true): SearchContext {
  return new SearchContext(watchedReader(estimates), searchTuning({}, { pageBeforeEstimate, idRange }))
}

const plainIds = (q: SearchQuery, offset: number, limit = 100): string[] =>
  createSearch(cache, { bitmaps: false })
    .page(q, offset, limit)
    .rows.map((r) => r.callId)

describe('a first page before its estimate (window-first)', () => {
  it('serves a common word from the newest calls without counting its matches, the pages plain evaluation gives', () => {
    const [half] = wordsNear(0.5, 1, N)
    // The word typed whole, and as the last word typed (a prefix), both orders.
    for (const input of [{ text: half! }, { text: half!.slice(0, 3) }, { text: half!, sort: 'date_asc' as const }]) {
      const estimates: string[] = []
      const ctx = openedContext(estimates)
      const q = SearchQuery.parse(input)
      for (const offset of [0, 100, 400]) {
        const { page, trace } = datePage(ctx, ctx.prepare(q), offset, 100)
        expect(trace.plan, `${input.text} @${offset}`).toBe('window-first')
        expect(
          page.rows.map((r) => r.callId),
          `${input.text} @${offset}`
        ).toEqual(plainIds(q, offset))
      }
      expect(estimates, input.text).toEqual([])
      // A count asks for the estimate: it is read then, once, and the count is exact.
      expect(countOf(ctx, ctx.prepare(q))).toBe(createSearch(cache, { bitmaps: false }).count(q))
      expect(estimates.length, input.text).toBe(1)
    }
  })

  it('counts a rare word as before when the window holds too few (id-range off), the same page', () => {
    const [rare] = wordsNear(0.01, 1, N)
    const estimates: string[] = []
    const ctx = openedContext(estimates, true, false)
    const q = SearchQuery.parse({ text: rare! })
    const { page, trace } = datePage(ctx, ctx.prepare(q), 0, 100)
    expect(trace.tried).toEqual(['window-first'])
    expect(trace.plan).toBe('fts')
    expect(estimates).toHaveLength(1)
    expect(page.rows.map((r) => r.callId)).toEqual(plainIds(q, 0))
  })

  it('serves a rare word from the last ids without counting it (id-range), the same page', () => {
    const [rare] = wordsNear(0.01, 1, N)
    const estimates: string[] = []
    const ctx = openedContext(estimates)
    const q = SearchQuery.parse({ text: rare! })
    const { page, trace } = datePage(ctx, ctx.prepare(q), 0, 100)
    expect(trace.tried).toEqual(['window-first'])
    expect(trace.plan).toBe('id-range')
    expect(estimates).toHaveLength(0)
    expect(page.rows.map((r) => r.callId)).toEqual(plainIds(q, 0))
  })

  it('is not tried once the estimate is known, nor with the strategy off', () => {
    const [half] = wordsNear(0.5, 1, N)
    const q = SearchQuery.parse({ text: half! })
    const estimates: string[] = []
    const ctx = openedContext(estimates)
    countOf(ctx, ctx.prepare(q))
    expect(datePage(ctx, ctx.prepare(q), 0, 100).trace.plan).toBe('window-slice')
    const before: string[] = []
    const old = openedContext(before, false)
    const { page, trace } = datePage(old, old.prepare(q), 0, 100)
    expect(trace.plan).toBe('window-slice')
    expect(before).toHaveLength(1)
    expect(page.rows.map((r) => r.callId)).toEqual(plainIds(q, 0))
  })

  it('serves the calls a write added on the same search', () => {
    const [half] = wordsNear(0.5, 1, N)
    const estimates: string[] = []
    const ctx = openedContext(estimates)
    const q = SearchQuery.parse({ text: half! })
    datePage(ctx, ctx.prepare(q), 0, 100)
    const last = Date.now() + 86_400_000
    const added: CallRecord[] = Array.from({ length: 30 }, (_, i) => {
      const at = last + i * 60_000
      return {
        callId: `new-${i}`,
        callAt: at,
        callDate: new Date(at).toISOString(),
        title: 'yeni',
        summary: `${half} yeni ${i}`,
        analysis: [],
        extra: {}
      }
    })
    cache.writePage({ scopeKey: 'all', records: added, includeAnalysis: true, checkpoint: null })
    const { page, trace } = datePage(ctx, ctx.prepare(q), 0, 100)
    expect(trace.plan).toBe('window-first')
    expect(page.rows.slice(0, 30).map((r) => r.callId)).toEqual(added.map((r) => r.callId).reverse())
    expect(page.rows.map((r) => r.callId)).toEqual(plainIds(q, 0))
    expect(estimates).toEqual([])
  })
})
