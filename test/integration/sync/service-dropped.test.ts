import { afterEach, describe, expect, it } from 'vitest'
import { SyncEngine } from '../../../src/core/sync'
import { FROM_MS, startEnv, storedIds, TO_MS, type SyncEnv } from './helpers'

// A call the service stops returning (the reference service's removeCalls hook) keeps its
// annotation, and a sync over a range that covers it marks it dropped by the service, which
// is not the same as "not in the cache" (docs/review.md).

let env: SyncEnv | null = null
afterEach(async () => {
  await env?.close()
  env = null
})

describe('calls the service no longer returns', () => {
  it('are marked on their annotation by a sync over their range, once, and other calls are not', async () => {
    env = await startEnv({ calls: 600, lookbackHours: 48 })
    const { cache, engine, service } = env
    const scope = { from: FROM_MS, to: TO_MS, results: 'all' as const, includeAnalysis: false }
    const key = SyncEngine.keyOf(scope)
    expect((await engine.run(scope, { mode: 'full' })).error).toBeUndefined()
    const ids = storedIds(cache, key)
    const [dropped, kept, plain] = [ids[10]!, ids[20]!, ids[30]!]
    for (const id of [dropped, kept]) cache.review.annotations.write(id, { status: 'reviewed' }, { author: 'a', at: 1, history: false })

    expect(service.admin.removeCalls([dropped, plain])).toBe(2)
    expect((await engine.run(scope, { mode: 'full' })).error).toBeUndefined()
    const a = cache.review.annotations.get(dropped)!
    expect(a.serviceDroppedAt).not.toBeNull()
    // Still in the cache: dropped by the service is not "not in the cache".
    expect(a.callMissing).toBe(false)
    expect(a.status).toBe('reviewed')
    expect(cache.review.annotations.get(kept)!.serviceDroppedAt).toBeNull()
    expect(cache.review.annotations.get(plain)).toBeNull()

    // Another pass keeps the time it was first found dropped.
    const other = { from: FROM_MS, to: FROM_MS + 3_600_000, results: 'all' as const, includeAnalysis: false }
    expect((await engine.run(other, { mode: 'full' })).error).toBeUndefined()
    expect(cache.review.annotations.get(dropped)!.serviceDroppedAt).toBe(a.serviceDroppedAt)
  })
})
