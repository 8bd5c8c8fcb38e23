import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSearchReader, type SearchReader } from '../../../../src/core/cache'
import { createSearch, type LocalSearch } from '../../../../src/core/search'
import { SearchCatalog } from '../../../../src/core/search/query/catalog'
import { compileQuery } from '../../../../src/core/search/query/compile'
import { DataWatch } from '../../../../src/core/search/data-watch'
import { matchWords, RelevanceRanker } from '../../../../src/core/search/memory/relevance-rank'
import { SearchQuery } from '../../../../src/shared/domain'
import { buildFixture, T0, type Fixture } from './fixture'
import { LANGUAGE_CASES } from './query-cases'
import { connectionOf } from '../../../../src/core/cache/call-cache'

const DAY = 24 * 3600 * 1000

/** Ranges over the fixture's 40 days: a week, a day cut mid-quarter-hour, most of it, an empty stretch. */
const RANGES: Array<[number | null, number | null]> = [
  [T0 + 30 * DAY, T0 + 37 * DAY],
  [T0 + 3 * DAY + 7 * 60_000, T0 + 4 * DAY + 11 * 60_000],
  [T0 + DAY, null],
  [null, T0 + 20 * DAY],
  [T0 + 90 * DAY, T0 + 91 * DAY]
]

/** Words and expressions the ranker takes (plain words under AND, OR, NOT; prefixes that expand), and some it leaves to SQL. */
const TEXTS = [
  ...LANGUAGE_CASES.map(([, text]) => text),
  'müşteri',
  'kargo',
  'fatura iade kargo',
  'ödeme OR arıza OR modem',
  'müşteri -teşekkür',
  'late refund order'
]

