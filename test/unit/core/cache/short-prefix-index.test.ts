import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openCache, type CallCache } from '../../../../src/core/cache'
import { connectionOf } from '../../../../src/core/cache/call-cache'
import { createSearch } from '../../../../src/core/search'
import { SearchQuery, type CallRecord, type SearchQueryInput } from '../../../../src/shared/domain'
import { foldText } from '../../../../src/shared/text/fold'

/**
 * The short-prefix index (ingest/short-prefixes.ts, schema 17): for every one- and two-letter
 * prefix, the calls it holds equal the calls one of whose calls_fts tokens begins with it, read
 * from FTS5's own token list (fts5vocab 'instance') — a brute force that shares nothing with
 * the index's writer. Checked after ingest, after changed calls, after a bulk pull's index
 * build on the worker thread, and after migrating a schema 16 cache (whose search answers stay
 * the same).
 */

const FILTERS = { callTypes: [], direction: null, results: 'answered' as const, hasNewRequest: null, includeAnalysis: true }

const WORDS = [
  'İPTAL',
  'ışık',
  'Işıl',
  'ılık',
  'çağrı',
  'Çözüm',
  'kargo',
  'KAPI',
  'kalem',
  'iade',
  'İade',
  'e-posta',
  'fatura.itirazı',
  '100tl',
  'şikâyet',
  'öğle',
  'Ünlü',
  'müşteri_temsilcisi',
  'x\u0301y',
  '日本語',
  '𝒜bc',
  'k',
  'ka'
]

function rec(i: number, over: Partial<CallRecord> = {}): CallRecord {
  const at = Date.UTC(2025, 0, 1) + i * 60_000
  const pick = (k: number): string => WORDS[(i * 7 + k * 3) % WORDS.length]!
  return {
    callId: `c-${i}`,
    callAt: at,
    callDate: new Date(at).toISOString(),
    title: `${pick(0)} ${pick(1)}`,
    summary: `${pick(2)}, ${pick(3)}; ${pick(4)}!`,
    analysis: [
      { key: 'sentiment', friendlyName: 'Duygu', value: i % 2 ? 'olumlu' : 'Olumsuz' },
      { key: 'topic', friendlyName: 'Konu', value: pick(5) }
    ],
    extra: {},
    ...over
  }
}

const PREFIXES = ['i', 'ı', 'ka', 'k', 'ç', 'çö', 'ş', 'e', 'po', 'ü', 'x', 'y', '1', '10', '日', '日本', '𝒜', '𝒜b', 'ol', 'ta']

/** The ids whose calls_fts tokens begin with `prefix`, from FTS5's own list of every token of every row. */
function bruteForce(db: Database.Database, prefix: string): number[] {
  db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.all_tokens USING fts5vocab(main, 'calls_fts', 'instance')")
  const tokens = db.prepare('SELECT DISTINCT doc, term FROM temp.all_tokens').raw().all() as Array<[number, string]>
  const ids = new Set<number>()
  for (const [doc, term] of tokens) if ([...term].slice(0, [...prefix].length).join('') === prefix) ids.add(doc)
  return [...ids].sort((a, b) => a - b)
}

function shortIndex(db: Database.Database, prefix: string): number[] {
  return db.prepare('SELECT rowid FROM calls_fts_short WHERE calls_fts_short MATCH ? ORDER BY rowid').pluck().all(`"${prefix}"`) as number[]
}

/** Every prefix as typed, against the brute force of its folded form: in the index, and through search. */
function expectExact(cache: CallCache): void {
  const db = connectionOf(cache)
  const search = createSearch(cache)
  for (const p of PREFIXES) {
    const want = bruteForce(db, foldText(p))
    expect(shortIndex(db, foldText(p)), p).toEqual(want)
    const q = SearchQuery.parse({ text: p, results: 'all' })
    expect(search.count(q), p).toBe(want.length)
    expect(
      search
        .page(q, 0, 1000)
        .rows.map((r) => connectionOf(cache).prepare('SELECT id FROM calls WHERE call_id = ?').pluck().get(r.callId))
        .sort((a, b) => (a as number) - (b as number)),
      p
    ).toEqual(want)
  }
  // The prefixes typed first hold calls: the comparison is not empty against empty.
  for (const p of ['ı', 'ka', 'ç', 'i']) expect(bruteForce(db, foldText(p)).length, p).toBeGreaterThan(0)
}

