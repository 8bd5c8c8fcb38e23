import Database from 'better-sqlite3'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openCache, type CallCache } from '../../../../src/core/cache'
import { connectionOf } from '../../../../src/core/cache/call-cache'
import type { PulledBatch } from '../../../../src/core/cache/ingest/pulled'
import { clearIndex, reindexAll } from '../../../../src/core/cache/ingest/reindex'
import { makeFtsCharProbe, makeShortPrefixes } from '../../../../src/core/cache/ingest/short-prefixes'
import { TermTable } from '../../../../src/core/cache/ingest/term-list'
import { createSearch } from '../../../../src/core/search'
import { SearchQuery, type CallRecord } from '../../../../src/shared/domain'
import { foldText } from '../../../../src/shared/text/fold'

/**
 * The kept term list (ingest/term-list.ts, schema 21): prefix expansion reads it instead of
 * fts5vocab, so every term of the index must be in it after each way the index is written —
 * a sync's pages, a bulk pull, a pull's index build beside it, a reindex, a changed call —
 * and the expansion it gives equals fts5vocab's. Checked against FTS5's own term list.
 */

const FILTERS = { callTypes: [], direction: null, results: 'answered' as const, hasNewRequest: null, includeAnalysis: true }

// Turkish letters, words the tokenizer splits or folds (a capital astral letter, a combining
// accent, a titlecase digraph, final sigma), digits.
const WORDS = [
  'İPTAL',
  'ışık',
  'Işıl',
  'çağrı',
  'Çözüm',
  'kargo',
  'KAPI',
  'kalem',
  'kalemlik',
  'iade',
  'e-posta',
  'fatura.itirazı',
  '100tl',
  'şikâyet',
  'müşteri_temsilcisi',
  'x\u0301y',
  '日本語',
  '𝒜bc',
  '𐐀𐐁ak',
  'ǅemal',
  'ΟΔΟΣ',
  'Straße',
  'k'
]

let serial = 0
function rec(i: number, words: readonly string[] = WORDS, over: Partial<CallRecord> = {}): CallRecord {
  const at = Date.UTC(2025, 0, 1) + i * 60_000
  const pick = (k: number): string => words[(i * 7 + k * 3) % words.length]!
  return {
    callId: `c-${i}`,
    callAt: at,
    callDate: new Date(at).toISOString(),
    title: `${pick(0)} ${pick(1)}`,
    summary: `${pick(2)}, ${pick(3)}; ${pick(4)}! ${serial++}`,
    analysis: [{ key: 'topic', friendlyName: 'Konu', value: pick(5) }],
    extra: {},
    ...over
  }
}

const listed = (cache: CallCache): string[] =>
  connectionOf(cache).prepare('SELECT term FROM calls_terms ORDER BY term').pluck().all() as string[]
const indexed = (cache: CallCache): string[] =>
  connectionOf(cache).prepare('SELECT term FROM calls_fts_vocab ORDER BY term').pluck().all() as string[]

/** Every prefix (one to four characters) of every indexed term, as the search expands it. */
function expansions(cache: CallCache, from: 'list' | 'index'): Array<[string, string[]]> {
  const db = connectionOf(cache)
  const table = from === 'list' ? 'calls_terms' : 'calls_fts_vocab'
  const read = db.prepare(`SELECT term FROM ${table} WHERE term >= ? AND term < ? LIMIT 9`).pluck()
  const prefixes = new Set<string>()
  for (const t of indexed(cache)) for (let n = 1; n <= 4; n++) prefixes.add([...t].slice(0, n).join(''))
  return [...prefixes].sort().map((p) => [p, read.all(p, p + '\u{10FFFF}') as string[]])
}

/** The list holds exactly the index's terms, and expands every prefix as fts5vocab does. */
function expectExact(cache: CallCache): void {
  expect(indexed(cache).length).toBeGreaterThan(20)
  expect(listed(cache)).toEqual(indexed(cache))
  expect(expansions(cache, 'list')).toEqual(expansions(cache, 'index'))
}

