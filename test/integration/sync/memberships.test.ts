import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { remoteSearch } from '../../../src/core/client/remote-search'
import { silentLogger, systemClock } from '../../../src/core/platform/node'
import { createSearch, type LocalSearch } from '../../../src/core/search'
import { runMembershipPasses, type MembershipResult, type SyncEngineDeps } from '../../../src/core/sync'
import { SearchQuery, type CallRecord, type MembershipProgress, type SearchQueryInput, type SearchSort } from '../../../src/shared/domain'
import { DEFAULT_CATALOG } from '../../../src/service/config'
import { FROM_MS, startEnv, TO_MS, type SyncEnv } from './helpers'

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
const HOUR = 3_600_000

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
  const deps: SyncEngineDeps = { source: env.session, cache: env.cache, clock: systemClock, logger: silentLogger, rateLimit: LIMIT }
  passes = await runMembershipPasses(deps, { from: FROM_MS, to: TO_MS }, { onProgress: (p) => progress.push(p) })
  search = createSearch(env.cache)
}, 300_000)

afterAll(async () => {
  await env?.close()
})

function localIds(q: SearchQuery): string[] {
  const out: string[] = []
  for (;;) {
    const rows = search.page(q, out.length, 1000).rows
    out.push(...rows.map((r) => r.callId))
    if (rows.length < 1000) return out
  }
}

/**
 * The service's answer for [from, to): its end is inclusive at whole seconds, so a call at
 * exactly `to` is not the query's. A query holds at most 10,000 reachable records, so the
 * range is asked for in parts of two hours, joined in the query's order.
 */
async function remoteIds(q: SearchQuery): Promise<string[]> {
  const parts: string[][] = []
  for (let at = q.from!; at < q.to!; at += 2 * HOUR) {
    const part = SearchQuery.parse({ ...q, from: at, to: Math.min(q.to!, at + 2 * HOUR) })
    const out: CallRecord[] = []
    for (;;) {
      const page = await remoteSearch(env.session, part, out.length, 500, false)
      out.push(...page.records)
      expect(page.loweredByCap).toBe(false)
      if (page.exhausted || page.records.length === 0) break
    }
    parts.push(out.filter((r) => r.callAt >= part.from! && r.callAt < part.to!).map((r) => r.callId))
  }
  return (q.sort === 'date_desc' ? parts.reverse() : parts).flat()
}

const cased = (s: string, i: number): string => (i % 3 === 0 ? s.toLocaleUpperCase('tr') : i % 3 === 1 ? s.toLocaleLowerCase('tr') : s)
const QUERIES: Array<[string, SearchQueryInput]> = [
  ['answered only (the default)', {}],
  ['every result', { results: 'all' }],
  ['new requests', { hasNewRequest: true, results: 'all' }],
  ['new requests, answered', { hasNewRequest: true }],
  ['direction 1', { direction: 1, results: 'all' }],
  ['direction 2', { direction: 2, results: 'all' }],
  ['direction 1, answered', { direction: 1 }],
  ['direction 2, new requests', { direction: 2, hasNewRequest: true, results: 'all' }],
  ...DEFAULT_CATALOG.map((t): [string, SearchQueryInput] => [`type ${t.Value} by Value`, { callTypes: [t.Value], results: 'all' }]),
  ...DEFAULT_CATALOG.map((t, i): [string, SearchQueryInput] => [
    `type ${t.Value} by Description "${cased(t.Description, i)}", answered`,
    { callTypes: [cased(t.Description, i)] }
  ]),
  ['two types, direction 1', { callTypes: ['Refund', 'şikayet'], direction: 1, results: 'all' }],
  ['a type, direction 2, answered', { callTypes: ['SALES'], direction: 2 }],
  ['a type, new requests', { callTypes: ['Fatura İtirazı'], hasNewRequest: true, results: 'all' }],
  ['a type, a sub-range', { callTypes: ['Information'], results: 'all', from: FROM_MS + 2 * HOUR, to: FROM_MS + 5 * HOUR }],
  ['answered, the dense second alone', { from: Date.parse('2026-01-05T09:30:00Z'), to: Date.parse('2026-01-05T09:30:01Z') }]
]

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
    for (const [name, input] of QUERIES) {
      it(`${name} (${sort}): the service's answer, no gap`, async () => {
        const q = SearchQuery.parse({ from: FROM_MS, to: TO_MS, ...input, sort })
        expect(search.coverage(q)).toMatchObject({ complete: true, missing: [] })
        const remote = await remoteIds(q)
        expect(remote.length).toBeGreaterThan(0)
        expect(localIds(q)).toEqual(remote)
      })
    }
  }

  it('a range open to now is judged up to the passes\u2019 end, with no banner', () => {
    const q = SearchQuery.parse({ from: FROM_MS, to: null, callTypes: ['Complaint'], direction: 1 })
    expect(search.coverage(q)).toMatchObject({ complete: true, missing: [], asOf: TO_MS })
  })
})
