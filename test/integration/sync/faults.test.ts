import { afterEach, describe, expect, it } from 'vitest'
import { SyncEngine } from '../../../src/core/sync'
import { expectedIds, FROM_MS, startEnv, storedIds, TO_MS, type SyncEnv } from './helpers'

let env: SyncEnv | null = null
afterEach(async () => {
  await env?.close()
  env = null
})

const scope = { from: FROM_MS, to: TO_MS, results: 'all' as const, includeAnalysis: false }

async function expectExactSet(e: SyncEnv): Promise<void> {
  const want = expectedIds(e.service.admin.dump(), { from: FROM_MS, to: TO_MS, results: 'all' })
  const got = storedIds(e.cache, SyncEngine.keyOf(scope))
  expect(got.length).toBe(want.size)
  expect(new Set(got)).toEqual(want)
}

describe('sync under faults, against the reference service', () => {
  it('ends with the exact set through a 429 storm (the client believes in a higher limit)', async () => {
    env = await startEnv({ calls: 6000, rateLimit: { requests: 4, perSeconds: 1 }, clientLimit: { requests: 40, perSeconds: 1 } })
    const waits: number[] = []
    const final = await env.engine.run(scope, {
      mode: 'full',
      onProgress: (p) => {
        if (p.phase === 'waiting' && p.waitSeconds !== null) waits.push(p.waitSeconds)
      }
    })
    expect(final.error).toBeUndefined()
    expect(env.service.admin.stats().byStatus['429'] ?? 0).toBeGreaterThan(0)
    expect(waits.length).toBeGreaterThan(0)
    await expectExactSet(env)
  })

  it('ends with the exact set when the access token expires in the middle of the sync', async () => {
    env = await startEnv({ calls: 9000, tokenTtlSeconds: 1 })
    // Slow pages, so that the sync outlives several one-second tokens.
    env.service.admin.setFaults({ latencyMs: 250 })
    const final = await env.engine.run(scope, { mode: 'full' })
    expect(final.error, JSON.stringify({ e: final.error, r: env.session.refreshes, s: env.service.admin.stats() })).toBeUndefined()
    expect(env.session.refreshes, JSON.stringify({ requests: final.requests, stats: env.service.admin.stats() })).toBeGreaterThan(0)
    await expectExactSet(env)
  })

  it('ends with the exact set through 5xx responses and dropped connections', async () => {
    env = await startEnv({ calls: 8000 })
    env.service.admin.setFaults({ errorRate: 0.2, errorStatuses: [500, 502, 503], dropRate: 0.1 })
    const final = await env.engine.run(scope, { mode: 'full' })
    expect(final.error).toBeUndefined()
    const stats = env.service.admin.stats()
    expect((stats.byStatus['500'] ?? 0) + (stats.byStatus['502'] ?? 0) + (stats.byStatus['503'] ?? 0)).toBeGreaterThan(0)
    env.service.admin.clearFaults()
    await expectExactSet(env)
  })

  it('records a failed run with its error when the service keeps failing, and resumes later', async () => {
    env = await startEnv({ calls: 4000 })
    env.service.admin.setFaults({ errorRate: 1, errorStatuses: [503] })
    const failed = await env.engine.run(scope, { mode: 'full' })
    expect(failed.phase).toBe('failed')
    expect(failed.error?.code).toBe('ServerError')
    expect(env.cache.recentRuns(1)[0]!.outcome).toBe('failed')
    env.service.admin.clearFaults()
    const done = await env.engine.run(scope, { mode: 'full' })
    expect(done.error).toBeUndefined()
    await expectExactSet(env)
  })
})