/** Every indexed term is listed (terms no call holds any more may stay), and search finds each word typed as a prefix. */
function expectCovered(cache: CallCache, typed: readonly string[]): void {
  const list = new Set(listed(cache))
  expect(indexed(cache).filter((t) => !list.has(t))).toEqual([])
  const search = createSearch(cache)
  const fts = connectionOf(cache).prepare('SELECT count(*) FROM calls_fts WHERE calls_fts MATCH ?').pluck()
  for (const w of typed) {
    const want = fts.get(`"${foldText(w)}"*`) as number
    expect(want, w).toBeGreaterThan(0)
    expect(search.count(SearchQuery.parse({ text: w, results: 'all' })), w).toBe(want)
  }
}

function pulled(records: CallRecord[], cursor: number): PulledBatch {
  return {
    cacheId: 'team-1',
    generation: 'g1',
    source: 'postgres://team',
    cursor,
    scopes: [{ scopeKey: 'all', filters: FILTERS, coverage: [], lastSuccessAt: null }],
    callTypes: [],
    calls: records.map((record) => ({ record, hasAnalysis: true })),
    members: [{ scopeKey: 'all', callIds: records.map((r) => r.callId) }]
  }
}

let dir: string
let file: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'callsight-term-list-'))
  file = join(dir, 'c.db')
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

function write(cache: CallCache, from: number, n: number, words?: readonly string[], over?: Partial<CallRecord>): void {
  cache.writePage({
    scopeKey: 'all',
    records: Array.from({ length: n }, (_, k) => rec(from + k, words, over)),
    includeAnalysis: true,
    checkpoint: null
  })
}

