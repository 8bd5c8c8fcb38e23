import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { makeCall, prng } from '../../../../bench/search-data'
import { wordsNear } from '../../../../bench/query'
import { LIST_DEEP_PAGE, NO_WORD_SETS } from '../../../../bench/baselines/search-strategies'
import { openCache, type CallCache } from '../../../../src/core/cache'
import { createSearch, type LocalSearch } from '../../../../src/core/search'
import { STRAY_MAX } from '../../../../src/core/search/paging/count-skip-page'
import { SearchQuery, type CallRecord } from '../../../../src/shared/domain'

// A deep page right after its count (count-skip): the same rows, in the same order, as the
// match list's walk (main's bitmap path) and as SQL alone, whatever the ids' order.
const N = 6000
const ALL = { callTypes: [], direction: null, results: 'answered' as const, hasNewRequest: null, includeAnalysis: true }

/**
 * N generated calls, every fifth sharing its second with the one before (ties on date),
 * every ninth without analysis, written in date order except `late` old calls written last
 * from the oldest `spread` of the dates (ids far from their place in the date order: the
 * count's strays).
 */
function build(file: string, late: number, spread = 0.5): CallCache {
  const cache = openCache(file)
  cache.ensureScope('all', ALL)
  const rnd = prng(5)
  const calls: CallRecord[] = []
  for (let i = 0; i < N; i++) {
    const r = makeCall(i, N, rnd).record
    const prev = calls[i - 1]
    calls.push({
      ...r,
      callAt: i % 5 === 0 && prev ? prev.callAt : r.callAt,
      callDate: i % 5 === 0 && prev ? prev.callDate : r.callDate,
      analysis: i % 9 === 0 ? [] : r.analysis
    })
  }
  // Old calls written after all the others.
  const lateIdx = new Set(Array.from({ length: late }, (_, k) => Math.floor(((k + 0.5) * N * spread) / late)))
  const order = [...calls.filter((_, i) => !lateIdx.has(i)), ...calls.filter((_, i) => lateIdx.has(i))]
  for (let i = 0; i < order.length; i += 100) {
    cache.writePages([{ scopeKey: 'all', records: order.slice(i, i + 100), includeAnalysis: true, checkpoint: { next: i + 100 } }])
  }
  cache.optimizeIndex()
  return cache
}

const ids = (s: LocalSearch, q: SearchQuery, offset: number): string[] => s.page(q, offset, 100).rows.map((r) => r.callId)

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'callsight-count-skip-'))
})
afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

describe('count-skip: a deep page after its count', () => {
  for (const [label, late, spread] of [
    ['ids in date order but a few old calls written last', 20, 0.5],
    ['more strays than it asks about one by one', STRAY_MAX * 8, 1]
  ] as const) {
    it(`${label}: the same pages as the match list and as SQL`, async () => {
      const cache = build(join(dir, `${late}.db`), late, spread)
      const plans = new Set<string>()
      try {
        // Without kept word sets: once a page's match list keeps a word's set, its count reads
        // the set and deep pages come from the list (word-sets.ts; the last test here).
        const ours = createSearch(cache, {}, NO_WORD_SETS)
        const main = createSearch(cache, {}, LIST_DEEP_PAGE)
        const sql = createSearch(cache, { bitmaps: false })
        await ours.warmUp().done
        await main.warmUp().done
        // A word in about half the calls, one in a few percent (with the cap of its estimate), and the common one.
        const [half] = wordsNear(0.5, 1, N)
        const [few] = wordsNear(0.2, 1, N)
        for (const text of [half!, 'müşteri', `${few!} OR ${half!}`]) {
          for (const sort of ['date_desc', 'date_asc'] as const) {
            const q = SearchQuery.parse({ text, sort })
            const count = sql.count(q)
            for (const offset of [1000, 1234, Math.floor(count / 2), count - 150, count - 100, count - 1, count, count + 50]) {
              if (offset < 1000) continue
              const where = `${text} ${sort} at ${offset} of ${count}`
              for (const s of [ours, main]) {
                s.resetCaches()
                expect(s.count(q), where).toBe(count)
              }
              const expected = ids(sql, q, offset)
              expect(ids(main, q, offset), where).toEqual(expected)
              expect(ids(ours, q, offset), where).toEqual(expected)
              ours.resetCaches()
              ours.count(q)
              const served = ours.explain(q, 100, offset).served
              if (offset < count && !text.includes('OR')) plans.add(served.plan)
              if (offset >= count) expect(served.plan, where).toBe('past-end')
            }
          }
        }
        // Few strays: every deep page skips by counting. Many: where the counted side holds
        // more than it asks about one by one, the page comes from the match list instead.
        expect([...plans].sort()).toEqual(late <= STRAY_MAX ? ['count-skip'] : ['bitmap', 'count-skip'])
      } finally {
        cache.close()
      }
    })
  }

  it('is not chosen before the count, nor once the match list is read', async () => {
    const cache = build(join(dir, 'order.db'), 0)
    try {
      const q = SearchQuery.parse({ text: 'müşteri' })
      const s = createSearch(cache, {}, NO_WORD_SETS)
      await s.warmUp().done
      expect(s.explain(q, 100, 2000).served.plan).toBe('bitmap')
      s.resetCaches()
      s.count(q)
      const e = s.explain(q, 100, 2000).served
      expect(e.plan).toBe('count-skip')
      s.facets(q, null, 'UTC')
      expect(s.explain(q, 100, 3000).served.plan).toBe('bitmap')
      // With word sets (the product): the first count is FTS5's and skips; once facets kept
      // the word's set, a count reads the set, and the match list serves deep pages.
      const w = createSearch(cache)
      await w.warmUp().done
      w.count(q)
      expect(w.explain(q, 100, 2000).served.plan).toBe('count-skip')
      w.facets(q, null, 'UTC')
      w.resetCaches()
      w.count(q)
      const kept = w.explain(q, 100, 2000).served
      expect(kept.plan).toBe('bitmap')
      expect(kept.inputs.keptWords).toBe(1)
    } finally {
      cache.close()
    }
  })
})
