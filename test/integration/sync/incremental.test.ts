import { afterEach, describe, expect, it } from 'vitest'
import { SyncEngine } from '../../../src/core/sync'
import { expectedIds, FROM_MS, startEnv, storedIds, TO_MS, type SyncEnv } from './helpers'

let env: SyncEnv | null = null
afterEach(async () => {
  await env?.close()
  env = null
})

describe('incremental sync against the reference service', () => {
  it('picks up added calls and late analysis within the look-back, and fetches less than a full sync', async () => {
    env = await startEnv({ calls: 2500, lookbackHours: 48 })
    const scope = { from: FROM_MS, to: TO_MS, results: 'all' as const, includeAnalysis: true }
    const key = SyncEngine.keyOf(scope)
    const first = await env.engine.run(scope, { mode: 'incremental' })
    expect(first.error).toBeUndefined()
    expect(env.cache.coverage(key)).toEqual([[FROM_MS, TO_MS]])

    env.service.admin.addCalls(40, { from: '2026-01-05T08:00:00Z', to: '2026-01-05T17:00:00Z' })
    const changed = env.service.admin.updateCalls(25)
    const second = await env.engine.run(scope, { mode: 'incremental' })
    expect(second.error).toBeUndefined()
    const dump = env.service.admin.dump()
    const want = expectedIds(dump, { from: FROM_MS, to: TO_MS, results: 'all' })
    expect(new Set(storedIds(env.cache, key))).toEqual(want)
    for (const id of changed) {
      const served = dump.find((d) => d.callId === id)!
      const cached = env.cache.getCall(id)!
      expect(cached.summary).toBe(served.summary)
      expect(cached.analysis).toEqual(served.analysis)
    }
  })

  it('re-fetches only the look-back before the covered end', async () => {
    env = await startEnv({ calls: 3000, lookbackHours: 2 })
    const scope = { from: FROM_MS, to: TO_MS, results: 'all' as const, includeAnalysis: false }
    const key = SyncEngine.keyOf(scope)
    const full = await env.engine.run(scope, { mode: 'full' })
    env.service.admin.addCalls(30, { from: '2026-01-05T16:30:00Z', to: '2026-01-05T17:59:00Z' })
    const inc = await env.engine.run(scope, { mode: 'incremental' })
    expect(inc.error).toBeUndefined()
    // 3000 calls over 12 hours; the last 2 hours hold about a sixth.
    expect(inc.stored).toBeLessThan(full.stored / 3)
    expect(inc.stored).toBeGreaterThanOrEqual(30)
    expect(new Set(storedIds(env.cache, key))).toEqual(expectedIds(env.service.admin.dump(), { from: FROM_MS, to: TO_MS, results: 'all' }))
  })
})
