import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openCache } from '../../../../src/core/cache'
import { sideFileOf, sideLocked } from '../../../../src/core/cache/ingest/deferred-index'
import { CallsightError } from '../../../../src/core/errors'
import { connectionOf } from '../../../../src/core/cache/call-cache'

/**
 * The end of a first pull's index build (the worker's COMMIT and merge, deferred-index.ts)
 * can fail like any write: here the disk is "full" for real, by lowering this process's
 * file-size limit (RLIMIT_FSIZE, with util-linux's prlimit; Node ignores SIGXFSZ, so a write
 * past the limit fails with EFBIG, which SQLite reports as an I/O error). The worker and this
 * thread are one process, so both the worker's side file and the cache's WAL stop growing.
 * finish() used to wait for a 'done' that never came; it must fail clearly, and the cache
 * must be left as a pull killed mid-build leaves it: the next open rebuilds the index.
 */
let dir: string
let file: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'callsight-build-finish-'))
  file = join(dir, 'c.db')
})
afterEach(() => {
  rmSync(dir, { recursive: true, force: true })
})

const setFileSizeLimit = (bytes: number | 'unlimited'): void => {
  execFileSync('prlimit', ['--pid', String(process.pid), `--fsize=${bytes}:unlimited`])
}

describe("a pull's index build whose finish step fails", () => {
  it('finish() rejects with a Storage error instead of hanging; the next open rebuilds the index', async () => {
    const cache = openCache(file, { checkpointer: false })
    cache.ensureScope('all', { callTypes: [], direction: null, results: 'all', hasNewRequest: null, includeAnalysis: true })
    await cache.bulk.startIndexBuild()
    for (let p = 0; p < 6; p++) {
      cache.writePage({
        scopeKey: 'all',
        includeAnalysis: true,
        checkpoint: { next: p },
        records: Array.from({ length: 500 }, (_, k) => {
          const i = p * 500 + k
          const at = Date.UTC(2026, 1, 1) + i * 30_000
          return {
            callId: `f${i}`,
            callAt: at,
            callDate: new Date(at).toISOString(),
            title: `iade talebi ${i}`,
            summary: `müşteri ${i % 41} faturasını sordu`,
            analysis: [{ key: 'konu', friendlyName: 'Konu', value: `tarife ${i % 7}` }],
            extra: {}
          }
        })
      })
    }
    // Every batch is in the worker's transaction, none of it on disk yet (its buffer is 8 MB).
    await cache.bulk.indexBuildDrain(0)
    const side = sideFileOf(file)
    let failure: unknown
    setFileSizeLimit(statSync(side).size)
    try {
      const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error('finish() did not settle')), 15_000))
      failure = await Promise.race([cache.bulk.finishIndexBuild(), timeout]).then(
        () => null,
        (e: unknown) => e
      )
    } finally {
      setFileSizeLimit('unlimited')
    }
    expect(failure).toBeInstanceOf(CallsightError)
    expect((failure as CallsightError).code).toBe('Storage')
    expect((failure as CallsightError).message).toMatch(
      /search index of the pull could not be finished: (disk I\/O error|database or disk is full)/
    )
    // The worker is gone, its side file unlocked; the build's mark stays in the cache.
    expect(sideLocked(side)).toBe(false)
    expect(connectionOf(cache).prepare('SELECT count(*) FROM index_build').pluck().get()).toBe(1)
    cache.close()

    const reopened = openCache(file, { checkpointer: false })
    try {
      const found = connectionOf(reopened).prepare("SELECT count(*) FROM calls_fts WHERE calls_fts MATCH 'iade'").pluck().get()
      expect(found).toBe(3000)
      expect(connectionOf(reopened).prepare('SELECT count(*) FROM index_build').pluck().get()).toBe(0)
    } finally {
      reopened.close()
    }
    expect(existsSync(side)).toBe(false)
  })
})
