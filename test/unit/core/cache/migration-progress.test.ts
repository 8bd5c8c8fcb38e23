import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { openCache, type MigrationProgress } from '../../../../src/core/cache'
import { createSearch } from '../../../../src/core/search'
import { migrationProgress } from '../../../../src/cli/migration-progress'
import { SearchQuery, type CallRecord } from '../../../../src/shared/domain'

// Migrations 7 and 17 rebuild the whole search index at the first open: minutes at 1,000,000 calls.
// Opening says how far it is (the CLI prints it, the app logs it).

let dir: string | null = null
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true })
  dir = null
})

function call(i: number): CallRecord {
  const at = Date.UTC(2025, 0, 1) + i * 1000
  return {
    callId: `m-${i}`,
    callAt: at,
    callDate: new Date(at).toISOString(),
    title: i % 3 === 0 ? 'Fatura itirazı' : 'Kargo gecikti',
    summary: `görüşme ${i}`,
    analysis: [{ key: 'sentiment', friendlyName: 'Duygu', value: i % 2 ? 'olumlu' : 'olumsuz' }],
    extra: {}
  }
}

describe('migration progress', () => {
  it('counts the index rebuild of every call, in order, to its end, and the index answers after', () => {
    dir = mkdtempSync(join(tmpdir(), 'callsight-migrate-'))
    const file = join(dir, 'cache.db')
    const old = openCache(file, { schemaVersion: 6 })
    old.ensureScope('all', { callTypes: [], direction: null, results: 'answered', hasNewRequest: null, includeAnalysis: true })
    const n = 12_345
    for (let i = 0; i < n; i += 100)
      old.writePage({
        scopeKey: 'all',
        records: Array.from({ length: Math.min(100, n - i) }, (_, k) => call(i + k)),
        includeAnalysis: true,
        checkpoint: { i }
      })
    old.close()

    const seen: MigrationProgress[] = []
    const cache = openCache(file, { onMigrationProgress: (p) => seen.push(p) })
    try {
      // Migrations 7 and 17 each rebuild the index, each counted from its start to its end;
      // 19 converts the analysis items, counted by call.
      expect(seen.map((p) => p.version).filter((v, k, all) => all.indexOf(v) === k)).toEqual([7, 17, 19])
      const lists = seen.filter((p) => p.version === 19)
      for (let k = 1; k < lists.length; k++) expect(lists[k]!.done).toBeGreaterThan(lists[k - 1]!.done)
      expect(lists.at(-1)!.done).toBe(lists[0]!.total)
      expect(lists[0]!.total).toBeGreaterThan(n)
      for (const version of [7, 17]) {
        const mine = seen.filter((p) => p.version === version)
        expect(mine.length).toBeGreaterThan(2)
        const total = mine[0]!.total
        expect(mine.every((p) => p.total === total)).toBe(true)
        expect(total).toBeGreaterThan(n)
        for (let k = 1; k < mine.length; k++) expect(mine[k]!.done).toBeGreaterThan(mine[k - 1]!.done)
        expect(mine.at(-1)!.done).toBe(total)
        expect(mine.at(-2)!.done).toBe(n)
      }
      expect(createSearch(cache).count(SearchQuery.parse({ text: 'fatura' }))).toBe(Math.ceil(n / 3))
    } finally {
      cache.close()
    }
    // Opened again: nothing to migrate, nothing said.
    const again: MigrationProgress[] = []
    openCache(file, { onMigrationProgress: (p) => again.push(p) }).close()
    expect(again).toEqual([])
  })

  it('says nothing when it creates a cache: a new file has no index to rebuild', () => {
    dir = mkdtempSync(join(tmpdir(), 'callsight-migrate-'))
    const seen: MigrationProgress[] = []
    openCache(join(dir, 'new.db'), { onMigrationProgress: (p) => seen.push(p) }).close()
    expect(seen).toEqual([])
  })

  it('the CLI prints a line per tenth on a pipe, one redrawn line on a terminal', () => {
    const lines: string[] = []
    const pipe = migrationProgress({ out: () => {}, err: (t) => lines.push(t), tty: false })
    for (let done = 0; done <= 1000; done += 50) pipe({ version: 7, done, total: 1000 })
    expect(lines).toHaveLength(11)
    expect(lines[5]).toBe('Updating the cache to schema 7: rebuilding the search index, 50% (500 of 1,000 steps)\n')
    const drawn: string[] = []
    const tty = migrationProgress({ out: () => {}, err: (t) => drawn.push(t), tty: true })
    tty({ version: 7, done: 10, total: 20 })
    tty({ version: 7, done: 20, total: 20 })
    expect(drawn[0]!.startsWith('\r\x1b[2K')).toBe(true)
    expect(drawn[1]!.endsWith('100% (20 of 20 steps)\n')).toBe(true)
  })
})
