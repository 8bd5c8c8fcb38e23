import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { wordsNear } from '../../../../bench/query'
import { ingest } from '../../../../bench/search'
import { COMMON_TERM, START_MS } from '../../../../bench/search-data'
import { openCache, type CallCache } from '../../../../src/core/cache'
import { createSearch, type PageTrace } from '../../../../src/core/search'
import { queryShapes } from '../../../support/query-shapes'

// How each shape of the query bench is served on the bench's own data (a small slice of it):
// the plan explain() names, and that the page it served is the page the search gives.
const N = 4000
const DAY = 24 * 3600 * 1000

let dir: string
let cache: CallCache
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'callsight-plan-shapes-'))
  cache = openCache(join(dir, 'cache.db'))
  ingest(cache, N, 20, () => {})
})
afterAll(() => {
  cache.close()
  rmSync(dir, { recursive: true, force: true })
})

const shapes = (): ReturnType<typeof queryShapes> => {
  const [w1, w2] = wordsNear(0.05, 2, N)
  const [half] = wordsNear(0.5, 1, N)
  return queryShapes({ w1: w1!, w2: w2!, half: half!, common: COMMON_TERM, end: START_MS + 365 * DAY })
}

describe('the plan of each query shape', () => {
  it('names the path that served the first page, what it was chosen from, and the time it took', () => {
    const plans: string[] = []
    for (const [, q] of shapes()) {
      const e = createSearch(cache).explain(q, 100)
      const t: PageTrace = e.served
      plans.push(t.tried.length > 0 ? `${t.tried.join(' > ')} > ${t.plan}` : t.plan)
      // A first page served before its estimate was read never asked the SQL rule.
      expect(t.inputs.sql).toBe(t.plan === 'window-first' || t.plan === 'id-range' ? undefined : e.plan)
      expect(t.ms).toBeGreaterThanOrEqual(0)
      expect(
        createSearch(cache)
          .page(q, 0, 100)
          .rows.map((r) => r.callId)
      ).toEqual(
        createSearch(cache, { bitmaps: false })
          .page(q, 0, 100)
          .rows.map((r) => r.callId)
      )
    }
    expect(plans).toEqual(OPENED_PLANS)
  })

  it('serves windows from the date order once the warm-up read it, the same pages', async () => {
    const search = createSearch(cache)
    await search.warmUp().done
    for (const [label, q] of shapes()) {
      const e = search.explain(q, 100)
      expect(e.served.inputs.orderKept, label).toBe(true)
      expect(
        search.page(q, 0, 100).rows.map((r) => r.callId),
        label
      ).toEqual(
        createSearch(cache, { bitmaps: false })
          .page(q, 0, 100)
          .rows.map((r) => r.callId)
      )
    }
    expect(shapes().map(([, q]) => search.explain(q, 100).served.plan)).toEqual(WARM_PLANS)
  })
})

// In the order of queryShapes, on a search just opened (the date order not in memory yet):
// text in date order is first tried from a window of the newest calls before its matches are
// counted (window-first); where that window holds too few (5 % words, a phrase and an OR,
// terms with analysis filters in this small slice), from the last ids' range, still before
// they are counted (id-range: ids follow dates here); the phrase, too rare for the range, is
// counted and comes from FTS5 by id. Text alone without a term the index
// holds (NOT alone, the mixed shape) is not estimated for its page: the window-slice straight
// away. Relevance over a week is ranked in memory. "ka" over the last 7 days has a range end,
// which id-range does not take: the estimate chooses.
const OPENED_PLANS = [
  'window-first', // "i"
  'window-first', // "ka"
  'relevance-memory', // common word, last 7 days, by relevance
  'window-first > window-slice', // "ka", last 7 days
  'id-range', // two 5 % words: ANDed terms try the last ids first
  'window-first > id-range > fts', // phrase
  'window-first > id-range', // OR
  'window-first', // NOT
  'window-slice', // NOT alone
  'window-slice', // mixed
  'id-range', // csat = 1 and a 50 % word
  'id-range', // range and equals
  'id-range' // filter bar: a word and csat >= 4
]

const WARM_PLANS = [
  'window', // "i"
  'window', // "ka"
  'relevance-memory', // common word, last 7 days, by relevance
  'window', // "ka", last 7 days
  'listed-order', // two 5 % words
  'listed-order', // phrase
  'listed-order', // OR
  'window', // NOT
  'window', // NOT alone
  'window', // mixed
  'window', // csat = 1 and a 50 % word
  'window', // range and equals
  'window' // filter bar: a word and csat >= 4
]
