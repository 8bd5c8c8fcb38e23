import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { SyncEngine } from '../../../src/core/sync'
import { createPool, lockKey, PgSyncStore, readWorkerState, teamInit } from '../../../src/core/team'
import { engineFor, freshDatabase, FROM_MS, signedInSession, TO_MS, useClusterAndService } from './helpers'

/**
 * The worker's locks need the tenant's write privilege: an analyst's read-only role, or
 * another tenant's, can neither take them nor hold the worker up.
 */
const team = useClusterAndService({ calls: 600 }, 'callsight-locks-')

const SCOPE = { from: FROM_MS, to: TO_MS, results: 'all' as const, includeAnalysis: false }

async function connect(url: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url })
  await c.connect()
  return c
}

/** The SQLSTATE a statement fails with (run in a read-write transaction, so only privileges stop it). */
async function failure(c: pg.Client, sql: string): Promise<string | undefined> {
  await c.query('BEGIN READ WRITE')
  try {
    await c.query(sql)
    return undefined
  } catch (e) {
    return (e as { code?: string }).code
  } finally {
    await c.query('ROLLBACK')
  }
}

function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const t = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: still waiting after ${ms} ms`)), ms)))
  return Promise.race([p, t]).finally(() => clearTimeout(timer))
}

describe('the team cache locks', () => {
  it('cannot be taken by a reader or another tenant, and what they try does not hold the worker up', async () => {
    const database = await freshDatabase(team.cluster)
    const admin = createPool({ url: team.cluster.urlFor({ database }), schema: 'acme', maxConnections: 2 })
    try {
      await teamInit({
        pool: admin,
        schema: 'acme',
        writerRole: 'acme_writer',
        readerRole: 'acme_reader',
        writerPassword: 'w1',
        readerPassword: 'r1'
      })
      const init2 = await teamInit({
        pool: admin,
        schema: 'globex',
        writerRole: 'globex_writer',
        readerRole: 'globex_reader',
        writerPassword: 'w2',
        readerPassword: 'r2'
      })
      expect(init2.warnings).toEqual([])
      const temp = await admin.query<{ ok: boolean }>("SELECT has_database_privilege('acme_reader', current_database(), 'TEMP') AS ok")
      expect(temp.rows[0]!.ok).toBe(false)
    } finally {
      await admin.end()
    }
    const writerUrl = team.cluster.urlFor({ database, user: 'acme_writer', password: 'w1' })
    const store = await PgSyncStore.open({ url: writerUrl, schema: 'acme' })
    const reader = await connect(team.cluster.urlFor({ database, user: 'acme_reader', password: 'r1' }))
    const other = await connect(team.cluster.urlFor({ database, user: 'globex_reader', password: 'r2' }))
    const { session } = await signedInSession(team.service)
    const key = SyncEngine.keyOf({ ...SCOPE, callTypes: [], direction: null, hasNewRequest: null })
    try {
      // Everything the old locks were: advisory keys any connected role could compute and hold.
      const held = await reader.query<{ w: boolean; s: boolean }>(
        `SELECT pg_try_advisory_lock(${lockKey('callsight-write:acme')}) AS w, pg_try_advisory_lock(${lockKey(`callsight-scope:acme:${key}`)}) AS s`
      )
      expect(held.rows[0]).toEqual({ w: true, s: true })
      // The write lock and the lease are refused to both (42501: permission denied).
      for (const c of [reader, other]) {
        expect(await failure(c, 'LOCK TABLE acme.checkpoints IN SHARE ROW EXCLUSIVE MODE')).toBe('42501')
        expect(await failure(c, 'LOCK TABLE acme.meta IN SHARE ROW EXCLUSIVE MODE')).toBe('42501')
        expect(await failure(c, `UPDATE acme.worker_scopes SET worker = 'me', running = true`)).toBe('42501')
        expect(
          await failure(
            c,
            `INSERT INTO acme.worker_scopes (scope_key, name, worker, running, updated_at) VALUES ('${key}', 'x', 'me', true, 0)`
          )
        ).toBe('42501')
        expect(await failure(c, 'CREATE TEMP TABLE t (x int)')).toBe('42501')
      }
      // Meanwhile the writer takes the scope's lease and syncs, unhindered.
      expect(await within(store.lockScope(key, { holder: 'test-worker', leaseMs: 5000 }), 10_000, 'the lease')).toBe(true)
      const pool = createPool({ url: writerUrl, schema: 'acme', maxConnections: 1 })
      try {
        expect((await readWorkerState(pool, 'acme')).map((w) => [w.scope_key, w.worker, w.status])).toEqual([
          [key, 'test-worker', 'running']
        ])
        const run = await within(engineFor(session, store).run(SCOPE, { mode: 'full' }), 60_000, 'the sync')
        expect(run.phase).toBe('done')
        expect(run.stored).toBeGreaterThan(100)
        // A second holder is refused while the lease is current; released, the row goes.
        expect(await store.lockScope(key, { holder: 'someone-else', leaseMs: 5000 })).toBe(false)
        await store.unlockScope(key)
        expect(await readWorkerState(pool, 'acme')).toEqual([])
      } finally {
        await pool.end()
      }
    } finally {
      await reader.end()
      await other.end()
      await store.close()
    }
  }, 120_000)
})
