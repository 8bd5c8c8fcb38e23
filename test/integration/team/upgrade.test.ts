import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openCache } from '../../../src/core/cache'
import {
  createPool,
  migratePg,
  PG_MIN_READER_VERSION,
  PG_SCHEMA_VERSION,
  PgSyncStore,
  pgMigrations,
  pullTeamCache,
  type PgMigration
} from '../../../src/core/team'
import { engineFor, freshDatabase, FROM_MS, signedInSession, TO_MS, useClusterAndService } from './helpers'

/**
 * Upgrades one at a time: the worker and `team init` move first, workstations follow at their
 * own pace while the minimum reader version allows; a workstation ahead of the schema says so.
 */
const team = useClusterAndService({ calls: 400 }, 'callsight-upgrade-')

const ALL = { from: FROM_MS, to: TO_MS, results: 'all' as const, includeAnalysis: true }
const OLDER_THAN_CLIENT = "The team cache's schema is older than this Callsight: upgrade the worker and run `callsight team init` first"

/** The next release as a test sees it: one additive step (a new column the pull does not read). */
const NEXT_RELEASE: PgMigration = {
  version: PG_SCHEMA_VERSION + 1,
  sql: (schema) => `ALTER TABLE "${schema}".calls ADD COLUMN sentiment text;`
}

async function pull(url: string, file: string) {
  const pool = createPool({ url, schema: 'acme', maxConnections: 2 })
  const cache = openCache(file)
  try {
    return await pullTeamCache({ pool, schema: 'acme', sourceLabel: url, cache, batchSize: 200 })
  } finally {
    cache.close()
    await pool.end()
  }
}

describe('upgrades one at a time', () => {
  it('today’s workstation keeps pulling from the next release’s schema until its minimum reader version passes it', async () => {
    const database = await freshDatabase(team.cluster)
    const url = team.cluster.urlFor({ database })
    const { session } = await signedInSession(team.service)
    const store = await PgSyncStore.open({ url, schema: 'acme', migrate: true })
    try {
      await engineFor(session, store).run(ALL, { mode: 'full' })
    } finally {
      await store.close()
    }
    const file = join(team.dir, 'upgrade-w.sqlite')
    expect((await pull(url, file)).phase).toBe('done')

    // The worker of the next release migrates: one more version, readers down to today's.
    const admin = createPool({ url, schema: 'acme', maxConnections: 1 })
    try {
      await migratePg(admin, 'acme', [...pgMigrations, NEXT_RELEASE], PG_MIN_READER_VERSION)
      const meta = await admin.query<{ key: string; value: string }>(`SELECT key, value FROM acme.meta ORDER BY key`)
      expect(Object.fromEntries(meta.rows.map((r) => [r.key, r.value]))).toMatchObject({
        schema_version: String(PG_SCHEMA_VERSION + 1),
        min_reader_version: String(PG_MIN_READER_VERSION)
      })
      // And writes with it: a changed call, its new column filled.
      await admin.query(
        `UPDATE acme.calls SET title = 'Renamed by the next release', sentiment = 'calm', seq = nextval('acme.changes')
         WHERE call_id = (SELECT min(call_id) FROM acme.calls)`
      )
      const p = await pull(url, file)
      expect(p.phase, JSON.stringify(p.error)).toBe('done')
      expect(p.calls).toBe(1)
      const cache = openCache(file)
      try {
        const id = (await admin.query<{ id: string }>('SELECT min(call_id) AS id FROM acme.calls')).rows[0]!.id
        expect(cache.getCall(id)?.title).toBe('Renamed by the next release')
      } finally {
        cache.close()
      }

      // Today's worker does not write to a schema it does not know.
      await expect(PgSyncStore.open({ url, schema: 'acme' })).rejects.toMatchObject({ code: 'DatabaseTooNew' })

      // A later release raises the minimum past today's reader: a clear refusal.
      await admin.query(`UPDATE acme.meta SET value = $1 WHERE key = 'min_reader_version'`, [String(PG_SCHEMA_VERSION + 1)])
      const refused = await pull(url, file)
      expect(refused.phase).toBe('failed')
      expect(refused.error?.code).toBe('DatabaseTooNew')
      expect(refused.error?.message).toMatch(/newer version of Callsight/)
    } finally {
      await admin.end()
    }
  }, 120_000)

  it('a workstation newer than the schema says the worker and team init go first; so does the worker', async () => {
    const database = await freshDatabase(team.cluster)
    const url = team.cluster.urlFor({ database })
    const admin = createPool({ url, schema: 'acme', maxConnections: 1 })
    try {
      // The release before: its migrations only.
      await migratePg(
        admin,
        'acme',
        pgMigrations.filter((m) => m.version < PG_SCHEMA_VERSION),
        PG_SCHEMA_VERSION - 1
      )
    } finally {
      await admin.end()
    }
    const p = await pull(url, join(team.dir, 'older-schema.sqlite'))
    expect(p.phase).toBe('failed')
    expect(p.error?.message).toContain(OLDER_THAN_CLIENT)
    await expect(PgSyncStore.open({ url, schema: 'acme' })).rejects.toThrow(OLDER_THAN_CLIENT)
  }, 60_000)
})
