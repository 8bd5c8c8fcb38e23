import { afterEach, describe, expect, it } from 'vitest'
import { SyncEngine, type SyncSource } from '../../../src/core/sync'
import { silentLogger, systemClock } from '../../../src/core/platform/node'
import type { WritePageInput } from '../../../src/core/cache'
import { expectedIds, FROM_MS, startEnv, storedIds, TO_MS, type SyncEnv } from './helpers'

let env: SyncEnv | null = null
afterEach(async () => {
  await env?.close()
  env = null
})

const scope = { from: FROM_MS, to: TO_MS, results: 'all' as const, includeAnalysis: true }

/** Holds the service's answers and lets them go three at a time, as a burst of fast replies would arrive. */
function bursty(inner: SyncSource): SyncSource {
  const waiting: Array<() => void> = []
  const release = (): void => {
    for (const go of waiting.splice(0)) go()
  }
  return {
    async getCalls(params, signal) {
      const page = await inner.getCalls(params, signal)
      await new Promise<void>((resolve) => {
        waiting.push(resolve)
        if (waiting.length >= 3) release()
        else setTimeout(release, 100)
      })
      return page
    }
  }
}

describe('group commit in the sync engine', () => {
  it('stores pages that arrived together in one transaction, and ends with the exact set', async () => {
    env = await startEnv({ calls: 4000 })
    const groups: number[] = []
    const sync = env.cache.sync
    const store = Object.create(sync) as typeof sync
    store.writePages = (inputs: readonly WritePageInput[]) => {
      groups.push(inputs.length)
      return sync.writePages(inputs)
    }
    const engine = new SyncEngine({
      source: bursty(env.session),
      cache: store,
      clock: systemClock,
      logger: silentLogger,
      rateLimit: { requests: 600, perSeconds: 1 }
    })
    const final = await engine.run(scope, { mode: 'full' })
    expect(final.error).toBeUndefined()
    expect(Math.max(...groups)).toBeGreaterThan(1)
    // Every fetched page was stored once, in order: the checkpoint is the last page's.
    expect(groups.reduce((a, b) => a + b, 0)).toBe(final.requests)
    const want = expectedIds(env.service.admin.dump(), { from: FROM_MS, to: TO_MS, results: 'all' })
    const got = storedIds(env.cache, SyncEngine.keyOf(scope))
    expect(got.length).toBe(want.size)
    expect(new Set(got)).toEqual(want)
  })
})