describe.each([false, true])('relevance ranked in memory (ids in time order: %s)', (timeOrdered) => {
  let fx: Fixture
  let ours: LocalSearch
  let sqlOnly: LocalSearch
  beforeAll(() => {
    fx = buildFixture(1500, timeOrdered ? 7 : 8, { timeOrdered })
    ours = createSearch(fx.cache)
    sqlOnly = createSearch(fx.cache, { bitmaps: false })
  })
  afterAll(() => fx.close())

  /** `sizeReads`: counts the ranker's reads of row sizes; `chunk`: ids per chunk of kept sizes; `pruned`: the ranker's scoring (relevance-topk.ts) or the Map-per-match one. */
  const makeRanker = (
    chunk?: number,
    sizeReads?: { n: number },
    pruned = true
  ): { ranker: RelevanceRanker; reader: SearchReader; catalog: SearchCatalog } => {
    const reader = createSearchReader(fx.cache)
    const watch = new DataWatch(reader.data)
    const base = reader.rank
    const rank: SearchReader['rank'] = {
      totals: () => base.totals(),
      termDocs: (term) => base.termDocs(term),
      repeats: (term) => base.repeats(term),
      idSpan: (from, to) => base.idSpan(from, to),
      ln: (x) => base.ln(x),
      docSizes: (lo, hi, columns) => {
        if (sizeReads) sizeReads.n++
        return base.docSizes(lo, hi, columns)
      }
    }
    return {
      ranker: new RelevanceRanker(rank, watch, true, chunk, pruned),
      reader,
      catalog: new SearchCatalog(reader.catalog, reader.data, watch)
    }
  }

  /** bm25 as FTS5 computes it in SQL, over the range: [id, rank] in (rank, id) order. */
  const sqlRanks = (match: string, from: number | null, to: number | null): Array<[number, number]> =>
    connectionOf(fx.cache)
      .prepare(
        `SELECT f.rowid, bm25(calls_fts) FROM calls_fts f CROSS JOIN calls c ON c.id = f.rowid WHERE calls_fts MATCH ?
           AND c.call_at >= ? AND c.call_at < ? ORDER BY bm25(calls_fts), f.rowid`
      )
      .raw()
      .all(match, from ?? Number.MIN_SAFE_INTEGER, to ?? Number.MAX_SAFE_INTEGER) as Array<[number, number]>

  it.each([
    [undefined, true],
    [64, true],
    [undefined, false]
  ])(
    'gives bm25 itself: the same ids, the same ranks to the bit, in the same order (sizes kept by chunks of %s ids, pruned %s)',
    (chunk, pruned) => {
      const { ranker, reader, catalog } = makeRanker(chunk, undefined, pruned)
      let taken = 0
      let repeated = 0
      for (const text of TEXTS) {
        for (const [from, to] of RANGES) {
          const query = SearchQuery.parse({ text, from, to, sort: 'relevance', results: 'all' })
          const q = compileQuery(query, catalog.forText(text))
          if (q.match === null || q.empty) continue
          const matches = connectionOf(fx.cache)
            .prepare(
              'SELECT c.id FROM calls_fts f CROSS JOIN calls c ON c.id = f.rowid WHERE calls_fts MATCH ? AND c.call_at >= ? AND c.call_at < ?'
            )
            .pluck()
            .all(q.match, from ?? Number.MIN_SAFE_INTEGER, to ?? Number.MAX_SAFE_INTEGER) as number[]
          const evaluate = ([lo, hi]: readonly [number, number]): { bits: Uint8Array; lo: number } => {
            const bits = new Uint8Array(hi - lo + 1)
            for (const id of matches) if (id >= lo && id <= hi) bits[id - lo] = 1
            return { bits, lo }
          }
          const got = ranker.rank(q, reader.matches, evaluate)
          if (matchWords(q.match) === null || (from === null && to === null)) {
            expect(got, `${text}: not taken`).toBeNull()
            continue
          }
          expect(got, `${text} ${from}..${to}`).not.toBeNull()
          taken++
          const want = sqlRanks(q.match, from, to)
          expect(Array.from(got!.ids), `${text} ${from}..${to}`).toEqual(want.map(([id]) => id))
          expect(Array.from(got!.ranks), `${text} ${from}..${to}`).toEqual(want.map(([, r]) => r))
          if (new Set(want.map(([, r]) => r)).size < want.length) repeated++
          // The first of them only (a page): the same head, ties cut in id order.
          for (const head of [1, 7, 37])
            expect(Array.from(ranker.rank(q, reader.matches, evaluate, head)!.ids)).toEqual(want.slice(0, head).map(([id]) => id))
        }
      }
      // The table exercised the ranker, with ties broken by id.
      expect(taken).toBeGreaterThan(40)
      expect(repeated).toBeGreaterThan(5)
    }
  )

  it("reads the rows' sizes once per data version: a second ranking over the same weeks reads none", () => {
    const sizeReads = { n: 0 }
    const { ranker, reader, catalog } = makeRanker(64, sizeReads)
    const rank = (): number[] | undefined => {
      const query = SearchQuery.parse({ text: 'müşteri', from: RANGES[0]![0], to: RANGES[0]![1], sort: 'relevance', results: 'all' })
      const q = compileQuery(query, catalog.forText('müşteri'))
      const evaluate = ([lo, hi]: readonly [number, number]): { bits: Uint8Array; lo: number } => ({
        bits: new Uint8Array(hi - lo + 1).fill(1),
        lo
      })
      const got = ranker.rank(q, reader.matches, evaluate, 10)
      return got === null ? undefined : Array.from(got.ids)
    }
    const first = rank()
    const readFirst = sizeReads.n
    expect(readFirst).toBeGreaterThan(0)
    expect(rank()).toEqual(first)
    expect(sizeReads.n).toBe(readFirst)
  })

  it('read rows holding a word more than once from the instance vocabulary', () => {
    const { reader } = makeRanker()
    const repeats = reader.rank.repeats('fatura')
    const want = connectionOf(fx.cache)
      .prepare("SELECT count(*) FROM calls c WHERE (' ' || lower(c.summary) || ' ') LIKE '% fatura % fatura %'")
      .pluck()
      .get() as number
    expect(repeats.size).toBeGreaterThanOrEqual(want)
    expect(want).toBeGreaterThan(0)
  })

  it("pages through search once warm (the range's span from the date order in memory): the SQL ranking's rows", async () => {
    const warm = createSearch(fx.cache)
    await warm.warmUp().done
    let inMemory = 0
    for (const text of ['müşteri', 'ödeme OR arıza OR modem', 'kargo -iade', 'fatura iade kargo']) {
      for (const [from, to] of RANGES) {
        const query = SearchQuery.parse({ text, from, to, sort: 'relevance', results: 'all' })
        if (warm.explain(query, 100).served.plan === 'relevance-memory') inMemory++
        for (const [offset, limit] of [
          [0, 100],
          [37, 20]
        ] as const) {
          const a = warm.page(query, offset, limit).rows.map((r) => r.callId)
          const b = sqlOnly.page(query, offset, limit).rows.map((r) => r.callId)
          expect(a, `${text} ${from}..${to} @${offset}`).toEqual(b)
        }
      }
    }
    expect(inMemory).toBeGreaterThan(10)
  })

  it('pages through search: the same rows as the SQL ranking, first and deeper pages', () => {
    for (const text of ['müşteri', 'fatura OR kargo', 'kargo -iade', 'fatur', 'müşteri (iade OR kargo)']) {
      for (const [from, to] of RANGES) {
        const query = SearchQuery.parse({ text, from, to, sort: 'relevance', results: 'all' })
        for (const [offset, limit] of [
          [0, 100],
          [37, 20],
          [200, 50]
        ] as const) {
          const a = ours.page(query, offset, limit).rows.map((r) => r.callId)
          const b = sqlOnly.page(query, offset, limit).rows.map((r) => r.callId)
          expect(a, `${text} ${from}..${to} @${offset}`).toEqual(b)
        }
      }
    }
  })
})

