import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openCache, type CallCache } from '../../../src/core/cache'
import { createSearch, type LocalSearch } from '../../../src/core/search'
import type { Session } from '../../../src/core/session'
import { createPool, PgSyncStore, pullTeamCache, readWorkerState } from '../../../src/core/team'
import { SearchQuery, type SearchSort } from '../../../src/shared/domain'
import { DEFAULT_CATALOG } from '../../../src/reference-service/config'
import { localIds, MEMBERSHIP_QUERIES, remoteIds } from '../sync/membership-queries'
import { freshDatabase, FROM, FROM_MS, membershipWorkerConfig, signedInSession, TO_MS, useClusterAndService, workerOf } from './helpers'

// The same filter queries as the workstation's own membership test, answered on a
// workstation that only pulled: the worker runs the docs' example config (a scope of every
// call with analysis, a complaints scope) with the memberships key naming the catalog, one
// cycle, then a pull. Every answer equals the service's, with no gap to show a banner for.

const team = useClusterAndService(
  { calls: 12_000, seed: 41, denseSeconds: [{ at: '2026-01-05T09:30:00Z', count: 80 }] },
  'callsight-team-memberships-'
)

let session: Session
let cache: CallCache
let search: LocalSearch
let scopes: Awaited<ReturnType<typeof readWorkerState>>

beforeAll(async () => {
  const database = await freshDatabase(team.cluster)
  const url = team.cluster.urlFor({ database })
  session = (await signedInSession(team.service)).session
  const cfg = membershipWorkerConfig(team, database, {
    scopes: [
      { name: 'all calls with analysis', from: FROM.replace('Z', '+00:00'), analysis: true, results: 'all' },
      { name: 'complaints, last year', days: 365, types: ['Complaint'] }
    ]
  })
  const store = await PgSyncStore.open({ url, schema: 'acme', migrate: true })
  try {
    const r = await workerOf(cfg, store, session).run(new AbortController().signal, { once: true })
    expect(r.failures).toBe(0)
    scopes = await readWorkerState(store.pool, 'acme')
  } finally {
    await store.close()
  }
  const pool = createPool({ url, schema: 'acme', maxConnections: 2 })
  cache = openCache(join(team.dir, 'workstation.sqlite'))
  try {
    const p = await pullTeamCache({ pool, schema: 'acme', sourceLabel: url, cache, batchSize: 5000 })
    expect(p.phase, JSON.stringify(p.error)).toBe('done')
  } finally {
    await pool.end()
  }
  search = createSearch(cache)
}, 600_000)

afterAll(() => {
  cache?.close()
})

describe('memberships through the team cache', () => {
  it('the worker ran every pass of the scope of every call, each shown with its last success', () => {
    const names = scopes.map((s) => s.name)
    const passNames = [
      ...DEFAULT_CATALOG.map((t) => `all calls with analysis · call type ${t.Value}`),
      'all calls with analysis · answered only',
      'all calls with analysis · new requests',
      'all calls with analysis · direction 1',
      'all calls with analysis · direction 2'
    ]
    expect(names.sort()).toEqual(['all calls with analysis', 'complaints, last year', ...passNames].sort())
    for (const s of scopes) expect(s, s.name).toMatchObject({ last_outcome: 'done', last_success_at: expect.any(Number) })
    // The complaints scope holds answered calls of one type: no passes of its own.
    expect(names.filter((n) => n.startsWith('complaints, last year · '))).toEqual([])
  })

  it('the workstation has the catalog with its descriptions', () => {
    const catalog = new Map(cache.callTypes().map((t) => [t.value, t.description]))
    for (const t of DEFAULT_CATALOG) expect(catalog.get(t.Value)).toBe(t.Description)
  })

  for (const sort of ['date_desc', 'date_asc'] satisfies SearchSort[]) {
    for (const [name, input] of MEMBERSHIP_QUERIES) {
      it(`${name} (${sort}): the service's answer on the workstation, no gap`, async () => {
        const q = SearchQuery.parse({ from: FROM_MS, to: TO_MS, ...input, sort })
        expect(search.coverage(q)).toMatchObject({ complete: true, missing: [] })
        const remote = await remoteIds(session, q)
        expect(remote.length).toBeGreaterThan(0)
        expect(localIds(search, q)).toEqual(remote)
      })
    }
  }
})
