import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ingest } from '../../../../bench/search'
import { wordsNear } from '../../../../bench/query'
import { openCache, type CallCache } from '../../../../src/core/cache'
import { connectionOf } from '../../../../src/core/cache/call-cache'
import { WHOLE_FILE_MMAP_BYTES } from '../../../../src/core/cache/schema/cache-db'
import { createSearch } from '../../../../src/core/search'
import { SearchQuery } from '../../../../src/shared/domain'

// Every page of the memory map that search touches stays in the process's resident set: with
// the whole file mapped, a search over 5,000,000 calls held ~1.4 GB of file pages besides its
// heap. The map is bounded; pages past it are read through SQLite's page cache, with the
// same answers.
const N = 2000
const MAP_MAX = 256 * 2 ** 20

let dir: string
let file: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'callsight-search-mmap-'))
  file = join(dir, 'cache.db')
  const cache = openCache(file)
  ingest(cache, N, 20, () => {})
  cache.close()
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const mmapOf = (c: CallCache): number => connectionOf(c).pragma('mmap_size', { simple: true }) as number

describe("search's memory map", () => {
  it('maps at most 256 MB of the file, read-only or not, and again after a bulk pull', () => {
    for (const readonly of [true, false]) {
      const cache = openCache(file, { readonly })
      try {
        expect(mmapOf(cache)).toBeGreaterThan(0)
        expect(mmapOf(cache)).toBeLessThanOrEqual(MAP_MAX)
        if (!readonly) {
          cache.bulk.bulkWriting(true)
          expect(mmapOf(cache)).toBe(0)
          cache.bulk.bulkWriting(false)
          expect(mmapOf(cache)).toBeLessThanOrEqual(MAP_MAX)
          expect(mmapOf(cache)).toBeGreaterThan(0)
        }
      } finally {
        cache.close()
      }
    }
  })

  it('answers as the whole file mapped does when nearly every page is read past the map', () => {
    const small = openCache(file, { readonly: true, mmapBytes: 4096 })
    const whole = openCache(file, { readonly: true, mmapBytes: WHOLE_FILE_MMAP_BYTES })
    try {
      expect(mmapOf(small)).toBe(4096)
      const [half] = wordsNear(0.5, 1, N)
      const a = createSearch(small)
      const b = createSearch(whole, { bitmaps: false })
      for (const text of [half!, `${half} language:en`, `-${half}`, 'ka']) {
        const q = SearchQuery.parse({ text })
        expect(a.count(q), text).toBe(b.count(q))
        for (const offset of [0, 700]) {
          expect(
            a.page(q, offset, 100).rows.map((r) => r.callId),
            text
          ).toEqual(b.page(q, offset, 100).rows.map((r) => r.callId))
        }
        expect(a.facets(q, 'sentiment', 'Europe/Istanbul'), text).toEqual(b.facets(q, 'sentiment', 'Europe/Istanbul'))
      }
    } finally {
      whole.close()
      small.close()
    }
  })
})
