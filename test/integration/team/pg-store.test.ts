import { join } from 'node:path'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { openCache } from '../../../src/core/cache'
import { SyncEngine } from '../../../src/core/sync'
import { PgSyncStore } from '../../../src/core/team'
import { prng } from '../../support/prng'
import { engineFor, freshDatabase, useClusterAndService, FROM_MS, pgContent, signedInSession, sqliteContent, TO_MS } from './helpers'

const team = useClusterAndService({ calls: 4000, denseSeconds: [{ at: '2026-01-05T12:00:00Z', count: 600 }] }, 'callsight-pgstore-')

const SCOPES = [
  { from: FROM_MS, to: TO_MS, results: 'all' as const, includeAnalysis: true },
  { from: FROM_MS, to: TO_MS - 3 * 3_600_000, includeAnalysis: false, direction: 1 },
  { from: FROM_MS + 3_600_000, to: TO_MS, results: [1, 2], includeAnalysis: true, callTypes: ['Complaint', 'Refund'] }
]

describe('sync into PostgreSQL', () => {
  it('stores what a sync into SQLite stores for the same service and scopes: ids, items, membership, coverage', async () => {
    const database = await freshDatabase(team.cluster)
    const url = team.cluster.urlFor({ database })
    const { session } = await signedInSession(team.service)
    const cache = openCache(join(team.dir, 'direct.sqlite'))
    const store = await PgSyncStore.open({ url, schema: 'acme', migrate: true })
    try {
      for (const scope of SCOPES) {
        const a = await engineFor(session, cache.sync).run(scope, { mode: 'full' })
        const b = await engineFor(session, store).run(scope, { mode: 'full' })
        expect(a.error).toBeUndefined()
        expect(b.error).toBeUndefined()
        expect(b.stored).toBe(a.stored)
      }
      // The same again, incrementally, after the service changed and grew.
      team.service.admin.updateCalls(30)
      team.service.admin.addCalls(25, { from: '2026-01-05T16:00:00Z', to: '2026-01-05T17:30:00Z' })
      for (const scope of SCOPES) {
        await engineFor(session, cache.sync).run(scope, { mode: 'incremental' })
        await engineFor(session, store).run(scope, { mode: 'incremental' })
      }
      const want = sqliteContent(cache)
      const got = await pgContent(url, 'acme')
      expect(want.calls.size).toBeGreaterThan(3000)
      expect(got.calls.size).toBe(want.calls.size)
      expect(got.calls).toEqual(want.calls)
      expect(got.members).toEqual(want.members)
      expect(got.scopes).toEqual(want.scopes)
      for (const scope of SCOPES) expect(await store.coverage(SyncEngine.keyOf(scope))).toEqual(cache.coverage(SyncEngine.keyOf(scope)))
      // Runs are recorded like the cache's.
      const runs = await store.recentRuns(10)
      expect(runs).toHaveLength(6)
      expect(runs.every((r) => r.outcome === 'done')).toBe(true)
    } finally {
      cache.close()
      await store.close()
    }
  }, 120_000)

  it('gives a new change number to changed rows only, and resumes after cancels at random moments with the exact set', async () => {
    const database = await freshDatabase(team.cluster)
    const url = team.cluster.urlFor({ database })
    const { session } = await signedInSession(team.service)
    // Each cancel comes after a random number of pages fetched in that run (1–4, seeded), then a
    // few random milliseconds: work decides when, not a timer, so a fast machine cannot finish the
    // scope's ~45 pages before the third cancel (a timer did: two cancels in one CI run). The
    // latency keeps several requests in flight when the signal fires.
    team.service.admin.setFaults({ latencyMs: 5 })
    const random = prng(31)
    const store = await PgSyncStore.open({ url, schema: 'acme', migrate: true })
    const direct = openCache(join(team.dir, 'cancel.sqlite'))
    const scope = SCOPES[0]!
    try {
      let cancels = 0
      for (let i = 0; i < 8; i++) {
        const ac = new AbortController()
        const cancelAfter = 1 + Math.floor(random() * 4)
        let pages = 0
        const p = await engineFor(session, store).run(scope, {
          mode: 'full',
          signal: ac.signal,
          onProgress: (q) => {
            if (q.phase === 'fetching' && q.requests > 0 && ++pages === cancelAfter) setTimeout(() => ac.abort(), random() * 15)
          }
        })
        if (p.phase === 'cancelled') cancels++
        else break
      }
      expect(cancels).toBeGreaterThan(2)
      const done = await engineFor(session, store).run(scope, { mode: 'full' })
      expect(done.phase).toBe('done')
      await engineFor(session, direct.sync).run(scope, { mode: 'full' })
      const got = await pgContent(url, 'acme')
      const want = sqliteContent(direct)
      expect(got.calls).toEqual(want.calls)
      expect(got.members).toEqual(want.members)

      const c = new pg.Client({ connectionString: url })
      await c.connect()
      try {
        const seqOf = async (): Promise<Map<string, number>> =>
          new Map(
            (await c.query<{ call_id: string; seq: string }>('SELECT call_id, seq FROM acme.calls')).rows.map((r) => [
              r.call_id,
              Number(r.seq)
            ])
          )
        const before = await seqOf()
        const updated = new Set(team.service.admin.updateCalls(12))
        const again = await engineFor(session, store).run(scope, { mode: 'full' })
        expect(again.phase).toBe('done')
        const after = await seqOf()
        const max = Math.max(...before.values())
        const renumbered = [...after].filter(([id, s]) => s !== before.get(id)).map(([id]) => id)
        expect(new Set(renumbered)).toEqual(new Set([...updated].filter((id) => before.has(id))))
        for (const id of renumbered) expect(after.get(id)!).toBeGreaterThan(max)
        const interrupted = await c.query("SELECT count(*)::int AS n FROM acme.sync_runs WHERE outcome = 'cancelled'")
        expect(interrupted.rows[0].n).toBe(cancels)
      } finally {
        await c.end()
      }
    } finally {
      team.service.admin.clearFaults()
      direct.close()
      await store.close()
    }
  }, 120_000)
})
