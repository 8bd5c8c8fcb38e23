import { afterEach, describe, expect, it } from 'vitest'
import { FROM_MS, startEnv, TO_MS, type SyncEnv } from './helpers'
import { connectionOf } from '../../../src/core/cache/call-cache'

let env: SyncEnv | null = null
afterEach(async () => {
  await env?.close()
  env = null
})

// Every page's transaction adds a segment to the FTS5 index; left unmerged, a common word's
// first page costs ~100x more. A finished run merges them into one.
const segments = (e: SyncEnv): number =>
  (connectionOf(e.cache).prepare('SELECT count(DISTINCT segid) AS n FROM calls_fts_idx').get() as { n: number }).n

describe('full-text index after a sync', () => {
  it('is merged into a single segment when the run finishes', async () => {
    env = await startEnv({ calls: 2500 })
    const final = await env.engine.run({ from: FROM_MS, to: TO_MS, results: 'all', includeAnalysis: false }, { mode: 'full' })
    expect(final.error).toBeUndefined()
    expect(final.requests).toBeGreaterThan(3)
    expect(segments(env)).toBe(1)
  })
})
