import { afterEach, describe, expect, it } from 'vitest'
import { PIPELINE_DEPTH, SyncEngine } from '../../../src/core/sync'
import { budget } from '../../support/budget'
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
  it('ends with the exact set through a 429 storm (the client believes in a higher limit)', budget(10_000), async () => {
    // The service allows 2 requests a second, fewer than the sync sends at once (its pipeline
    // launches PIPELINE_DEPTH pages together): one is refused however fast or slow the machine
    // runs. At 4 a second a loaded machine never asked fast enough to draw a single 429.
    expect(PIPELINE_DEPTH).toBeGreaterThan(2)
    env = await startEnv({ calls: 6000, rateLimit: { requests: 2, perSeconds: 1 }, clientLimit: { requests: 40, perSeconds: 1 } })
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

  it('ends with the exact set when the access token expires in the middle of the sync', budget(4_500), async () => {
    // The service's token clock stands still but for two jumps past the token's lifetime,
    // just before the 3rd and the 8th page request leave: the token in hand expires there, at
    // those pages, however fast or slow the machine runs, and every refreshed token holds.
    const TTL_S = 60
    let tokenNow = Date.now()
    let pageRequests = 0
    env = await startEnv({
      calls: 9000,
      tokenTtlSeconds: TTL_S,
      tokenClock: () => tokenNow,
      wrapFetch: (f) => (input, init) => {
        if (String(input).includes('get-calls') && [3, 8].includes(++pageRequests)) tokenNow += (TTL_S + 1) * 1000
        return f(input, init)
      }
    })
    const final = await env.engine.run(scope, { mode: 'full' })
    const seen = JSON.stringify({ e: final.error, requests: final.requests, stats: env.service.admin.stats() })
    expect(final.error, seen).toBeUndefined()
    expect(pageRequests, seen).toBeGreaterThan(8)
    // Each expiry: a 401, one shared refresh, the page retried.
    expect(env.session.refreshes, seen).toBe(2)
    expect(env.service.admin.stats().byStatus['401'], seen).toBeGreaterThanOrEqual(2)
    await expectExactSet(env)
  })

  it('ends with the exact set through 5xx responses and dropped connections', budget(4_000), async () => {
    env = await startEnv({ calls: 8000 })
    env.service.admin.setFaults({ errorRate: 0.2, errorStatuses: [500, 502, 503], dropRate: 0.1 })
    const final = await env.engine.run(scope, { mode: 'full' })
    expect(final.error).toBeUndefined()
    const stats = env.service.admin.stats()
    expect((stats.byStatus['500'] ?? 0) + (stats.byStatus['502'] ?? 0) + (stats.byStatus['503'] ?? 0)).toBeGreaterThan(0)
    env.service.admin.clearFaults()
    await expectExactSet(env)
  })

  it('records a failed run with its error when the service keeps failing, and resumes later', budget(3_500), async () => {
    env = await startEnv({ calls: 4000 })
    env.service.admin.setFaults({ errorRate: 1, errorStatuses: [503] })
    const failed = await env.engine.run(scope, { mode: 'full' })
    expect(failed.phase).toBe('failed')
    expect(failed.error?.code).toBe('ServerError')
    expect(env.cache.sync.recentRuns(1)[0]!.outcome).toBe('failed')
    env.service.admin.clearFaults()
    const done = await env.engine.run(scope, { mode: 'full' })
    expect(done.error).toBeUndefined()
    await expectExactSet(env)
  })
})
