import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openCache, type CallCache } from '../../../../src/core/cache'
import { WAL_SAFETY_PAGES } from '../../../../src/core/cache/wal-checkpointer'
import { until } from '../../../support/until'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'callsight-wal-'))
})
afterEach(() => {
  rmSync(dir, { recursive: true, force: true })
})

const walBytes = (file: string): number => (existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0)

/** `count` saves, each its own transaction, as the review panel makes them. */
function saves(cache: CallCache, from: number, count: number): void {
  for (let i = from; i < from + count; i++) {
    cache.annotations.write(
      `C${i}`,
      { status: 'reviewed', note: `note ${i} `.repeat(20), tags: [`t${i % 7}`] },
      { author: 'a', at: i, history: true }
    )
  }
}

describe('WAL checkpointer (a worker with its own connection)', () => {
  it('keeps the WAL bounded across many writes by checkpointing when the cache is idle', async () => {
    const file = join(dir, 'c.db')
    const cache = openCache(file, { checkpointer: { idleMs: 40, pollMs: 10 } })
    try {
      expect(cache.checkpointer?.running).toBe(true)
      expect(cache.db.pragma('wal_autocheckpoint', { simple: true })).toBe(WAL_SAFETY_PAGES)
      const pageSize = cache.db.pragma('page_size', { simple: true }) as number
      const logs: number[] = []
      cache.checkpointer!.onCheckpoint((r) => {
        expect(r.checkpointed).toBe(r.log)
        logs.push(r.log)
      })
      const rounds = 6
      for (let r = 0; r < rounds; r++) {
        const before = logs.length
        saves(cache, r * 60, 60)
        await until(() => (logs.length > before ? true : undefined), 20_000, 10)
      }
      const written = rounds * 60
      // Every round's frames were checkpointed, and the WAL started again after each: it holds
      // about one round's frames, where without the checkpointer (the safety net alone, 10,000
      // pages) it would hold every round's.
      const total = logs.reduce((a, b) => a + b, 0)
      const wal = walBytes(file) / (pageSize + 24)
      expect(logs.length).toBeGreaterThanOrEqual(rounds)
      expect(total).toBeGreaterThan(rounds * 100)
      expect(total).toBeLessThan(WAL_SAFETY_PAGES)
      expect(wal).toBeLessThanOrEqual(Math.max(...logs) + 1)
      expect(wal).toBeLessThan(total / 3)
      // A fresh connection reads everything the cache wrote.
      const fresh = new Database(file, { readonly: true })
      expect(fresh.prepare('SELECT count(*) FROM annotations').pluck().get()).toBe(written)
      fresh.close()
    } finally {
      cache.close()
    }
    expect(walBytes(file)).toBe(0)
    const reopened = new Database(file, { readonly: true })
    expect(reopened.prepare('SELECT count(*) FROM annotations').pluck().get()).toBe(360)
    reopened.close()
  })

  it('does not checkpoint while writes go on, only after they pause', async () => {
    const file = join(dir, 'c.db')
    const cache = openCache(file, { checkpointer: { idleMs: 300, maxDirtyMs: 60_000, pollMs: 10 } })
    try {
      saves(cache, 0, 20)
      // Writes every 50 ms for a second: never idle for 300 ms.
      for (let i = 0; i < 20; i++) {
        await new Promise((r) => setTimeout(r, 50))
        saves(cache, 100 + i, 1)
      }
      expect(cache.checkpointer!.checkpoints).toBe(0)
      await until(() => (cache.checkpointer!.checkpoints > 0 ? true : undefined), 20_000, 10)
    } finally {
      cache.close()
    }
  })

  it('without it, SQLite checkpoints on the committing connection as before', () => {
    const file = join(dir, 'c.db')
    const cache = openCache(file, { checkpointer: false })
    try {
      expect(cache.checkpointer).toBeNull()
      expect(cache.db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000)
    } finally {
      cache.close()
    }
    expect(walBytes(file)).toBe(0)
  })
})
