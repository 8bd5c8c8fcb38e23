import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openCache, type CallCache } from '../../../../src/core/cache'
import { sideFileOf, sideLocked } from '../../../../src/core/cache/ingest/deferred-index'
import type { CallRecord } from '../../../../src/shared/domain'
import { connectionOf } from '../../../../src/core/cache/call-cache'

/**
 * A first pull's index build runs in a worker with its own connections to the cache and to
 * its side file (deferred-index.ts). The cache's close() must not return while they are
 * open: the WAL and shared-memory files (and the side file's lock) outlived it, so removing
 * the folder right after raced with the worker (on Windows the files stay locked).
 */
let dir: string
let file: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'callsight-build-close-'))
  file = join(dir, 'c.db')
})
afterEach(() => {
  rmSync(dir, { recursive: true, force: true })
})

const FILTERS = { callTypes: [], direction: null, results: 'all' as const, hasNewRequest: null, includeAnalysis: true }

function rec(i: number): CallRecord {
  return {
    callId: `c${i}`,
    callAt: Date.UTC(2026, 0, 1) + i * 60_000,
    callDate: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
    title: `fatura itiraz ${i % 97}`,
    summary: `kargo hakkında ödeme görüşmesi ${i}`,
    analysis: Array.from({ length: 5 }, (_, k) => ({ key: `k${k}`, friendlyName: `Alan ${k}`, value: `şikâyet ${k} ${i % 13}` })),
    extra: {}
  }
}

/** `pages` commits of 500 calls each: every commit sends a batch to the build's worker. */
function write(cache: CallCache, pages: number, from = 0): void {
  for (let p = from; p < from + pages; p++) {
    cache.writePage({
      scopeKey: 'all',
      records: Array.from({ length: 500 }, (_, k) => rec(p * 500 + k)),
      includeAnalysis: true,
      checkpoint: { next: p }
    })
  }
}

/** Everything that appears in the folder over `ms` (a late worker makes files appear). */
async function watchFolder(ms: number): Promise<string[]> {
  const seen = new Set<string>()
  const end = Date.now() + ms
  while (Date.now() < end) {
    for (const f of readdirSync(dir)) seen.add(f)
    await new Promise((r) => setImmediate(r))
  }
  return [...seen].sort()
}

describe("a pull's index build and the cache's close", () => {
  it('close() returns once the worker has closed the cache and its side file; the next open finishes the index', async () => {
    const cache = openCache(file, { checkpointer: false })
    cache.ensureScope('all', FILTERS)
    await cache.bulk.startIndexBuild()
    // The build runs (a failed one throws here).
    write(cache, 2)
    await cache.bulk.indexBuildDrain(0)
    // Batches queued for the worker: it is busy with them when the cache closes.
    write(cache, 12, 2)
    cache.close()
    // Nothing of the cache's WAL is left (the worker's read connection kept it), and the
    // side file is no longer locked; the build's mark stays.
    expect(readdirSync(dir).sort()).toEqual(['c.db', 'c.db.index-build'])
    expect(sideLocked(sideFileOf(file))).toBe(false)
    expect(await watchFolder(200)).toEqual(['c.db', 'c.db.index-build'])

    const reopened = openCache(file, { checkpointer: false })
    try {
      const found = connectionOf(reopened).prepare("SELECT count(*) FROM calls_fts WHERE calls_fts MATCH 'fatura'").pluck().get()
      expect(found).toBe(7000)
    } finally {
      reopened.close()
    }
    expect(readdirSync(dir)).toEqual(['c.db'])
  })

  it('closed while the build is starting: the worker opens nothing, and the start fails clearly', async () => {
    const cache = openCache(file, { checkpointer: false })
    cache.ensureScope('all', FILTERS)
    const started = cache.bulk.startIndexBuild()
    cache.close()
    await expect(started).rejects.toThrow(/closed|stopped/)
    expect(await watchFolder(300)).toEqual(['c.db'])
  })

  it('a pull that goes on after the close fails instead of writing to the closed cache', async () => {
    const cache = openCache(file, { checkpointer: false })
    cache.ensureScope('all', FILTERS)
    await cache.bulk.startIndexBuild()
    write(cache, 2)
    const finishing = cache.bulk.finishIndexBuild()
    cache.close()
    await expect(finishing).rejects.toThrow()
    expect(await watchFolder(200)).toEqual(['c.db', 'c.db.index-build'])
  })
})
