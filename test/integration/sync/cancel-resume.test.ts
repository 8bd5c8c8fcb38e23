import { afterEach, describe, expect, it } from 'vitest'
import { SyncEngine } from '../../../src/core/sync'
import { prng } from '../../support/prng'
import { allCallIds, expectedIds, FROM_MS, startEnv, storedIds, TO_MS, type SyncEnv } from './helpers'

let env: SyncEnv | null = null
afterEach(async () => {
  await env?.close()
  env = null
})

describe('cancel and resume against the reference service', () => {
  it('cancelled at random moments, then resumed, ends with the exact set and no duplicates', async () => {
    env = await startEnv({ calls: 11_000, denseSeconds: [{ at: '2026-01-05T11:00:00Z', count: 600 }] })
    env.service.admin.setFaults({ latencyMs: 5 })
    const scope = { from: FROM_MS, to: TO_MS, results: 'all' as const, includeAnalysis: false }
    const key = SyncEngine.keyOf(scope)
    const outcomes: string[] = []
    // Seeded: the cancel points repeat from run to run (timing noise aside).
    const random = prng(7)
    for (let i = 0; i < 6; i++) {
      const ac = new AbortController()
      const cancelAfter = 1 + Math.floor(random() * 4)
      let pages = 0
      const final = await env.engine.run(scope, {
        mode: 'full',
        signal: ac.signal,
        onProgress: (p) => {
          if (p.phase === 'fetching' && p.requests > 0 && ++pages === cancelAfter) setTimeout(() => ac.abort(), random() * 15)
        }
      })
      outcomes.push(final.phase)
      if (final.phase === 'done') break
      expect(final.phase).toBe('cancelled')
      expect(final.error?.code).toBe('Cancelled')
      // A new process would open the file anew.
      env.reopen()
    }
    expect(outcomes).toContain('cancelled')
    if (outcomes[outcomes.length - 1] !== 'done') expect((await env.engine.run(scope, { mode: 'full' })).phase).toBe('done')
    const want = expectedIds(env.service.admin.dump(), { from: FROM_MS, to: TO_MS, results: 'all' })
    const got = storedIds(env.cache, key)
    expect(got.length).toBe(want.size)
    expect(new Set(got)).toEqual(want)
    expect(allCallIds(env.cache).length).toBe(want.size)
    const runs = env.cache.sync.recentRuns(20)
    expect(runs.filter((r) => r.outcome === 'cancelled').length).toBeGreaterThan(0)
    expect(runs[0]!.outcome).toBe('done')
    expect(env.cache.sync.getCheckpoint(key)).toBeNull()
  })
})

describe('newest first against the reference service', () => {
  it.each(['newest', 'oldest'] as const)(
    'a cancel mid-way leaves the %s calls cached; the resumed run adds the rest, each once',
    async (order) => {
      env = await startEnv({ calls: 6_000, denseSeconds: [{ at: '2026-01-05T16:00:00Z', count: 700 }] })
      env.service.admin.setFaults({ latencyMs: 5 })
      const scope = { from: FROM_MS, to: TO_MS, results: 'all' as const, includeAnalysis: false }
      const key = SyncEngine.keyOf(scope)
      const ac = new AbortController()
      const cancelled = await env.engine.run(scope, {
        mode: 'full',
        order,
        signal: ac.signal,
        onProgress: (p) => {
          if (p.phase === 'fetching' && p.stored >= 1_500) ac.abort()
        }
      })
      expect(cancelled.phase).toBe('cancelled')
      const dump = env.service.admin.dump().filter((d) => {
        const at = Date.parse(d.callDate)
        return at >= FROM_MS && at < TO_MS
      })
      const at = new Map(dump.map((d) => [d.callId, Date.parse(d.callDate)]))
      const kept = new Set(storedIds(env.cache, key))
      expect(kept.size).toBeGreaterThanOrEqual(1_500)
      expect(kept.size).toBeLessThan(dump.length)
      // Everything kept is at least as new (newest first) or as old (oldest first) as anything
      // not yet fetched: the cache holds that end of the range, not scattered calls.
      const keptTimes = [...kept].map((id) => at.get(id)!)
      const missingTimes = dump.filter((d) => !kept.has(d.callId)).map((d) => at.get(d.callId)!)
      if (order === 'newest') expect(Math.min(...keptTimes)).toBeGreaterThanOrEqual(Math.max(...missingTimes))
      else expect(Math.max(...keptTimes)).toBeLessThanOrEqual(Math.min(...missingTimes))
      expect(env.cache.coverage(key)).toEqual([])

      env.reopen()
      // The resumed pass keeps its order whatever the new run asks for.
      const final = await env.engine.run(scope, { mode: 'full', order: order === 'newest' ? 'oldest' : 'newest' })
      expect(final).toMatchObject({ phase: 'done', order })
      const got = storedIds(env.cache, key)
      expect(got.length).toBe(dump.length)
      expect(new Set(got)).toEqual(new Set(dump.map((d) => d.callId)))
      expect(allCallIds(env.cache).length).toBe(dump.length)
      expect(env.cache.coverage(key)).toEqual([[FROM_MS, TO_MS]])
    }
  )
})

describe('cancel before the first page', () => {
  it('records the run as cancelled and covers nothing', async () => {
    env = await startEnv({ calls: 500 })
    const scope = { from: FROM_MS, to: TO_MS, results: 'all' as const, includeAnalysis: false }
    const ac = new AbortController()
    ac.abort()
    const final = await env.engine.run(scope, { mode: 'full', signal: ac.signal })
    expect(final.phase).toBe('cancelled')
    expect(env.cache.coverage(SyncEngine.keyOf(scope))).toEqual([])
    expect(env.cache.sync.recentRuns(1)[0]!.outcome).toBe('cancelled')
    expect(allCallIds(env.cache)).toEqual([])
  })
})
