import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openCache } from '../../../src/core/cache'
import { createPool, PgSyncStore, pullTeamCache } from '../../../src/core/team'
import { until } from '../../support/until'
import { engineFor, freshDatabase, useClusterAndService, FROM_MS, pgContent, signedInSession, sqliteContent, TO_MS } from './helpers'

/**
 * A connection the server ends while Callsight holds it (a restart, a failover, an admin's
 * pg_terminate_backend, a dropped network) must fail the work in hand with an error a person
 * can act on, never take the process down: a checked-out pg client emits 'error' with no
 * listener of the pool's, and an unheard 'error' event ends a Node process (the app's main).
 */
const team = useClusterAndService({ calls: 2000 }, 'callsight-pgloss-')

const ALL = { from: FROM_MS, to: TO_MS, results: 'all' as const, includeAnalysis: true }

/** Ends every session of `database` but the admin's own, as an administrator would. */
async function terminateSessions(database: string): Promise<number> {
  const r = await team.cluster.sql(
    'SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
    [database]
  )
  return r.rows[0].n as number
}

/** Fails the test on an error no one heard (what would end the app's main process). */
function watchUncaught(): { errors: unknown[]; stop(): void } {
  const errors: unknown[] = []
  const onError = (e: unknown): void => void errors.push(e)
  process.on('uncaughtException', onError)
  process.on('unhandledRejection', onError)
  return {
    errors,
    stop() {
      process.off('uncaughtException', onError)
      process.off('unhandledRejection', onError)
    }
  }
}

describe('a PostgreSQL connection lost under Callsight', () => {
  it.each([
    ['indexing each batch', undefined],
    ['building its index apart', 0]
  ])('fails a pull (%s) with a network error, keeps the process alive, and the next pull ends exact', async (_, deferIndexFrom) => {
    const database = await freshDatabase(team.cluster)
    const url = team.cluster.urlFor({ database })
    const { session } = await signedInSession(team.service)
    const store = await PgSyncStore.open({ url, schema: 'acme', migrate: true })
    try {
      await engineFor(session, store).run(ALL, { mode: 'full' })
    } finally {
      await store.close()
    }
    const file = join(team.dir, `pulled-${deferIndexFrom ?? 'inline'}.sqlite`)
    const watch = watchUncaught()
    try {
      // Killed after the first batch is applied, while the next one is being read.
      const pool = createPool({ url, schema: 'acme', maxConnections: 2 })
      const cache = openCache(file)
      let killed = 0
      let killing: Promise<void> | null = null
      try {
        const r = await pullTeamCache({
          pool,
          schema: 'acme',
          sourceLabel: url,
          cache,
          batchSize: 200,
          deferIndexFrom,
          onProgress: (p) => {
            if (p.batches === 1 && !killing) killing = terminateSessions(database).then((n) => void (killed = n))
          }
        })
        await killing
        expect(killed).toBeGreaterThan(0)
        expect(r.phase).toBe('failed')
        expect(r.error?.code, JSON.stringify(r.error)).toBe('Network')
        expect(r.calls).toBeLessThan(2000)
      } finally {
        cache.close()
        await pool.end()
      }
      // Let a late 'error' event surface before judging.
      await new Promise((res) => setTimeout(res, 200))
      expect(watch.errors).toEqual([])
    } finally {
      watch.stop()
    }
    const pool = createPool({ url, schema: 'acme', maxConnections: 2 })
    const cache = openCache(file)
    try {
      expect((await pullTeamCache({ pool, schema: 'acme', sourceLabel: url, cache, batchSize: 200 })).phase).toBe('done')
      const want = await pgContent(url, 'acme')
      const got = sqliteContent(cache)
      expect(got.calls).toEqual(want.calls)
      expect(got.members).toEqual(want.members)
    } finally {
      cache.close()
      await pool.end()
    }
  })

  it('fails a write transaction whose connection the server ended while it was held, and the next one works', async () => {
    const database = await freshDatabase(team.cluster)
    const url = team.cluster.urlFor({ database })
    const store = await PgSyncStore.open({ url, schema: 'acme', migrate: true })
    const watch = watchUncaught()
    try {
      // Held and idle when the server ends it: the pool does not hear a checked-out client.
      const e = await store
        .writeTx(async (c) => {
          const ended = new Promise((res) => c.once('end', res))
          expect(await terminateSessions(database)).toBeGreaterThan(0)
          // Bounded: without a listener of its own the client's 'error' throws before 'end'.
          await Promise.race([ended, new Promise((res) => setTimeout(res, 5000))])
          await c.query('SELECT 1')
        })
        .then(
          () => null,
          (err: unknown) => err as { code?: string }
        )
      expect(e?.code).toBe('Network')
      await new Promise((res) => setTimeout(res, 200))
      expect(watch.errors).toEqual([])
      expect(await store.writeTx(async (c) => (await c.query<{ n: number }>('SELECT 1 AS n')).rows[0]!.n)).toBe(1)
    } finally {
      watch.stop()
      await store.close()
    }
  })

  it('a scope run lease outlives its sessions: kept by its holder, refused to others until released', async () => {
    const database = await freshDatabase(team.cluster)
    const url = team.cluster.urlFor({ database })
    const a = await PgSyncStore.open({ url, schema: 'acme', migrate: true })
    const b = await PgSyncStore.open({ url, schema: 'acme' })
    try {
      expect(await a.lockScope('s1')).toBe(true)
      expect(await a.lockScope('s2')).toBe(true)
      expect(await b.lockScope('s1')).toBe(false)
      expect(await a.keepScopeLock('s1')).toBe(true)
      // Every session of the database ends (a restart, a failover): the leases are rows, so
      // nothing is released with them, and no other process can take the scopes meanwhile.
      const ended = await team.cluster.sql(
        `SELECT array_agg(pid) AS pids FROM (SELECT pid, pg_terminate_backend(pid) FROM pg_stat_activity
         WHERE datname = $1 AND pid <> pg_backend_pid()) t`,
        [database]
      )
      const pids = ended.rows[0].pids as number[]
      expect(pids.length).toBeGreaterThan(0)
      await until(async () =>
        (await team.cluster.sql('SELECT 1 FROM pg_stat_activity WHERE pid = ANY($1)', [pids])).rowCount === 0 ? true : undefined
      )
      const retry = async <T>(fn: () => Promise<T>): Promise<T> => {
        // The first query on a pooled connection the server ended may fail once.
        try {
          return await fn()
        } catch {
          return fn()
        }
      }
      expect(await retry(() => b.lockScope('s2'))).toBe(false)
      expect(await retry(() => a.keepScopeLock('s1'))).toBe(true)
      expect(await retry(() => a.keepScopeLock('s2'))).toBe(true)
      await a.unlockScope('s2')
      expect(await b.lockScope('s2')).toBe(true)
      // a's lease of s2 is gone: it cannot renew what b now holds.
      expect(await a.keepScopeLock('s2')).toBe(false)
      expect(await b.lockScope('s1')).toBe(false)
    } finally {
      await a.close()
      await b.close()
    }
  })
})