describe('relevance ranked in memory: where it does not apply', () => {
  let fx: Fixture
  beforeAll(() => {
    fx = buildFixture(400, 3, { timeOrdered: true })
  })
  afterAll(() => fx.close())

  it('leaves a configured rank function (column weights) to SQL, whose order search then gives', () => {
    connectionOf(fx.cache).prepare("INSERT INTO calls_fts (calls_fts, rank) VALUES ('rank', 'bm25(10.0, 1.0, 1.0)')").run()
    const reader = createSearchReader(fx.cache)
    const ranker = new RelevanceRanker(reader.rank, new DataWatch(reader.data))
    const query = SearchQuery.parse({ text: 'kargo', from: T0 + DAY, to: T0 + 30 * DAY, sort: 'relevance', results: 'all' })
    const q = compileQuery(query, { scopes: [], keyIds: new Map(), keys: [], expansions: new Map() })
    expect(ranker.rank(q, reader.matches, () => ({ bits: new Uint8Array(0), lo: 0 }))).toBeNull()
    const ours = createSearch(fx.cache)
      .page(query, 0, 100)
      .rows.map((r) => r.callId)
    const sqlOnly = createSearch(fx.cache, { bitmaps: false })
      .page(query, 0, 100)
      .rows.map((r) => r.callId)
    expect(ours).toEqual(sqlOnly)
    expect(ours.length).toBeGreaterThan(10)
  })

  it('reads only plain words as its phrases', () => {
    expect(matchWords('"a" AND ("b" OR "c") NOT "d"')).toEqual(['a', 'b', 'c', 'd'])
    expect(matchWords('("a" OR "b") NOT ("c" OR "d")')).toEqual(['a', 'b', 'c', 'd'])
    expect(matchWords('"a b"')).toBeNull()
    expect(matchWords('"a"*')).toBeNull()
    expect(matchWords('title : "a"')).toBeNull()
    expect(matchWords('"a" "b" AND ("c" OR "d")')).toEqual(['a', 'b', 'c', 'd'])
    expect(matchWords('"a" AND ("b" OR "c" AND "d")')).toBeNull()
    expect(matchWords('"a" NOT ("b" AND "c")')).toBeNull()
  })
})
