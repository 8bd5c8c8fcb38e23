import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSearchReader, openCache, type CallCache } from '../../../../src/core/cache'
import { DataWatch, PerVersion } from '../../../../src/core/search/data-watch'

// A count reads common words' sets to keep only on a cache at rest: the data unchanged for a
// while since the sets were made for it. While a sync writes, each version would read them
// again for nothing.

let dir = ''
let cache: CallCache

const write = (id: string): void => {
  cache.writePage({
    scopeKey: 'all',
    records: [
      { callId: id, callAt: Date.UTC(2026, 4, 1), callDate: '2026-05-01T00:00:00.000Z', title: 't', summary: 's', analysis: [], extra: {} }
    ],
    includeAnalysis: true,
    checkpoint: null
  })
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'callsight-at-rest-'))
  cache = openCache(join(dir, 'cache.db'))
  cache.ensureScope('all', { callTypes: [], direction: null, results: 'answered', hasNewRequest: null, includeAnalysis: true })
  write('a')
})
afterAll(() => {
  cache?.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('PerVersion.atRest', () => {
  it('is true only once the data stayed as it was built for long enough, and false again after a write', () => {
    let now = 1_000
    const watch = new DataWatch(createSearchReader(cache).data)
    let builds = 0
    const kept = new PerVersion(
      watch,
      () => ++builds,
      () => now
    )
    expect(kept.atRest(10_000)).toBe(false) // never built
    kept.get()
    now += 9_999
    expect(kept.atRest(10_000)).toBe(false)
    now += 1
    expect(kept.atRest(10_000)).toBe(true)
    // Asking does not build.
    expect(builds).toBe(1)
    write('b')
    now += 60_000
    expect(kept.atRest(10_000)).toBe(false)
    kept.get()
    expect(builds).toBe(2)
    expect(kept.atRest(10_000)).toBe(false)
    now += 10_000
    expect(kept.atRest(10_000)).toBe(true)
  })
})
