import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openCache, type CallCache } from '../../../../src/core/cache'
import { WAL_SAFETY_PAGES } from '../../../../src/core/cache/ingest/wal-checkpointer'
import { until } from '../../../support/until'
import { connectionOf } from '../../../../src/core/cache/call-cache'

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
    cache.review.annotations.write(
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
      expect(connectionOf(cache).pragma('wal_autocheckpoint', { simple: true })).toBe(WAL_SAFETY_PAGES)
      const pageSize = connectionOf(cache).pragma('page_size', { simple: true }) as number
      const logs: number[] = []
      cache.checkpointer!.onCheckpoint((r) => {
        expect(r.checkpointed).toBe(r.log)
        logs.push(r.log)
      })
      // Eight rounds: under load a checkpoint can land while a round still writes, and the WAL then
      // restarts only after the next one (two rounds' frames), which must still be well below all.
      const rounds = 8
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
    expect(reopened.prepare('SELECT count(*) FROM annotations').pluck().get()).toBe(8 * 60)
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
      expect(connectionOf(cache).pragma('wal_autocheckpoint', { simple: true })).toBe(1000)
    } finally {
      cache.close()
    }
    expect(walBytes(file)).toBe(0)
  })

  it("has closed its connection when the cache's close returns: nothing is left beside the file, and nothing comes back", async () => {
    const file = join(dir, 'c.db')
    const cache = openCache(file, { checkpointer: { idleMs: 20, pollMs: 5 } })
    saves(cache, 0, 30)
    // A checkpoint reported: the worker's connection is open.
    await until(() => (cache.checkpointer!.checkpoints > 0 ? true : undefined), 20_000, 5)
    expect(cache.checkpointer!.connection).toBe('open')
    saves(cache, 100, 5)
    const checkpointer = cache.checkpointer!
    cache.close()
    expect(checkpointer.connection).toBe('closed')
    // Before the fix the worker's connection outlived the close: the WAL and shared-memory
    // files stayed until it ended, and removing the folder raced with it.
    expect(readdirSync(dir)).toEqual(['c.db'])
    await new Promise((r) => setTimeout(r, 100))
    expect(readdirSync(dir)).toEqual(['c.db'])
  })

  it('closed before its worker started: the worker never opens the file', async () => {
    const files = [0, 1, 2, 3, 4].map((i) => join(dir, `c${i}.db`))
    const checkpointers = files.map((file) => {
      const cache = openCache(file, { checkpointer: { idleMs: 20, pollMs: 5 } })
      cache.close()
      return cache.checkpointer!
    })
    // A worker that opened the file after the close made its WAL and shared-memory files
    // appear for a moment (the folder's removal then failed): watch the folder meanwhile.
    const seen = new Set<string>()
    const until = Date.now() + 600
    while (Date.now() < until) {
      for (const f of readdirSync(dir)) seen.add(f)
      await new Promise((r) => setImmediate(r))
    }
    expect([...seen].sort()).toEqual(files.map((f) => f.slice(dir.length + 1)).sort())
    expect(checkpointers.map((c) => c.connection)).toEqual(files.map(() => 'closed'))
  })
})
