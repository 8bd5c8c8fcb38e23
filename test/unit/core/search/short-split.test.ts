import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openCache, type CallCache } from '../../../../src/core/cache'
import { connectionOf } from '../../../../src/core/cache/call-cache'
import { createSearch } from '../../../../src/core/search'
import { SearchQuery, type CallRecord } from '../../../../src/shared/domain'
import { foldText } from '../../../../src/shared/text/fold'

/**
 * A word and a one- or two-letter prefix typed together ("kargo k", on the way to "kargo
 * kalem") is read in parts: the word from calls_fts, the prefix from the short-prefix index,
 * intersected (ShortSplit). Its count, its pages in date order (first, deep, oldest first) and
 * the first page's plan input (the bounded estimate, whose ids serve a rare query's page) equal
 * a brute force over FTS5's own token list that shares nothing with the search. The cache is
 * large enough that some queries pass the estimate's cap and others stay under it.
 */

const WORDS = [
  'kargo',
  'kalem',
  'KAPI',
  'iade',
  'İptal',
  'ışık',
  'çağrı',
  'Çözüm',
  'müşteri',
  'mesaj',
  'fatura',
  'öğle',
  'şikâyet',
  'nadir'
]
const CALLS = 4000

/** A hash of n to a pseudo-random non-negative integer (mulberry32's step): the same calls every run. */
function draw(n: number): number {
  let t = (n + 0x6d2b79f5) | 0
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return (t ^ (t >>> 14)) >>> 0
}

function rec(i: number): CallRecord {
  const at = Date.UTC(2025, 0, 1) + i * 60_000
  // "nadir" (rare) is in 1 call of 200; the rest drawn from a fixed-seed generator.
  const pick = (k: number): string => WORDS[draw(i * 4 + k) % (WORDS.length - 1)]!
  const rare = i % 200 === 3 ? ' nadir' : ''
  // "ortak" in 60 % of calls: with a prefix it passes the estimate's cap and still narrows.
  const common = draw(i + 1_000_003) % 10 < 6 ? ' ortak' : ''
  return {
    callId: `c-${i}`,
    callAt: at,
    callDate: new Date(at).toISOString(),
    title: `${pick(0)} ${pick(1)}${rare}`,
    summary: `${pick(2)}, ${pick(3)}${common}`,
    analysis: [{ key: 'sentiment', friendlyName: 'Duygu', value: i % 3 ? 'olumlu' : 'Olumsuz' }],
    extra: {}
  }
}

/** Each call's folded tokens, from FTS5's list of every token of every row. */
function tokensById(db: Database.Database): Map<number, string[]> {
  db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.split_tokens USING fts5vocab(main, 'calls_fts', 'instance')")
  const out = new Map<number, string[]>()
  for (const [doc, term] of db.prepare('SELECT doc, term FROM temp.split_tokens').raw().all() as Array<[number, string]>) {
    const list = out.get(doc) ?? []
    list.push(term)
    out.set(doc, list)
  }
  return out
}

type Term = { word: string } | { prefix: string } | { not: string }

/** The ids, newest first, whose tokens satisfy every term (a word: equal; a prefix: begins with; not: no token equal), folded as typed text is. */
function bruteForce(tokens: Map<number, string[]>, dateOf: Map<number, number>, terms: Term[]): number[] {
  const ids: number[] = []
  for (const [id, list] of tokens) {
    const ok = terms.every((t) =>
      'word' in t
        ? list.includes(foldText(t.word))
        : 'prefix' in t
          ? list.some((x) => x.startsWith(foldText(t.prefix)))
          : !list.includes(foldText(t.not))
    )
    if (ok) ids.push(id)
  }
  return ids.sort((a, b) => dateOf.get(b)! - dateOf.get(a)! || b - a)
}

