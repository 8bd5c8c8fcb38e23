import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openCache, type CallCache } from '../../../../src/core/cache'
import { createSearch, type LocalSearch } from '../../../../src/core/search'
import { idsInRanges, mergeRanges } from '../../../../src/core/search/paging/selection'
import { SearchQuery, type OffsetRange } from '../../../../src/shared/domain'
import { makeRecords, tempDir } from '../export/fixtures'

// A hand selection is sent as offset ranges over a query; core walks them. The rows it
// exports must be exactly the rows the user saw at those offsets, in that order.

const CALLS = 3_500

let tmp: ReturnType<typeof tempDir>
let cache: CallCache
let search: LocalSearch
beforeAll(() => {
  tmp = tempDir()
  cache = openCache(join(tmp.dir, 'cache.db'))
  cache.ensureScope('all', { callTypes: [], direction: null, results: 'all', hasNewRequest: null, includeAnalysis: true })
  const records = makeRecords(CALLS, 5)
  for (let i = 0; i < records.length; i += 500)
    cache.writePage({ scopeKey: 'all', records: records.slice(i, i + 500), includeAnalysis: true, checkpoint: null })
  search = createSearch(cache)
})
afterAll(() => {
  cache.close()
  tmp.remove()
})

/** The ids at these offsets, read one page of the result list at a time, as the renderer shows them. */
function shown(query: SearchQuery, offsets: number[]): string[] {
  return offsets.flatMap((o) => search.page(query, o, 1).rows.map((r) => r.callId))
}

const span = (a: number, b: number): number[] => Array.from({ length: b - a + 1 }, (_, i) => a + i)

describe('selections resolved in core', () => {
  it('merges ranges: sorted, each offset once', () => {
    expect(
      mergeRanges([
        [10, 12],
        [0, 3],
        [4, 4],
        [11, 20],
        [30, 30]
      ])
    ).toEqual([
      [0, 4],
      [10, 20],
      [30, 30]
    ])
    expect(mergeRanges([])).toEqual([])
  })

  it('exports exactly the rows at the selected offsets, in result order, across walk steps', () => {
    for (const query of [
      SearchQuery.parse({ results: 'all' }),
      SearchQuery.parse({ results: 'all', sort: 'date_asc' }),
      SearchQuery.parse({ results: 'all', text: 'fatura' })
    ]) {
      const total = search.count(query)
      expect(total).toBeGreaterThan(20)
      const last = total - 1
      const ranges: OffsetRange[] = [
        [last - 3, last + 50],
        [0, 2],
        [5, Math.min(1_700, last - 10)],
        [1, 6]
      ]
      const offsets = [...span(0, Math.min(1_700, last - 10)), ...span(last - 3, last)]
      const want = shown(query, offsets)
      const source = search.iterate({ kind: 'ranges', query, ranges })
      expect(source.total).toBe(want.length)
      expect([...source.records].map((r) => r.callId)).toEqual(want)
    }
  })

  it('walks only as far as the results go', () => {
    const pages: Array<[number, number]> = []
    const ids = idsInRanges(
      (offset, limit) => {
        pages.push([offset, limit])
        return search.page(SearchQuery.parse({ results: 'all' }), offset, limit)
      },
      [
        [CALLS - 2, CALLS + 5_000],
        [CALLS + 10_000, CALLS + 20_000]
      ]
    )
    expect(ids).toHaveLength(2)
    expect(pages).toEqual([[CALLS - 2, 1_000]])
  })

  it('refuses a range that ends before it starts', () => {
    expect(() => search.iterate({ kind: 'ranges', query: SearchQuery.parse({ results: 'all' }), ranges: [[5, 2]] })).toThrow(
      expect.objectContaining({ code: 'InvalidInput' })
    )
  })
})
