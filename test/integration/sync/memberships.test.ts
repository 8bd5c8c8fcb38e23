import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { silentLogger, systemClock } from '../../../src/core/platform/node'
import { createSearch, type LocalSearch } from '../../../src/core/search'
import { runMembershipPasses, type MembershipResult, type SyncEngineDeps } from '../../../src/core/sync'
import { SearchQuery, type CallRecord, type MembershipProgress, type SearchSort } from '../../../src/shared/domain'
import { DEFAULT_CATALOG } from '../../../src/reference-service/config'
import { FROM_MS, startEnv, TO_MS, type SyncEnv } from './helpers'
import { localIds, MEMBERSHIP_QUERIES, remoteIds } from './membership-queries'

// Sync everything once with analysis, run the membership passes without it, and every
// filter the passes learn — each call type by Value or Description in any case, answered
// only, new requests, each direction, and pairs of them — is answered locally exactly as the
// service answers it (same calls, same order), with no gap, at well under a full sync's cost.

const GET_CALLS = '/api/app/public-calls/get-calls'
const LIMIT = { requests: 600, perSeconds: 1 }
let env: SyncEnv
let search: LocalSearch
let fullRequests = 0
let passes: MembershipResult
const progress: MembershipProgress[] = []
const before = new Map<string, CallRecord>()
let updated: string[] = []

beforeAll(async () => {
  env = await startEnv({ calls: 30_000, seed: 41, denseSeconds: [{ at: '2026-01-05T09:30:00Z', count: 80 }] })
  env.cache.importCallTypes(DEFAULT_CATALOG.map((t) => ({ value: t.Value, description: t.Description })))
  env.service.admin.resetStats()
  const full = await env.engine.run({ from: FROM_MS, to: TO_MS, results: 'all', includeAnalysis: true }, { mode: 'full' })
  expect(full.phase).toBe('done')
  fullRequests = env.service.admin.stats().byPath[GET_CALLS]!
  // The service changes some calls' summary and analysis after the sync: a pass without
  // analysis refreshes the summary and keeps the analysis the sync stored.
  updated = env.service.admin.updateCalls(25)
  for (const id of updated) before.set(id, env.cache.getCall(id)!)
  env.service.admin.resetStats()
  const deps: SyncEngineDeps = { source: env.session, cache: env.cache.sync, clock: systemClock, logger: silentLogger, rateLimit: LIMIT }
  passes = await runMembershipPasses(deps, { from: FROM_MS, to: TO_MS }, { onProgress: (p) => progress.push(p) })
  search = createSearch(env.cache)
}, 300_000)

afterAll(async () => {
  await env?.close()
})

describe('membership passes against the reference service', () => {
  it('cost at most 0.7 of the full sync with analysis, and report pass i of n', () => {
    expect(passes.phase).toBe('done')
    expect(passes.passes).toHaveLength(14)
    const passRequests = env.service.admin.stats().byPath[GET_CALLS]!
    expect(passRequests).toBeGreaterThan(0)
    expect(passRequests).toBeLessThanOrEqual(0.7 * fullRequests)
    expect(progress.at(-1)).toMatchObject({ phase: 'done', pass: 14, passes: 14, etaSeconds: 0 })
    expect(new Set(progress.map((p) => p.pass))).toEqual(new Set(Array.from({ length: 14 }, (_, i) => i + 1)))
  })

  it('refresh what the service changed and keep the analysis the sync stored', () => {
    const dump = new Map(env.service.admin.dump().map((d) => [d.callId, d]))
    expect(updated.length).toBe(25)
    for (const id of updated) {
      const now = env.cache.getCall(id)!
      expect(now.summary).toBe(dump.get(id)!.summary)
      expect(now.summary).not.toBe(before.get(id)!.summary)
      expect(now.analysis.length).toBeGreaterThan(0)
      expect(now.analysis).toEqual(before.get(id)!.analysis)
    }
  })

  for (const sort of ['date_desc', 'date_asc'] satisfies SearchSort[]) {
    for (const [name, input] of MEMBERSHIP_QUERIES) {
      it(`${name} (${sort}): the service's answer, no gap`, async () => {
        const q = SearchQuery.parse({ from: FROM_MS, to: TO_MS, ...input, sort })
        expect(search.coverage(q)).toMatchObject({ complete: true, missing: [] })
        const remote = await remoteIds(env.session, q)
        expect(remote.length).toBeGreaterThan(0)
        expect(localIds(search, q)).toEqual(remote)
      })
    }
  }

  it('a range open to now is judged up to the passes\u2019 end, with no banner', () => {
    const q = SearchQuery.parse({ from: FROM_MS, to: null, callTypes: ['Complaint'], direction: 1 })
    expect(search.coverage(q)).toMatchObject({ complete: true, missing: [], asOf: TO_MS })
  })
})