const CASES: Array<{ text: string; terms: Term[] }> = [
  { text: 'kargo k', terms: [{ word: 'kargo' }, { prefix: 'k' }] },
  { text: 'kargo ka', terms: [{ word: 'kargo' }, { prefix: 'ka' }] },
  { text: 'k kargo', terms: [{ prefix: 'k' }, { word: 'kargo' }] },
  { text: 'mesaj ı', terms: [{ word: 'mesaj' }, { prefix: 'ı' }] },
  { text: 'nadir ç', terms: [{ word: 'nadir' }, { prefix: 'ç' }] },
  { text: 'nadir k i', terms: [{ word: 'nadir' }, { prefix: 'k' }, { prefix: 'i' }] },
  { text: 'fatura m -mesaj', terms: [{ word: 'fatura' }, { prefix: 'm' }, { not: 'mesaj' }] },
  { text: 'iptal şi', terms: [{ word: 'iptal' }, { prefix: 'şi' }] },
  { text: 'kalem zz', terms: [{ word: 'kalem' }, { prefix: 'zz' }] },
  // Words that do not begin with the prefix themselves, common enough to pass the cap.
  { text: 'kargo i', terms: [{ word: 'kargo' }, { prefix: 'i' }] },
  { text: 'müşteri ka', terms: [{ word: 'müşteri' }, { prefix: 'ka' }] },
  { text: 'fatura ç m', terms: [{ word: 'fatura' }, { prefix: 'ç' }, { prefix: 'm' }] },
  { text: 'ortak k', terms: [{ word: 'ortak' }, { prefix: 'k' }] },
  { text: 'ortak i', terms: [{ word: 'ortak' }, { prefix: 'i' }] },
  { text: 'ortak ka -kargo', terms: [{ word: 'ortak' }, { prefix: 'ka' }, { not: 'kargo' }] }
]

let dir: string
let cache: CallCache
let ids: Map<string, number>
let tokens: Map<number, string[]>
let dateOf: Map<number, number>

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'callsight-short-split-'))
  cache = openCache(join(dir, 'c.db'), { checkpointer: false })
  cache.ensureScope('all', { callTypes: [], direction: null, results: 'all', hasNewRequest: null, includeAnalysis: true })
  for (let from = 0; from < CALLS; from += 500)
    cache.writePage({
      scopeKey: 'all',
      records: Array.from({ length: 500 }, (_, k) => rec(from + k)),
      includeAnalysis: true,
      checkpoint: null
    })
  const db = connectionOf(cache)
  ids = new Map((db.prepare('SELECT call_id, id FROM calls').raw().all() as Array<[string, number]>).map(([c, id]) => [c, id]))
  dateOf = new Map((db.prepare('SELECT id, call_at FROM calls').raw().all() as Array<[number, number]>).map(([id, at]) => [id, at]))
  tokens = tokensById(db)
})
afterAll(() => {
  cache.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('a word and a short prefix typed together', () => {
  it('counts, pages and orders as a brute force over the tokens, under and over the estimate cap', () => {
    let over = 0
    let under = 0
    let narrowed = 0
    let overNarrowed = 0
    for (const c of CASES) {
      const want = bruteForce(tokens, dateOf, c.terms)
      const q = SearchQuery.parse({ text: c.text, results: 'all' })
      // A search per step, so each is the first question about the query (the estimate's ids serve it).
      const first = createSearch(cache).page(q, 0, 100)
      expect(
        first.rows.map((r) => ids.get(r.callId)),
        `${c.text}: first page`
      ).toEqual(want.slice(0, 100))
      const search = createSearch(cache)
      expect(search.count(q), `${c.text}: count`).toBe(want.length)
      const deep = Math.max(0, want.length - 150)
      expect(
        search.page(q, deep, 100).rows.map((r) => ids.get(r.callId)),
        `${c.text}: deep page`
      ).toEqual(want.slice(deep, deep + 100))
      const oldest = createSearch(cache).page(SearchQuery.parse({ text: c.text, results: 'all', sort: 'date_asc' }), 0, 100)
      expect(
        oldest.rows.map((r) => ids.get(r.callId)),
        `${c.text}: oldest first`
      ).toEqual([...want].reverse().slice(0, 100))
      // The prefix narrows: the word alone holds calls the query must not (else a search that
      // dropped the prefix would pass).
      const words = bruteForce(
        tokens,
        dateOf,
        c.terms.filter((t) => !('prefix' in t))
      )
      if (words.length > want.length && want.length > 0) narrowed++
      const estimate = createSearch(cache).explain(q, 100).estimate
      if (words.length > want.length && estimate < want.length) overNarrowed++
      // Under the cap the estimate is the exact count (its ids are the match list), over it the cap.
      if (estimate < want.length) over++
      else {
        expect(estimate, `${c.text}: estimate`).toBe(want.length)
        under++
      }
    }
    // Both sides of the estimate's cap were met: the comparison covers the listed ids and the walk.
    expect(over).toBeGreaterThan(0)
    expect(under).toBeGreaterThan(0)
    expect(narrowed).toBeGreaterThan(4)
    expect(overNarrowed).toBeGreaterThan(1)
    // And the brute force is not empty against empty.
    expect(bruteForce(tokens, dateOf, CASES[0]!.terms).length).toBeGreaterThan(200)
    expect(bruteForce(tokens, dateOf, CASES[4]!.terms).length).toBeGreaterThan(0)
  })
})
