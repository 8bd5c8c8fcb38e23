import { afterEach, describe, expect, it } from 'vitest'
import { SyncEngine } from '../../../src/core/sync'
import { PIPELINE_DEPTH } from '../../../src/core/sync/fetch-pipeline'
import { maxTake } from '../../../src/shared/service-limits'
import { expectedIds, FROM_MS, startEnv, storedIds, TO_MS, type SyncEnv } from './helpers'

let env: SyncEnv | null = null
afterEach(async () => {
  await env?.close()
  env = null
})

const HOUR = 3_600_000

// A range picked as "the last N days" ends "now": when the user comes back to continue a
// cancelled run, the end has moved. The run continues the stored pass (keyed to the start the
// user chose), so nothing already stored is asked for again.
describe('a cancelled pass continued with a later end', () => {
  it('continues where it stopped and asks the service only for what was left', async () => {
    // The pages the client asked for, by their place in the window. A page asked twice is one
    // page: a kept-alive connection reset under load is retried, and the service counts both.
    const asked: number[] = []
    env = await startEnv({
      calls: 6_000,
      wrapFetch: (f) => (input, init) => {
        if (String(input).includes('get-calls') && typeof init?.body === 'string')
          asked.push((JSON.parse(init.body) as { skip: number }).skip)
        return f(input, init)
      }
    })
    env.service.admin.setFaults({ latencyMs: 5 })
    const firstEnd = TO_MS - 2 * HOUR
    const first = { from: FROM_MS, to: firstEnd, results: 'all' as const, includeAnalysis: false }
    const key = SyncEngine.keyOf(first)
    const ac = new AbortController()
    const cancelled = await env.engine.run(first, {
      mode: 'incremental',
      signal: ac.signal,
      onProgress: (p) => {
        if (p.phase === 'fetching' && p.stored >= 1_500) ac.abort()
      }
    })
    expect(cancelled.phase).toBe('cancelled')
    const kept = storedIds(env.cache, key).length
    const want = expectedIds(env.service.admin.dump(), { from: FROM_MS, to: firstEnd, results: 'all' })
    expect(kept).toBeLessThan(want.size)
    // What is left is said, so "Continue" can show it.
    expect(cancelled.remaining?.calls).toBeGreaterThan(0)
    expect(cancelled.remaining?.requests).toBeGreaterThan(0)

    // A new process, and "now" has moved on by two hours.
    env.reopen()
    asked.length = 0
    const later = await env.engine.run({ ...first, to: TO_MS }, { mode: 'incremental' })
    expect(later.phase).toBe('done')
    // The pass kept its own end: every call up to it is stored, each once, and none was fetched twice.
    expect(new Set(storedIds(env.cache, key))).toEqual(want)
    expect(later.stored).toBe(want.size - kept)
    // Nothing stored is asked for again (one window, newest first: what is stored comes first),
    // and past the last page only the pipeline's guesses, aborted once the short page is in.
    const pageSize = maxTake(false)
    expect(Math.min(...asked)).toBe(kept)
    expect(new Set(asked).size).toBeLessThanOrEqual(Math.ceil((want.size - kept) / pageSize) + PIPELINE_DEPTH - 1)
    expect(env.cache.coverage(key)).toEqual([[FROM_MS, firstEnd]])
  })

  it('starts a new pass when the start differs', async () => {
    env = await startEnv({ calls: 3_000 })
    env.service.admin.setFaults({ latencyMs: 5 })
    const first = { from: FROM_MS, to: TO_MS - HOUR, results: 'all' as const, includeAnalysis: false }
    const ac = new AbortController()
    const cancelled = await env.engine.run(first, {
      mode: 'full',
      signal: ac.signal,
      onProgress: (p) => {
        if (p.phase === 'fetching' && p.stored >= 1_000) ac.abort()
      }
    })
    expect(cancelled.phase).toBe('cancelled')
    const other = await env.engine.run({ ...first, from: FROM_MS + HOUR, to: TO_MS }, { mode: 'full' })
    expect(other.phase).toBe('done')
    expect(env.cache.coverage(SyncEngine.keyOf(first))).toEqual([[FROM_MS + HOUR, TO_MS]])
  })
})
