import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openCache } from '../../../src/core/cache'
import { createPool, PgSyncStore, pullTeamCache } from '../../../src/core/team'
import { engineFor, freshDatabase, useClusterAndService, FROM_MS, pgContent, signedInSession, sqliteContent, TO_MS } from './helpers'
import { connectionOf } from '../../../src/core/cache/call-cache'

const team = useClusterAndService({ calls: 5000 }, 'callsight-pull-')

const ALL = { from: FROM_MS, to: TO_MS, results: 'all' as const, includeAnalysis: true }
const ANSWERED = { from: FROM_MS, to: TO_MS, includeAnalysis: false, direction: 2 }

async function pull(url: string, file: string, batchSize = 700, signal?: AbortSignal) {
  const pool = createPool({ url, schema: 'acme', maxConnections: 2 })
  const cache = openCache(file)
  try {
    return await pullTeamCache({ pool, schema: 'acme', sourceLabel: url, cache, batchSize, signal })
  } finally {
    cache.close()
    await pool.end()
  }
}

function expectSame(file: string, want: Awaited<ReturnType<typeof pgContent>>): void {
  const cache = openCache(file)
  try {
    const got = sqliteContent(cache)
    expect(got.calls.size).toBe(want.calls.size)
    expect(got.calls).toEqual(want.calls)
    expect(got.members).toEqual(want.members)
    expect(got.scopes).toEqual(want.scopes)
    expect(connectionOf(cache).pragma('integrity_check', { simple: true })).toBe('ok')
  } finally {
    cache.close()
  }
}

describe('pull from the team cache', () => {
  it('two workstations pulling while the worker writes both end with exactly the team cache', async () => {
    const database = await freshDatabase(team.cluster)
    const url = team.cluster.urlFor({ database })
    const { session } = await signedInSession(team.service)
    const store = await PgSyncStore.open({ url, schema: 'acme', migrate: true })
    team.service.admin.setFaults({ latencyMs: 15 })
    try {
      const a = join(team.dir, 'a.sqlite')
      const b = join(team.dir, 'b.sqlite')
      let writing = true
      const worker = (async () => {
        await engineFor(session, store).run(ALL, { mode: 'full' })
        await engineFor(session, store).run(ANSWERED, { mode: 'full' })
        writing = false
      })()
      const rounds = { a: 0, b: 0 }
      const loop = async (file: string, k: 'a' | 'b'): Promise<void> => {
        while (writing) {
          const p = await pull(url, file, k === 'a' ? 700 : 1300)
          expect(p.phase, JSON.stringify(p.error)).toBe('done')
          rounds[k]++
        }
      }
      await Promise.all([worker, loop(a, 'a'), loop(b, 'b')])
      expect(rounds.a).toBeGreaterThan(1)
      expect(rounds.b).toBeGreaterThan(1)
      expect((await pull(url, a)).phase).toBe('done')
      expect((await pull(url, b)).phase).toBe('done')
      const want = await pgContent(url, 'acme')
      expect(want.calls.size).toBeGreaterThan(4000)
      expectSame(a, want)
      expectSame(b, want)

      // A call updated at the service reaches a workstation on the next pull, and only it.
      const changed = team.service.admin.updateCalls(20)
      await engineFor(session, store).run(ALL, { mode: 'full' })
      const p = await pull(url, a)
      expect(p.calls).toBe(20)
      const cache = openCache(a)
      try {
        const dump = new Map(team.service.admin.dump().map((d) => [d.callId, d]))
        for (const id of changed) {
          const got = cache.getCall(id)!
          expect(got.summary).toBe(dump.get(id)!.summary)
          expect(got.analysis).toEqual(dump.get(id)!.analysis)
        }
      } finally {
        cache.close()
      }
      expectSame(a, await pgContent(url, 'acme'))
    } finally {
      team.service.admin.clearFaults()
      await store.close()
    }
  }, 180_000)

  it('a pull stopped at any batch continues exactly; another team cache is refused unless starting over', async () => {
    const database = await freshDatabase(team.cluster)
    const url = team.cluster.urlFor({ database })
    const { session } = await signedInSession(team.service)
    const store = await PgSyncStore.open({ url, schema: 'acme', migrate: true })
    try {
      await engineFor(session, store).run(ALL, { mode: 'full' })
      await engineFor(session, store).run(ANSWERED, { mode: 'full' })
      // Changed calls get new change numbers; their memberships keep the old ones, so a
      // batch holds memberships of calls numbered later (they must travel with them).
      team.service.admin.updateCalls(60)
      await engineFor(session, store).run(ALL, { mode: 'full' })
      const file = join(team.dir, 'stop.sqlite')
      let stops = 0
      for (let i = 0; i < 20; i++) {
        const ac = new AbortController()
        const pool = createPool({ url, schema: 'acme' })
        const cache = openCache(file)
        let batches = 0
        const stopAfter = 1 + Math.floor(Math.random() * 3)
        const r = await pullTeamCache({
          pool,
          schema: 'acme',
          sourceLabel: url,
          cache,
          batchSize: 300,
          signal: ac.signal,
          onProgress: (p) => {
            if (p.batches > 0 && ++batches >= stopAfter) ac.abort()
          }
        })
        cache.close()
        await pool.end()
        if (r.phase === 'cancelled') stops++
        else break
      }
      expect(stops).toBeGreaterThan(3)
      expect((await pull(url, file)).phase).toBe('done')
      expectSame(file, await pgContent(url, 'acme'))

      // The same cache against a team cache set up anew (another id).
      const other = await freshDatabase(team.cluster)
      const otherUrl = team.cluster.urlFor({ database: other })
      const store2 = await PgSyncStore.open({ url: otherUrl, schema: 'acme', migrate: true })
      await engineFor(session, store2).run(ANSWERED, { mode: 'full' })
      await store2.close()
      const refused = await pull(otherUrl, file)
      expect(refused.phase).toBe('failed')
      expect(refused.error?.message).toMatch(/another team cache/)
      const pool = createPool({ url: otherUrl, schema: 'acme' })
      const cache = openCache(file)
      const anew = await pullTeamCache({ pool, schema: 'acme', sourceLabel: otherUrl, cache, startOver: true })
      cache.close()
      await pool.end()
      expect(anew.phase).toBe('done')
      expectSame(file, await pgContent(otherUrl, 'acme'))
    } finally {
      await store.close()
    }
  }, 180_000)
})
