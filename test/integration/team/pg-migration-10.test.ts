import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { deleteList, removeFromList } from '../../../src/core/review/review-service'
import { createPool, migratePg, PG_SCHEMA_VERSION, pgMigrations, pullReview, pushReview, schemaVersion } from '../../../src/core/team'
import { FAST_TEST_SETTINGS, startPgCluster, type PgCluster } from '../../support/pg-cluster'
import { freshDatabase, tempDir } from './helpers'
import { SCHEMA, setUpTenant, workstation } from './review-support'

let cluster: PgCluster
const tmp = tempDir('callsight-pgmig10-')

beforeAll(async () => {
  cluster = await startPgCluster({ settings: FAST_TEST_SETTINGS })
}, 60_000)
afterAll(async () => {
  await cluster?.stop()
  tmp.remove()
})

const LIST = '6f0c1f39-5a57-4d5e-9a43-3a0c7c0e0a11'
const GONE = '6f0c1f39-5a57-4d5e-9a43-3a0c7c0e0a12'

describe('team cache schema 10: calls removed from a list (list-call tombstones)', () => {
  it("upgrades a schema 9 cache with a list and a deletion, keeps every row, and a lead's removal then travels", async () => {
    const database = await freshDatabase(cluster)
    const pool = createPool({ url: cluster.urlFor({ database }), schema: SCHEMA, maxConnections: 2 })
    try {
      expect(
        await migratePg(
          pool,
          SCHEMA,
          pgMigrations.filter((m) => m.version <= 9)
        )
      ).toBe(9)
      await pool.query(`INSERT INTO acme.team_review_lists (id, name, source, created_at) VALUES ($1, 'Old list', '{}', 1)`, [LIST])
      await pool.query(
        `INSERT INTO acme.team_review_list_items (list_id, position, call_id, assignee) VALUES ($1, 0, 'c1', 'ayse'), ($1, 1, 'c2', 'ayse')`,
        [LIST]
      )
      await pool.query(`INSERT INTO acme.review_tombstones (kind, id, deleted_at) VALUES ('list', $1, 5)`, [GONE])
      const rows = async (): Promise<unknown[]> =>
        (
          await pool.query(
            `SELECT (SELECT count(*)::int FROM acme.team_review_lists) AS lists, (SELECT count(*)::int FROM acme.team_review_list_items) AS items,
                    (SELECT json_agg(json_build_object('kind', kind, 'id', id, 'at', deleted_at)) FROM acme.review_tombstones) AS tombstones`
          )
        ).rows
      const before = await rows()

      await setUpTenant(cluster, database, [{ name: 'lena', lead: true }, { name: 'ayse' }])
      expect(await schemaVersion(pool, SCHEMA)).toBe(PG_SCHEMA_VERSION)
      expect(await rows()).toEqual(before)
      expect((await pool.query(`SELECT call_id FROM acme.review_tombstones WHERE id = $1`, [GONE])).rows).toEqual([{ call_id: '' }])
      // The deleted list stays deleted: its rows are still dropped.
      await pool.query(`INSERT INTO acme.team_review_lists (id, name, source, created_at) VALUES ($1, 'Back?', '{}', 1)`, [GONE])
      expect((await pool.query('SELECT 1 FROM acme.team_review_lists WHERE id = $1', [GONE])).rowCount).toBe(0)

      const lena = workstation(cluster, database, tmp.dir, 'lena')
      const ayse = workstation(cluster, database, tmp.dir, 'ayse')
      try {
        for (const ws of [lena, ayse]) await pullReview({ pool: ws.pool, schema: SCHEMA, cache: ws.cache })
        expect(ayse.cache.review.reviewLists.callIds(LIST)).toEqual(['c1', 'c2'])
        removeFromList({ cache: lena.cache, now: () => Date.now() - 1000 }, LIST, ['c2'])
        await pushReview({ pool: lena.pool, schema: SCHEMA, cache: lena.cache })
        await pullReview({ pool: ayse.pool, schema: SCHEMA, cache: ayse.cache })
        expect(ayse.cache.review.reviewLists.callIds(LIST)).toEqual(['c1'])
        // A whole list's deletion still travels beside the calls' removals.
        deleteList({ cache: lena.cache, now: () => Date.now() - 500 }, LIST)
        await pushReview({ pool: lena.pool, schema: SCHEMA, cache: lena.cache })
        await pullReview({ pool: ayse.pool, schema: SCHEMA, cache: ayse.cache })
        expect(ayse.cache.review.reviewLists.exists(LIST)).toBe(false)
      } finally {
        await lena.close()
        await ayse.close()
      }
    } finally {
      await pool.end()
    }
  }, 90_000)
})
