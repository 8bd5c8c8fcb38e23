import { afterEach, describe, expect, it } from 'vitest'
import { SyncEngine } from '../../../src/core/sync'
import type { SyncProgress } from '../../../src/shared/domain'
import { budget } from '../../support/budget'
import { expectedIds, FROM_MS, startEnv, storedIds, TO_MS, type SyncEnv } from './helpers'

let env: SyncEnv | null = null
afterEach(async () => {
  await env?.close()
  env = null
})

describe('sync against the reference service: the 10,000 window', () => {
  it.each(['newest', 'oldest'] as const)(
    'syncs a range of more than 10,000 calls with seconds holding hundreds of calls, exactly (%s first)',
    // 14,450 calls fetched, parsed and stored: 4-6 s quiet, past 30 s at load 13.
    budget(6_000),
    async (order) => {
      env = await startEnv({
        calls: 12_000,
        denseSeconds: [
          { at: '2026-01-05T07:00:00Z', count: 700 },
          { at: '2026-01-05T09:30:05Z', count: 450 },
          { at: '2026-01-05T12:00:00Z', count: 1_300 }
        ]
      })
      const scope = { from: FROM_MS, to: TO_MS, results: 'all' as const, includeAnalysis: false }
      const events: SyncProgress[] = []
      const final = await env.engine.run(scope, { mode: 'full', order, onProgress: (p) => events.push(p) })
      expect(final.error).toBeUndefined()
      expect(final.phase).toBe('done')
      expect(final.windowsDone).toBeGreaterThanOrEqual(1)
      // Progress: position only moves one way (back from the end newest first); the ETA follows
      // from the 600/s limit and the envelope's totalCount (about 29 pages, so well under a second at first).
      const fetching = events.filter((p) => p.phase === 'fetching' && p.requests > 0)
      expect(fetching.length).toBeGreaterThan(20)
      const forward = order === 'oldest' ? 1 : -1
      for (let i = 1; i < fetching.length; i++)
        expect(forward * (fetching[i]!.position! - fetching[i - 1]!.position!)).toBeGreaterThanOrEqual(0)
      expect(new Set(fetching.map((p) => p.order))).toEqual(new Set([order]))
      expect(fetching[0]!.etaSeconds).not.toBeNull()
      expect(fetching[0]!.etaSeconds!).toBeGreaterThan(0)
      expect(fetching[fetching.length - 1]!.etaSeconds!).toBeLessThan(fetching[0]!.etaSeconds!)
      expect(final.requestsPerMinute).toBeGreaterThan(0)
      expect(final.recordsPerSecond).toBeGreaterThan(0)
      const want = expectedIds(env.service.admin.dump(), { from: FROM_MS, to: TO_MS, results: 'all' })
      expect(want.size).toBe(14_450)
      const got = storedIds(env.cache, SyncEngine.keyOf(scope))
      expect(got.length).toBe(want.size)
      expect(new Set(got)).toEqual(want)
      expect(final.stored).toBe(want.size)
      const run = env.cache.sync.recentRuns(1)[0]!
      expect(run.outcome).toBe('done')
      expect(run.stored).toBe(want.size)
      expect(run.requests).toBe(final.requests)
    }
  )

  it('reports a second holding more than 10,000 calls, records it in the run, and syncs the rest', budget(3_000), async () => {
    env = await startEnv({ calls: 800, denseSeconds: [{ at: '2026-01-05T10:00:00Z', count: 10_400 }] })
    const scope = { from: FROM_MS, to: TO_MS, results: 'all' as const, includeAnalysis: false }
    const warnings: string[] = []
    const final = await env.engine.run(scope, { mode: 'full', onProgress: (p) => warnings.push(...p.warnings) })
    expect(final.phase).toBe('done')
    expect(final.error?.code).toBe('DenseSecond')
    expect(final.warnings.join(' ')).toContain('2026-01-05T10:00:00Z')
    const dense = Date.parse('2026-01-05T10:00:00Z')
    const dump = env.service.admin.dump()
    const got = new Set(storedIds(env.cache, SyncEngine.keyOf(scope)))
    const outside = dump.filter((d) => Date.parse(d.callDate) !== dense)
    for (const d of outside) expect(got.has(d.callId)).toBe(true)
    const inDense = dump.filter((d) => Date.parse(d.callDate) === dense).filter((d) => got.has(d.callId)).length
    expect(inDense).toBe(10_000)
    expect(got.size).toBe(outside.length + 10_000)
    const run = env.cache.sync.recentRuns(1)[0]!
    expect(run.outcome).toBe('done')
    expect(run.error?.code).toBe('DenseSecond')
  })

  it('syncs only what the filters select, with analysis, in pages of 100', budget(1_000), async () => {
    env = await startEnv({ calls: 1500 })
    const scope = { from: FROM_MS, to: TO_MS, results: 'answered' as const, direction: 1, includeAnalysis: true }
    const final = await env.engine.run(scope, { mode: 'full' })
    expect(final.error).toBeUndefined()
    const dump = env.service.admin.dump()
    const want = expectedIds(dump, { from: FROM_MS, to: TO_MS, results: 'answered', direction: 1 })
    expect(want.size).toBeGreaterThan(100)
    expect(new Set(storedIds(env.cache, SyncEngine.keyOf(scope)))).toEqual(want)
    expect(final.requests).toBe(Math.floor(want.size / 100) + 1)
    const sample = dump.find((d) => want.has(d.callId) && d.analysis.length > 0)!
    expect(env.cache.getCall(sample.callId)?.analysis).toEqual(sample.analysis)
  })
})
