import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openCache, type CallCache } from '../../../../src/core/cache'
import { SEARCH_MMAP_BYTES } from '../../../../src/core/cache/schema/cache-db'
import { FTS_BULK_BUFFER, FTS_DEFAULT_BUFFER } from '../../../../src/core/cache/ingest/fts-buffer'
import type { CallRecord } from '../../../../src/shared/domain'
import { connectionOf } from '../../../../src/core/cache/call-cache'

const FILTERS = { callTypes: [], direction: null, results: 'all' as const, hasNewRequest: null, includeAnalysis: true }

function rec(i: number): CallRecord {
  return {
    callId: `call-${i}`,
    callAt: Date.UTC(2025, 0, 1) + i * 60_000,
    callDate: '2025-01-01T00:00:00+03:00',
    title: `Başlık ${i}`,
    summary: `Özet ${i} fatura kelime${i % 7}`,
    analysis: [{ key: 'score', friendlyName: 'Skor', value: String(i) }],
    extra: {}
  }
}

let dir: string
let cache: CallCache
const file = (): string => join(dir, 'c.sqlite')
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'callsight-fts-buffer-'))
  cache = openCache(file())
})
afterEach(() => {
  cache.close()
  rmSync(dir, { recursive: true, force: true })
})

/** The stored 'hashsize' and the number of full-text segments, read on a connection of its own. */
function state(): { buffer: number | null; segments: number } {
  const db = new Database(file(), { readonly: true })
  try {
    const buffer = db.prepare("SELECT v FROM calls_fts_config WHERE k = 'hashsize'").pluck().get() as number | undefined
    const segments = db.prepare('SELECT count(DISTINCT segid) FROM calls_fts_idx').pluck().get() as number
    return { buffer: buffer ?? null, segments }
  } finally {
    db.close()
  }
}

describe('the full-text buffer of a bulk pull', () => {
  it('writes one segment per transaction and reads without the memory map while on, is restored when off, and indexes the same rows', () => {
    cache.ensureScope('s', FILTERS)
    // Pages of long summaries, so that a transaction's pending terms exceed FTS5's default 1 MB.
    const long = (i: number): CallRecord => ({
      ...rec(i),
      summary: `${rec(i).summary} ${'uzun metin '.repeat(300)}${'x'.repeat(i % 50)} w${i}`
    })
    cache.writePages(
      Array.from({ length: 4 }, (_, p) => ({
        scopeKey: 's',
        records: Array.from({ length: 500 }, (_, k) => long(p * 500 + k)),
        includeAnalysis: true,
        checkpoint: null
      }))
    )
    const small = state()
    expect(small.buffer).toBeNull()
    expect(small.segments).toBeGreaterThan(1)

    cache.bulk.bulkWriting(true)
    expect(state().buffer).toBe(FTS_BULK_BUFFER)
    expect(connectionOf(cache).pragma('mmap_size', { simple: true })).toBe(0)
    cache.writePages(
      Array.from({ length: 4 }, (_, p) => ({
        scopeKey: 's',
        records: Array.from({ length: 500 }, (_, k) => long(2000 + p * 500 + k)),
        includeAnalysis: true,
        checkpoint: null
      }))
    )
    expect(state().segments).toBe(small.segments + 1)
    cache.bulk.bulkWriting(false)
    expect(state().buffer).toBe(FTS_DEFAULT_BUFFER)
    expect(connectionOf(cache).pragma('mmap_size', { simple: true })).toBe(SEARCH_MMAP_BYTES)
    const db = new Database(file(), { readonly: true })
    try {
      expect(db.prepare("SELECT count(*) FROM calls_fts WHERE calls_fts MATCH 'w3999 OR w1999'").pluck().get()).toBe(2)
    } finally {
      db.close()
    }
  })

  it('a process that only pulls reads without the memory map and with a small page cache', () => {
    expect(connectionOf(cache).pragma('mmap_size', { simple: true })).toBe(SEARCH_MMAP_BYTES)
    cache.bulk.readsForBulkPull()
    expect(connectionOf(cache).pragma('mmap_size', { simple: true })).toBe(0)
    expect(connectionOf(cache).pragma('cache_size', { simple: true })).toBe(-16384)
  })

  it('keeps its SQL connection inside the cache layer', () => {
    // @ts-expect-error: callers outside the cache layer use its methods, never its connection
    expect(cache.db).toBeDefined()
  })
})

describe("merging a sync's full-text segments", () => {
  /** Segments of an index, on a connection of its own. */
  function segments(table: string): number {
    const db = new Database(file(), { readonly: true })
    try {
      return db.prepare(`SELECT count(DISTINCT segid) FROM ${table}_idx`).pluck().get() as number
    } finally {
      db.close()
    }
  }
  const matches = (q: string): number =>
    connectionOf(cache).prepare('SELECT count(*) FROM calls_fts WHERE calls_fts MATCH ?').pluck().get(q) as number
  // Words of their own per call, so that each transaction writes a segment of many pages: FTS5
  // merges by the pages written.
  const wordy = (i: number): CallRecord => ({
    ...rec(i),
    summary: `${rec(i).summary} ${Array.from({ length: 30 }, (_, k) => `soz${i}x${k}`).join(' ')}`
  })
  const write = (from: number, n: number): void => {
    cache.writePages([
      { scopeKey: 's', records: Array.from({ length: n }, (_, k) => wordy(from + k)), includeAnalysis: true, checkpoint: null }
    ])
  }

  it('leaves each transaction its segment until the merge at the end, bounded by a merge of a whole level', () => {
    cache.ensureScope('s', FILTERS)
    // FTS5's incremental merge would have merged these (four a level) as they were written.
    for (let t = 0; t < 12; t++) write(t * 200, 200)
    expect(segments('calls_fts')).toBe(12)
    expect(segments('calls_fts_short')).toBe(12)
    expect(matches('kelime3')).toBe(Array.from({ length: 2400 }, (_, i) => i).filter((i) => i % 7 === 3).length)
    // Past FTS5's bound of 16 a level, the level is merged at once.
    for (let t = 12; t < 40; t++) write(t * 200, 200)
    expect(segments('calls_fts')).toBeLessThan(17)
    expect(matches('kelime3')).toBe(Array.from({ length: 8000 }, (_, i) => i).filter((i) => i % 7 === 3).length)
    expect(matches('fatura')).toBe(8000)
    expect(matches('soz7999x29')).toBe(1)
    cache.optimizeIndex()
    expect(segments('calls_fts')).toBe(1)
    expect(segments('calls_fts_short')).toBe(1)
    expect(matches('fatura')).toBe(8000)
  })

  it("is set again at a writable open where the index's own setting came back", () => {
    cache.close()
    const db = new Database(file())
    db.exec("INSERT INTO calls_fts (calls_fts, rank) VALUES ('automerge', 4)")
    db.close()
    cache = openCache(file())
    const read = connectionOf(cache).prepare("SELECT v FROM calls_fts_config WHERE k = 'automerge'").pluck()
    expect(read.get()).toBe(0)
    expect(connectionOf(cache).prepare("SELECT v FROM calls_fts_short_config WHERE k = 'automerge'").pluck().get()).toBe(0)
  })
})
