import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPool, migratePg, PG_SCHEMA_VERSION, pgMigrations, PgSyncStore, pullTeamCache, schemaVersion } from '../../../src/core/team'
import { openCache } from '../../../src/core/cache'
import { FAST_TEST_SETTINGS, startPgCluster, type PgCluster } from '../../support/pg-cluster'
import { freshDatabase, tempDir } from './helpers'

let cluster: PgCluster
const tmp = tempDir('callsight-pgmig3-')

beforeAll(async () => {
  cluster = await startPgCluster({ settings: FAST_TEST_SETTINGS })
}, 60_000)

afterAll(async () => {
  await cluster?.stop()
  tmp.remove()
})

const ALL = { callTypes: [], direction: null, results: 'all' as const, hasNewRequest: null, includeAnalysis: true }

async function failure(p: Promise<unknown>): Promise<{ code?: string; message: string }> {
  try {
    await p
  } catch (e) {
    return e as { code?: string; message: string }
  }
  throw new Error('expected the statement to fail')
}

describe('team cache schema 3: memberships checked per statement instead of a foreign key', () => {
  it('upgrades a schema 2 cache with data, keeps it, and keeps memberships pointing at existing scopes', async () => {
    const url = cluster.urlFor({ database: await freshDatabase(cluster) })
    // createPool's, not a bare pg.Pool: pool.end() resolves before its clients' sockets
    // close, and a client told "terminating connection" by the cluster's stop meanwhile
    // emits an error that, unheard, fails the test file.
    const pool = createPool({ url, schema: 'acme', maxConnections: 2 })
    try {
      // A cache as schema 2 left it, with calls, scopes and memberships.
      expect(
        await migratePg(
          pool,
          'acme',
          pgMigrations.filter((m) => m.version <= 2)
        )
      ).toBe(2)
      await pool.query(
        `INSERT INTO acme.scopes (scope_key, filters, seq) VALUES ('all', '${JSON.stringify(ALL)}', nextval('acme.changes'))`
      )
      await pool.query(`
        INSERT INTO acme.calls (call_id, call_at, call_date, title, summary, extra, analysis, first_seen_at, last_changed_at, seq)
        SELECT 'C' || i, 1767614400000 + i, '2026-01-05T15:00:00+03:00', 'Görüşme ' || i, 'özet', '{}', '[]', 1, 1, nextval('acme.changes')
        FROM generate_series(1, 50) AS i`)
      await pool.query(`INSERT INTO acme.scope_members (scope_id, call_id, seq) SELECT 1, call_id, nextval('acme.changes') FROM acme.calls`)
      const fk = "SELECT count(*)::int AS n FROM pg_constraint WHERE conrelid = 'acme.scope_members'::regclass AND contype = 'f'"
      expect((await pool.query(fk)).rows[0].n).toBe(1)
      const before = (await pool.query('SELECT scope_id, call_id, seq FROM acme.scope_members ORDER BY call_id')).rows

      expect(await migratePg(pool, 'acme')).toBe(PG_SCHEMA_VERSION)
      expect(await schemaVersion(pool, 'acme')).toBe(PG_SCHEMA_VERSION)
      expect((await pool.query(fk)).rows[0].n).toBe(0)
      expect((await pool.query('SELECT scope_id, call_id, seq FROM acme.scope_members ORDER BY call_id')).rows).toEqual(before)
      expect((await pool.query('SELECT count(*)::int AS n FROM acme.calls')).rows[0].n).toBe(50)

      // A membership of a scope that does not exist fails as the foreign key failed, also
      // amid valid ones, also through ON CONFLICT, also by update.
      for (const sql of [
        `INSERT INTO acme.scope_members (scope_id, call_id, seq) VALUES (99, 'C1', nextval('acme.changes'))`,
        `INSERT INTO acme.scope_members (scope_id, call_id, seq) VALUES (1, 'X1', nextval('acme.changes')), (7, 'X2', nextval('acme.changes')) ON CONFLICT DO NOTHING`,
        `UPDATE acme.scope_members SET scope_id = 5 WHERE call_id = 'C3'`
      ]) {
        const e = await failure(pool.query(sql))
        expect(e.code).toBe('23503')
      }
      expect((await pool.query('SELECT scope_id, call_id, seq FROM acme.scope_members ORDER BY call_id')).rows).toEqual(before)

      // A scope with memberships can be neither deleted, renumbered nor truncated; one without can be deleted.
      expect((await failure(pool.query(`DELETE FROM acme.scopes WHERE id = 1`))).code).toBe('23503')
      expect((await failure(pool.query(`TRUNCATE acme.scopes`))).code).toBe('23503')
      await pool.query(`INSERT INTO acme.scopes (scope_key, filters, seq) VALUES ('spare', '{}', nextval('acme.changes'))`)
      expect((await pool.query(`DELETE FROM acme.scopes WHERE scope_key = 'spare'`)).rowCount).toBe(1)
      await pool.query('UPDATE acme.scopes SET last_success_at = 5 WHERE id = 1')

      // The store writes into the upgraded cache, and a workstation pulls all of it.
      const store = await PgSyncStore.open({ url, schema: 'acme' })
      try {
        const records = Array.from({ length: 30 }, (_, i) => ({
          callId: `N${i}`,
          callAt: 1767614400000 + 1000 * i,
          callDate: '2026-01-05T15:00:00+03:00',
          title: `Yeni ${i}`,
          summary: 'özet',
          analysis: [{ key: 'score', friendlyName: 'Skor', value: String(i) }],
          extra: {}
        }))
        const [n] = await store.writePages([{ scopeKey: 'all', records, includeAnalysis: true, checkpoint: { next: 30 } }])
        expect(n!.inserted).toBe(30)
      } finally {
        await store.close()
      }
      const cache = openCache(`${tmp.dir}/pulled.sqlite`)
      const reader = createPool({ url, schema: 'acme', maxConnections: 1 })
      try {
        const r = await pullTeamCache({ pool: reader, schema: 'acme', sourceLabel: 'test', cache })
        expect(r.calls).toBe(80)
      } finally {
        await reader.end()
        cache.close()
      }
    } finally {
      await pool.end()
    }
  }, 60_000)
})