const QUERIES: SearchQueryInput[] = [
  ...PREFIXES.map((p) => ({ text: p, results: 'all' as const })),
  { text: 'ka', results: 'all', sort: 'relevance' },
  { text: '"kargo ka"', results: 'all' },
  { text: '"ışık ç"', results: 'all' },
  { text: 'title:ka', results: 'all' },
  { text: 'ka -ı', results: 'all' },
  { text: 'kar', results: 'all' },
  { text: '"kalem kargo"', results: 'all' }
]

/** Count and first page of every query, as the user sees them. */
function answers(cache: CallCache): unknown[] {
  const search = createSearch(cache)
  return QUERIES.map((input) => {
    const q = SearchQuery.parse(input)
    return [input.text, search.count(q), search.page(q, 0, 50).rows.map((r) => r.callId)]
  })
}

let dir: string
let file: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'callsight-short-prefix-'))
  file = join(dir, 'c.db')
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

function write(cache: CallCache, from: number, n: number, over: (i: number) => Partial<CallRecord> = () => ({})): void {
  cache.writePage({
    scopeKey: 'all',
    records: Array.from({ length: n }, (_, k) => rec(from + k, over(from + k))),
    includeAnalysis: true,
    checkpoint: null
  })
}

describe('the short-prefix index', () => {
  it('holds exactly the calls whose words begin with each one- or two-letter prefix, after new and changed calls', () => {
    const cache = openCache(file, { checkpointer: false })
    try {
      cache.ensureScope('all', FILTERS)
      write(cache, 0, 120)
      expectExact(cache)
      // Changed calls: their old prefixes go, their new ones come.
      write(cache, 0, 40, (i) => ({ title: i % 2 ? 'yeni başlık' : 'ÇAĞRI', summary: 'tamam' }))
      expectExact(cache)
      cache.optimizeIndex()
      expectExact(cache)
    } finally {
      cache.close()
    }
  })

  it('is built beside a bulk pull by the index build and taken in with calls_fts', async () => {
    const cache = openCache(file, { checkpointer: false })
    try {
      cache.ensureScope('all', FILTERS)
      await cache.bulk.startIndexBuild()
      write(cache, 0, 80)
      write(cache, 80, 80)
      write(cache, 10, 5, () => ({ title: 'değişti' }))
      await cache.bulk.finishIndexBuild()
      expectExact(cache)
    } finally {
      cache.close()
    }
  })

  it('migration 17 turns a schema 16 cache into it; every prefix and phrase answers as before', () => {
    const old = openCache(file, { checkpointer: false, schemaVersion: 16 })
    let before: unknown[]
    try {
      old.ensureScope('all', FILTERS)
      write(old, 0, 150)
      write(old, 5, 10, () => ({ summary: 'kapı kapandı' }))
      const db = connectionOf(old)
      expect(db.prepare("SELECT sql FROM sqlite_master WHERE name = 'calls_fts'").pluck().get()).toMatch(/prefix='1 2'/)
      before = answers(old)
    } finally {
      old.close()
    }
    const cache = openCache(file, { checkpointer: false })
    try {
      const db = connectionOf(cache)
      expect(db.pragma('user_version', { simple: true })).toBeGreaterThanOrEqual(17)
      expect(db.prepare("SELECT sql FROM sqlite_master WHERE name = 'calls_fts'").pluck().get()).not.toMatch(/prefix=/)
      expectExact(cache)
      expect(answers(cache)).toEqual(before)
      // Opened again: already migrated, the same answers.
    } finally {
      cache.close()
    }
    const again = openCache(file, { checkpointer: false })
    try {
      expect(answers(again)).toEqual(before)
    } finally {
      again.close()
    }
  })
})
