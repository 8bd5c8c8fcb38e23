import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSearchReader } from '../../../../src/core/cache'
import { createSearch, type LocalSearch } from '../../../../src/core/search'
import { DataWatch } from '../../../../src/core/search/data-watch'
import { MAX_EXPANSION, SearchCatalog, WIDE_EXPANSION } from '../../../../src/core/search/query/catalog'
import { SearchQuery, type CallRecord } from '../../../../src/shared/domain'
import { buildFixture, T0, type Fixture } from './fixture'

/** Words under one prefix: `n` of them, "zeytin" then letters (the tokenizer keeps letters together). */
const family = (stem: string, n: number): string[] =>
  Array.from({ length: n }, (_, i) => `${stem}${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`)

describe('prefixes expanded wide (catalog.ts WIDE_EXPANSION)', () => {
  let fx: Fixture
  let wide: LocalSearch
  let narrow: LocalSearch
  let sqlOnly: LocalSearch
  const some = family('zeytin', 20)
  const many = family('portak', WIDE_EXPANSION + 3)
  beforeAll(() => {
    fx = buildFixture(600, 5)
    const extra: CallRecord[] = [...some, ...some, ...many].map((w, i) => {
      const at = T0 + (i * 97 + 13) * 60_000
      return {
        callId: `wide-${i}`,
        callAt: at,
        callDate: new Date(at).toISOString(),
        title: `çağrı ${i}`,
        summary: `${w} kargo ${i % 3 === 0 ? 'iade' : 'fatura'} ${some[(i * 7) % some.length]}`,
        analysis: [],
        extra: {}
      }
    })
    fx.cache.writePage({ scopeKey: 'everything', records: extra, includeAnalysis: true, checkpoint: { wide: true } })
    fx.cache.optimizeIndex()
    wide = createSearch(fx.cache)
    narrow = createSearch(fx.cache, {}, { wideExpansion: false })
    sqlOnly = createSearch(fx.cache, { bitmaps: false }, { wideExpansion: false })
  })
  afterAll(() => fx.close())

  it('expands a prefix of more than MAX_EXPANSION terms into its terms, up to WIDE_EXPANSION', () => {
    const reader = createSearchReader(fx.cache)
    const watch = new DataWatch(reader.data)
    const wideCatalog = new SearchCatalog(reader.catalog, reader.data, watch)
    const narrowCatalog = new SearchCatalog(reader.catalog, reader.data, watch, 'list', MAX_EXPANSION)
    expect(wideCatalog.expand('zeyt')).toEqual([...some].sort())
    expect(narrowCatalog.expand('zeyt')).toBeNull()
    // More than the wide limit stays a prefix, as before.
    expect(wideCatalog.expand('porta')).toBeNull()
    // By relevance a prefix stays one phrase, as bm25 ranked it before.
    expect(wideCatalog.forText('zeyt', true).expansions.get('zeyt')).toBeNull()
    expect(wideCatalog.forText('zeyt').expansions.get('zeyt')).toEqual([...some].sort())
  })

  it('pages and counts as the prefix read by FTS5 itself', () => {
    for (const text of ['zeyt', 'zeyti kargo', 'iade zeytin', 'zeyt -fatura', 'porta', 'zeyt OR porta']) {
      for (const sort of ['date_desc', 'date_asc', 'relevance'] as const) {
        const query = SearchQuery.parse({
          text,
          sort,
          results: 'all',
          ...(sort === 'relevance' ? { from: T0, to: T0 + 20 * 86_400_000 } : {})
        })
        const want = sqlOnly.page(query, 0, 50).rows.map((r) => r.callId)
        expect(want.length, `${text} ${sort}`).toBeGreaterThan(0)
        expect(
          wide.page(query, 0, 50).rows.map((r) => r.callId),
          `${text} ${sort}`
        ).toEqual(want)
        expect(
          narrow.page(query, 0, 50).rows.map((r) => r.callId),
          `${text} ${sort}`
        ).toEqual(want)
      }
      const query = SearchQuery.parse({ text, results: 'all' })
      expect(wide.count(query), text).toBe(sqlOnly.count(query))
    }
  })
})
