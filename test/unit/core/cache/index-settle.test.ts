import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openCache, type CallCache } from '../../../../src/core/cache'
import { connectionOf } from '../../../../src/core/cache/call-cache'
import { createSearch } from '../../../../src/core/search'
import { SearchQuery, type CallRecord } from '../../../../src/shared/domain'

const FILTERS = { callTypes: [], direction: null, results: 'all' as const, hasNewRequest: null, includeAnalysis: true }

function rec(i: number): CallRecord {
  return {
    callId: `call-${i}`,
    callAt: Date.UTC(2025, 0, 1) + i * 60_000,
    callDate: '2025-01-01T00:00:00+03:00',
    title: `Başlık ${i}`,
    summary: `Özet fatura kelime${i % 7} iz${i}`,
    analysis: [{ key: 'score', friendlyName: 'Skor', value: String(i % 10) }],
    extra: {}
  }
}

let dir: string
let cache: CallCache
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'callsight-index-settle-'))
  cache = openCache(join(dir, 'c.sqlite'))
  cache.ensureScope('s', FILTERS)
})
afterEach(() => {
  cache.close()
  rmSync(dir, { recursive: true, force: true })
})

/** One transaction per page: each adds a full-text segment, as a sync's commits do. */
function write(from: number, pages: number, perPage: number): number {
  for (let p = 0; p < pages; p++) {
    const start = from + p * perPage
    cache.writePages([
      { scopeKey: 's', records: Array.from({ length: perPage }, (_, k) => rec(start + k)), includeAnalysis: true, checkpoint: null }
    ])
  }
  return pages * perPage
}

/** Full-text segments, largest first, as [segid, index entries]. */
function segments(): Array<[number, number]> {
  return (
    connectionOf(cache).prepare('SELECT segid, count(*) AS n FROM calls_fts_idx GROUP BY segid ORDER BY n DESC, segid').all() as Array<{
      segid: number
      n: number
    }>
  ).map((r) => [r.segid, r.n])
}

function count(text: string): number {
  return createSearch(cache).count(SearchQuery.parse({ text, results: 'all' }))
}

describe('the full-text index after a run (settleIndex)', () => {
  it('merges everything after a run that wrote a large share, and only the small segments after small runs', () => {
    const first = write(0, 12, 250)
    expect(segments().length).toBeGreaterThan(1)
    expect(cache.settleIndex(first)).toBe('optimized')
    const [big] = segments()
    expect(segments()).toHaveLength(1)

    // Twelve small runs of one commit each: without merging they would leave thirteen segments.
    let next = first
    for (let run = 0; run < 12; run++) {
      const wrote = write(next, 1, 20)
      next += wrote
      expect(cache.settleIndex(wrote)).toBe('merged')
      // The large segment is never rewritten by a small run's end.
      expect(segments().map(([id]) => id)).toContain(big![0])
    }
    const after = segments()
    expect(after.length).toBeLessThanOrEqual(7)
    expect(after[0]).toEqual(big)
    // The answers are the index's whatever its segments.
    expect(count('fatura')).toBe(next)
    expect(count(`iz${next - 1}`)).toBe(1)
    expect(count(`iz${first - 1}`)).toBe(1)
    expect(count('kelime3')).toBe(Array.from({ length: next }, (_, i) => i).filter((i) => i % 7 === 3).length)

    // A run past the share merges the whole index again.
    const large = write(next, 2, 250)
    expect(cache.settleIndex(large)).toBe('optimized')
    expect(segments()).toHaveLength(1)
    expect(count('fatura')).toBe(next + large)
  })

  it('does nothing after a run that wrote nothing', () => {
    write(0, 3, 100)
    const before = segments()
    expect(cache.settleIndex(0)).toBe('none')
    expect(segments()).toEqual(before)
  })
})
