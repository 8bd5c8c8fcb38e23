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