describe('the kept term list', () => {
  it("splits and folds text as calls_fts's tokenizer does, unfolded text too", () => {
    // Capitals (BMP and astral), accents, separators of every kind, a lone surrogate.
    const texts = [
      ...WORDS,
      'İPTAL Işık ÇAĞRI Straße ΟΔΟΣ ǅemal 𐐀𐐁AK 𝒜BC',
      'e-posta;fatura.İTİRAZI 100TL x́Y 日本語 \ud800 yarım\udc00kelime',
      'ÀÉÎÕÜ àéîõü Ǆ ǆ Ⅻ ⅻ ＡＢＣ ａｂｃ'
    ]
    const db = new Database(':memory:')
    try {
      db.exec(`CREATE VIRTUAL TABLE t USING fts5(x, tokenize='unicode61 remove_diacritics 0');
        CREATE VIRTUAL TABLE v USING fts5vocab(t, 'row');`)
      const put = db.prepare('INSERT INTO t (x) VALUES (?)')
      for (const t of texts) put.run(t)
      const want = db.prepare('SELECT term FROM v ORDER BY term').pluck().all() as string[]
      const scan = makeShortPrefixes(makeFtsCharProbe(Database))
      const split = (t: string, into: TermTable): void => void scan([t], into)
      // A small table, so it starts over while splitting: a term met again is queued again.
      const table = new TermTable(16)
      for (const t of texts) split(t, table)
      const got = new Set(table.take())
      const sorted = db
        .prepare('SELECT value FROM json_each(?) ORDER BY value')
        .pluck()
        .all(JSON.stringify([...got])) as string[]
      expect(sorted).toEqual(want)
      // Met before: nothing new.
      const again = new TermTable()
      for (const t of texts) split(t, again)
      expect(new Set(again.take()).size).toBe(want.length)
      for (const t of texts) split(t, again)
      expect(again.take()).toEqual([])
    } finally {
      db.close()
    }
  })

  it("holds the index's terms after a sync's pages, and a changed call's new words", () => {
    const cache = openCache(file, { checkpointer: false })
    try {
      cache.ensureScope('all', FILTERS)
      write(cache, 0, 60)
      write(cache, 60, 60)
      cache.writePages([40, 80].map((from) => ({ scopeKey: 'all', records: [rec(from + 200)], includeAnalysis: true, checkpoint: null })))
      expectExact(cache)
      // Changed calls: their new words are listed; the words they lost may stay.
      write(cache, 0, 10, WORDS, { title: 'yepyeni başlık', summary: 'değişik kelimeler' })
      write(cache, 10, 5, WORDS, { analysis: [{ key: 'topic', friendlyName: 'Konu', value: 'Sürpriz' }] })
      expectCovered(cache, ['yepye', 'başl', 'değiş', 'kelim', 'sürpr'])
      cache.optimizeIndex()
      expectCovered(cache, ['yepye', 'sürpr'])
    } finally {
      cache.close()
    }
  })

  it('is filled again after the cache is emptied, and after a transaction that rolled back', () => {
    const cache = openCache(file, { checkpointer: false })
    try {
      cache.ensureScope('all', FILTERS)
      write(cache, 0, 40)
      cache.clear()
      expect(listed(cache)).toEqual([])
      // The same words again: the writer must not take them for listed still.
      cache.ensureScope('all', FILTERS)
      write(cache, 0, 40)
      expectExact(cache)

      // A pull whose transaction fails after its index rows were written (a window that cannot
      // be stored) rolls the list back with them; the same words pulled again are listed.
      const more = Array.from({ length: 20 }, (_, k) => rec(500 + k, ['yalnız', 'geriye', 'alındı']))
      const broken = { ...pulled(more, 1), window: { days: null, heldFrom: null, backfill: { from: 1n, to: 2 } } }
      expect(() => cache.writePulled(broken as unknown as PulledBatch)).toThrow()
      expect(listed(cache)).not.toContain('yalnız')
      cache.writePulled(pulled(more, 1))
      expectExact(cache)
      expectCovered(cache, ['yaln', 'geri', 'alın'])
    } finally {
      cache.close()
    }
  })

  it('holds the terms of a bulk pull, and of a pull whose index is built beside it', async () => {
    const cache = openCache(file, { checkpointer: false })
    try {
      cache.bulk.bulkWriting(true)
      cache.writePulled(
        pulled(
          Array.from({ length: 150 }, (_, k) => rec(k)),
          1
        )
      )
      cache.writePulled(
        pulled(
          Array.from({ length: 150 }, (_, k) => rec(150 + k, ['başka', 'sözcük', ...WORDS.slice(3)])),
          2
        )
      )
      cache.bulk.bulkWriting(false)
      expectExact(cache)
    } finally {
      cache.close()
    }
    const other = openCache(join(dir, 'beside.db'), { checkpointer: false })
    try {
      await other.bulk.startIndexBuild()
      other.writePulled(
        pulled(
          Array.from({ length: 100 }, (_, k) => rec(k)),
          1
        )
      )
      other.writePulled(pulled([rec(7, ['değişti', 'yenisi'])], 2))
      await other.bulk.finishIndexBuild()
      expectExact(other)
      expectCovered(other, ['değ', 'yeni'])
    } finally {
      other.close()
    }
  })

  it('holds the terms of a reindexed cache', () => {
    const cache = openCache(file, { checkpointer: false })
    try {
      cache.ensureScope('all', FILTERS)
      write(cache, 0, 80)
      const db = connectionOf(cache)
      db.transaction(() => {
        clearIndex(db)
        expect(listed(cache)).toEqual([])
        reindexAll(db)
      })()
      expectExact(cache)
    } finally {
      cache.close()
    }
  })

  it('migration 21 fills it on a schema 20 cache, whose prefixes expanded from the index answer the same', () => {
    const old = openCache(file, { checkpointer: false, schemaVersion: 20 })
    let before: number[]
    const typed = ['kal', 'ışı', 'çağ', '日本', 'stra', 'οδ', 'ǆe']
    try {
      old.ensureScope('all', FILTERS)
      write(old, 0, 120)
      // Without the list the search expands prefixes from the index itself.
      expect(connectionOf(old).prepare("SELECT 1 FROM sqlite_schema WHERE name = 'calls_terms'").get()).toBeUndefined()
      const search = createSearch(old)
      before = typed.map((w) => search.count(SearchQuery.parse({ text: w, results: 'all' })))
      expect(before.every((n) => n > 0)).toBe(true)
    } finally {
      old.close()
    }
    const cache = openCache(file, { checkpointer: false })
    try {
      expect(connectionOf(cache).pragma('user_version', { simple: true })).toBeGreaterThanOrEqual(21)
      expectExact(cache)
      const search = createSearch(cache)
      expect(typed.map((w) => search.count(SearchQuery.parse({ text: w, results: 'all' })))).toEqual(before)
    } finally {
      cache.close()
    }
  })
})
