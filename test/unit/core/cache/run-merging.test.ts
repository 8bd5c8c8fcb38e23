import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openCache, type CallCache } from '../../../../src/core/cache'
import { connectionOf } from '../../../../src/core/cache/call-cache'
import { FTS_CRISIS_MERGE } from '../../../../src/core/cache/ingest/fts-buffer'
import { LONG_RUN_CRISIS_MERGE, RunMerging } from '../../../../src/core/cache/ingest/run-merging'
import { createSearch } from '../../../../src/core/search'
import { SearchQuery, type CallRecord } from '../../../../src/shared/domain'

const FILTERS = { callTypes: [], direction: null, results: 'all' as const, hasNewRequest: null, includeAnalysis: true }

function rec(i: number): CallRecord {
  return {
    callId: `call-${i}`,
    callAt: Date.UTC(2025, 0, 1) + i * 60_000,
    callDate: '2025-01-01T00:00:00+03:00',
    title: `Başlık ${i}`,
    summary: `fatura iz${i}`,
    analysis: [],
    extra: {}
  }
}

let dir: string
let cache: CallCache
const file = (): string => join(dir, 'c.sqlite')
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'callsight-run-merging-'))
  cache = openCache(file())
  cache.ensureScope('s', FILTERS)
})
afterEach(() => {
  cache.close()
  rmSync(dir, { recursive: true, force: true })
})

/** One transaction of `n` new calls from `from`, as a sync's pages that arrived together. */
function commit(from: number, n: number): number {
  cache.writePages([
    { scopeKey: 's', records: Array.from({ length: n }, (_, k) => rec(from + k)), includeAnalysis: true, checkpoint: null }
  ])
  return n
}

/** The 'crisismerge' stored for each full-text index (null: FTS5's default, never set). */
function crisisMerge(db: Database.Database = connectionOf(cache)): Array<number | null> {
  return ['calls_fts', 'calls_fts_short'].map(
    (t) => (db.prepare(`SELECT v FROM ${t}_config WHERE k = 'crisismerge'`).pluck().get() as number | undefined) ?? null
  )
}

function segments(table: string): number {
  return connectionOf(cache).prepare(`SELECT count(DISTINCT segid) FROM ${table}_idx`).pluck().get() as number
}

function count(text: string): number {
  return createSearch(cache).count(SearchQuery.parse({ text, results: 'all' }))
}

describe("FTS5's merging while a long run writes (RunMerging)", () => {
  it('merges segments 64 at a time once a run is long, every call findable, and merges all at its end', () => {
    const merging = new RunMerging(connectionOf(cache), 100)
    let written = 0
    // A short run first: FTS5's own setting.
    merging.committed(commit(written, 50))
    written += 50
    expect(merging.isLong).toBe(false)
    expect(crisisMerge()).toEqual([null, null])
    merging.committed(commit(written, 50))
    written += 50
    expect(merging.isLong).toBe(true)
    expect(crisisMerge()).toEqual([LONG_RUN_CRISIS_MERGE, LONG_RUN_CRISIS_MERGE])
    // Twenty more commits: with FTS5's 16 they would have been merged into one at the sixteenth.
    for (let t = 0; t < 20; t++) {
      merging.committed(commit(written, 10))
      written += 10
      expect(count('fatura')).toBe(written)
      expect(count(`iz${written - 1}`)).toBe(1)
    }
    expect(segments('calls_fts')).toBeGreaterThan(FTS_CRISIS_MERGE)
    expect(segments('calls_fts_short')).toBeGreaterThan(FTS_CRISIS_MERGE)
    expect(cache.settleIndex(written)).toBe('optimized')
    merging.settled()
    expect(merging.isLong).toBe(false)
    expect(crisisMerge()).toEqual([FTS_CRISIS_MERGE, FTS_CRISIS_MERGE])
    expect(segments('calls_fts')).toBe(1)
    expect(count('fatura')).toBe(written)
  })

  it('does not count a run as long while it wrote less than a tenth of the cache', () => {
    let written = 0
    for (let t = 0; t < 10; t++) written += commit(written, 100)
    const merging = new RunMerging(connectionOf(cache), 50)
    merging.committed(commit(written, 60))
    expect(merging.isLong).toBe(false)
    merging.committed(commit(written + 60, 60))
    expect(merging.isLong).toBe(true)
  })

  it("is the cache's own during a sync's long run, whose end merges only its small segments when the index is then few", () => {
    cache.close()
    cache = openCache(file(), { longRunCalls: 2000 })
    let written = 0
    // Sixteen commits with FTS5's setting: merged into one at the sixteenth.
    while (written < 1900) written += commit(written, 100)
    expect(crisisMerge()).toEqual([null, null])
    expect(segments('calls_fts')).toBe(4)
    written += commit(written, 100)
    expect(crisisMerge()).toEqual([LONG_RUN_CRISIS_MERGE, LONG_RUN_CRISIS_MERGE])
    for (let t = 0; t < 20; t++) written += commit(written, 100)
    expect(segments('calls_fts')).toBe(25)
    expect(count(`iz${written - 1}`)).toBe(1)
    // The run's 24 small segments become one beside the large one, instead of all being rewritten.
    expect(cache.settleIndex(written)).toBe('merged')
    expect(segments('calls_fts')).toBe(2)
    expect(segments('calls_fts_short')).toBe(2)
    expect(crisisMerge()).toEqual([FTS_CRISIS_MERGE, FTS_CRISIS_MERGE])
    expect(count('fatura')).toBe(written)
    expect(count(`iz${written - 1}`)).toBe(1)
    expect(count('iz0')).toBe(1)
  })

  it('merges the whole index at the end of a run that is not long, and leaves a long one that ends with few segments', () => {
    cache.close()
    cache = openCache(file(), { longRunCalls: 1000 })
    let written = 0
    // Not long (under its calls): merged into one as before.
    for (let t = 0; t < 5; t++) written += commit(written, 100)
    expect(cache.settleIndex(written)).toBe('optimized')
    expect(segments('calls_fts')).toBe(1)
    // Long, ending with 11 segments: none is rewritten.
    let run = 0
    for (let t = 0; t < 10; t++) run += commit(written + run, 100)
    written += run
    expect(segments('calls_fts')).toBe(11)
    expect(cache.settleIndex(run)).toBe('merged')
    expect(segments('calls_fts')).toBe(11)
  })

  it('is put back by the next open after a long run that never ended', () => {
    cache.close()
    cache = openCache(file(), { longRunCalls: 400 })
    const written = commit(0, 400)
    expect(crisisMerge()).toEqual([LONG_RUN_CRISIS_MERGE, LONG_RUN_CRISIS_MERGE])
    cache.close()
    const seen = new Database(file(), { readonly: true })
    try {
      expect(crisisMerge(seen)).toEqual([LONG_RUN_CRISIS_MERGE, LONG_RUN_CRISIS_MERGE])
    } finally {
      seen.close()
    }
    cache = openCache(file(), { longRunCalls: 400 })
    expect(crisisMerge()).toEqual([FTS_CRISIS_MERGE, FTS_CRISIS_MERGE])
    expect(count('fatura')).toBe(written)
  })
})
