import { afterEach, describe, expect, it } from 'vitest'
import type { FetchLike } from '../../../src/core/platform'
import { SyncEngine } from '../../../src/core/sync'
import { expectedIds, FROM_MS, startEnv, storedIds, TO_MS, type SyncEnv } from './helpers'

let env: SyncEnv | null = null
afterEach(async () => {
  await env?.close()
  env = null
})

const scope = { from: FROM_MS, to: TO_MS, results: 'all' as const, includeAnalysis: false }

/**
 * Plays a service that puts one poisoned record in the first page of calls: an unknown field
 * nested `depth` levels deep. The rest of the answer is the reference service's own.
 */
function poisonFirstPage(depth: number, poisoned: string[]): (f: FetchLike) => FetchLike {
  let done = false
  return (f) => async (input, init) => {
    const res = await f(input, init)
    if (done || !input.endsWith('/get-calls') || res.status !== 200) return res
    done = true // before the await: pages are fetched in parallel
    const body = await res.text()
    const at = body.indexOf('{"callId":"')
    if (at < 0) throw new Error('the first page held no call')
    poisoned.push(body.slice(at + 11, body.indexOf('"', at + 11)))
    const deep = `${'['.repeat(depth)}"0532 123 45 67"${']'.repeat(depth)}`
    const text = `${body.slice(0, at)}{"nested":${deep},${body.slice(at + 1)}`
    return new Response(text, { status: res.status, headers: { 'content-type': 'application/json' } })
  }
}

describe('a record nested thousands deep', () => {
  it('is skipped as malformed with its reason, and the sync stores every other call', async () => {
    const poisoned: string[] = []
    env = await startEnv({ calls: 1500, wrapFetch: poisonFirstPage(5_000, poisoned) })
    const final = await env.engine.run(scope, { mode: 'full' })
    expect(final.error).toBeUndefined()
    expect(poisoned).toHaveLength(1)
    expect(final.warnings.join('\n')).toContain(
      "1 record(s) the service sent could not be used and were skipped (the record's unknown fields nest deeper than 32 levels)"
    )
    const want = expectedIds(env.service.admin.dump(), { from: FROM_MS, to: TO_MS, results: 'all' })
    want.delete(poisoned[0]!)
    const got = storedIds(env.cache, SyncEngine.keyOf(scope))
    expect(new Set(got)).toEqual(want)
  })
})
