import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openCache, type CallCache, type WritePageInput } from '../../../../src/core/cache'
import { createSearch } from '../../../../src/core/search'
import { SearchQuery, type CallRecord, type SearchQueryInput } from '../../../../src/shared/domain'

/**
 * A bulk ingest through writePages (pages of 100, several a transaction, two scopes, changed
 * calls) with the full-text index built beside it (startIndexBuild): the worker builds
 * calls_fts and the short-prefix index from the committed rows. Whatever way the
 * ingest ends (finished, or stopped mid-way and resumed from its checkpoint on the main
 * thread), every search answers exactly as after an ingest with the index on the main thread.
 */
let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'callsight-ingest-beside-'))
})
afterEach(() => {
  rmSync(dir, { recursive: true, force: true })
})

const ALL = { callTypes: [], direction: null, results: 'answered' as const, hasNewRequest: null, includeAnalysis: true }
const TYPE = { callTypes: ['Fatura'], direction: null, results: 'answered' as const, hasNewRequest: null, includeAnalysis: false }
const WORDS = ['kalem', 'kargo', 'ışık', 'İPTAL', 'iade', 'müşteri', 'fatura', 'çağrı', 'öneri', 'şikâyet', 'ka', 'i', 'modem', 'Ödeme']
const PAGES = 60
const PER_TX = 5

function rec(i: number, changed = false): CallRecord {
  // Words by a hash of (call, place): every query below matches some calls, not all.
  const w = (k: number): string => WORDS[((Math.imul(i + 1, 2654435761) ^ Math.imul(k + 1, 40503)) >>> 9) % WORDS.length]!
  return {
    callId: `c${i}`,
    callAt: Date.UTC(2026, 0, 1) + i * 60_000,
    callDate: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
    title: changed ? `değişti ${w(5)}` : `${w(0)} ${i % 50}`,
    summary: `${w(1)} hakkında ${w(2)} görüşmesi ${w(3)}`,
    analysis: Array.from({ length: 4 }, (_, k) => ({ key: `k${k}`, friendlyName: `Alan ${k}`, value: `${w(k + 4)} ${i % 13}` })),
    extra: {}
  }
}

/** Transaction `t`'s pages: five of 100 new calls, every other one with a page of the second scope, changed calls in some. */
function transaction(t: number): WritePageInput[] {
  const out: WritePageInput[] = []
  for (let p = t * PER_TX; p < (t + 1) * PER_TX; p++) {
    const records = Array.from({ length: 100 }, (_, k) => rec(p * 100 + k))
    out.push({ scopeKey: 'all', records, includeAnalysis: true, checkpoint: { tx: t } })
    if (p % 2 === 0) out.push({ scopeKey: 'type', records: records.slice(0, 30), includeAnalysis: false, checkpoint: { tx: t } })
  }
  // Calls of earlier transactions change: their old index rows must go.
  if (t > 0 && t % 3 === 0) {
    const records = Array.from({ length: 20 }, (_, k) => rec((t - 1) * PER_TX * 100 + k * 7, true))
    out.push({ scopeKey: 'all', records, includeAnalysis: true, checkpoint: { tx: t } })
  }
  return out
}

const TRANSACTIONS = PAGES / PER_TX

const QUERIES: SearchQueryInput[] = [
  { text: 'ka' },
  { text: 'i' },
  { text: 'ı' },
  { text: 'ç' },
  { text: 'kar' },
  { text: 'iptal' },
  { text: 'değişti' },
  { text: '"hakkında kargo"' },
  { text: 'müşteri ka' },
  { text: 'ödeme', sort: 'relevance' },
  { analysis: [{ kind: 'equals', key: 'k1', value: 'kargo 3' }] }
]

/** Each query's count and every matching call id, in order (pages of 500). */
function answers(file: string): unknown[] {
  const cache = openCache(file, { checkpointer: false })
  try {
    const search = createSearch(cache)
    return QUERIES.map((input) => {
      const q = SearchQuery.parse(input)
      const count = search.count(q)
      const ids: string[] = []
      for (let offset = 0; offset < count; offset += 500) ids.push(...search.page(q, offset, 500).rows.map((r) => r.callId))
      return [input, count, ids]
    })
  } finally {
    cache.close()
  }
}

function open(file: string): CallCache {
  const cache = openCache(file, { checkpointer: false })
  cache.ensureScope('all', ALL)
  cache.ensureScope('type', TYPE)
  return cache
}

/** The reference: every transaction with its index rows, merged at the end. */
function mainThread(file: string): void {
  const cache = open(file)
  try {
    for (let t = 0; t < TRANSACTIONS; t++) cache.writePages(transaction(t))
    cache.optimizeIndex()
  } finally {
    cache.close()
  }
}

describe('a bulk ingest with the index built beside it', () => {
  it('answers every search as an ingest with the index on the main thread', async () => {
    const ref = join(dir, 'main.db')
    mainThread(ref)
    const file = join(dir, 'beside.db')
    const cache = open(file)
    try {
      await cache.bulk.startIndexBuild()
      for (let t = 0; t < TRANSACTIONS; t++) {
        cache.writePages(transaction(t))
        await cache.bulk.indexBuildDrain(2)
      }
      await cache.bulk.finishIndexBuild()
    } finally {
      cache.close()
    }
    const want = answers(ref)
    expect(answers(file)).toEqual(want)
    // Every search finds some calls and not all (the changed ones too).
    for (const [, count] of want as Array<[unknown, number]>) {
      expect(count).toBeGreaterThan(0)
      expect(count).toBeLessThan(PAGES * 100)
    }
  }, 120_000)

  it('stopped mid-way with batches queued, then resumed from its checkpoint on the main thread: the same answers', async () => {
    const ref = join(dir, 'main.db')
    mainThread(ref)
    const file = join(dir, 'stopped.db')
    const first = open(file)
    await first.bulk.startIndexBuild()
    const stopAt = 7
    for (let t = 0; t < stopAt; t++) first.writePages(transaction(t))
    // Closed with batches still queued for the worker: the build is left half done.
    first.close()
    // The next open rebuilds both indexes from the stored rows; the ingest resumes where the
    // scope's checkpoint says, with nothing lost or written twice.
    const again = open(file)
    try {
      const cp = again.sync.getCheckpoint('all') as { tx: number }
      expect(cp.tx).toBe(stopAt - 1)
      for (let t = cp.tx + 1; t < TRANSACTIONS; t++) again.writePages(transaction(t))
      again.optimizeIndex()
      expect(again.info().calls).toBe(PAGES * 100)
    } finally {
      again.close()
    }
    expect(answers(file)).toEqual(answers(ref))
  }, 120_000)
})
