import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { deleteList } from '../../../src/core/review/review-service'
import { createPool, migratePg, PG_SCHEMA_VERSION, pgMigrations, pullReview, pushReview, schemaVersion } from '../../../src/core/team'
import { FAST_TEST_SETTINGS, startPgCluster, type PgCluster } from '../../support/pg-cluster'
import { freshDatabase, tempDir } from './helpers'
import { SCHEMA, setUpTenant, workstation } from './review-support'

let cluster: PgCluster
const tmp = tempDir('callsight-pgmig9-')

beforeAll(async () => {
  cluster = await startPgCluster({ settings: FAST_TEST_SETTINGS })
}, 60_000)
afterAll(async () => {
  await cluster?.stop()
  tmp.remove()
})

const LIST = '6f0c1f39-5a57-4d5e-9a43-3a0c7c0e0a01'
const ROUND = '6f0c1f39-5a57-4d5e-9a43-3a0c7c0e0a02'

describe('team cache schema 9: shared deletions (tombstones)', () => {
  it('upgrades a schema 8 cache holding review work, keeps every row, and a lead then deletes a list from it', async () => {
    const database = await freshDatabase(cluster)
    const pool = createPool({ url: cluster.urlFor({ database }), schema: SCHEMA, maxConnections: 2 })
    try {
      expect(
        await migratePg(
          pool,
          SCHEMA,
          pgMigrations.filter((m) => m.version <= 8)
        )
      ).toBe(8)
      await pool.query(`INSERT INTO acme.team_review_lists (id, name, source, created_at) VALUES ($1, 'Old list', '{}', 1)`, [LIST])
      await pool.query(
        `INSERT INTO acme.team_review_list_items (list_id, position, call_id, assignee) VALUES ($1, 0, 'c1', 'ayse'), ($1, 1, 'c2', 'ayse')`,
        [LIST]
      )
      await pool.query(
        `INSERT INTO acme.team_calibrations (id, name, scorecard_id, scorecard_version, call_ids, reviewers, created_at)
         VALUES ($1, 'Old round', 'card', 1, '["c1"]', '["ayse","mehmet"]', 1)`,
        [ROUND]
      )
      await pool.query(
        `INSERT INTO acme.calibration_answers (session_id, call_id, answers, changed_at) VALUES ($1, 'c1', '{"greet":3}', 1)`,
        [ROUND]
      )
      await pool.query(
        `INSERT INTO acme.evaluations (call_id, note, created_at, changed_at, change_id) VALUES ('c1', 'kept', 1, 1, gen_random_uuid())`
      )
      const count = async (): Promise<number[]> => {
        const out: number[] = []
        for (const t of ['team_review_lists', 'team_review_list_items', 'team_calibrations', 'calibration_answers', 'evaluations'])
          out.push(Number((await pool.query(`SELECT count(*) AS n FROM acme.${t}`)).rows[0].n))
        return out
      }
      expect(await count()).toEqual([1, 2, 1, 1, 1])

      // `team init` of this version migrates (and grants), then the team's logins.
      await setUpTenant(cluster, database, [{ name: 'lena', lead: true }, { name: 'ayse' }])
      expect(await schemaVersion(pool, SCHEMA)).toBe(PG_SCHEMA_VERSION)
      expect(await count()).toEqual([1, 2, 1, 1, 1])
      expect(Number((await pool.query('SELECT count(*) AS n FROM acme.review_tombstones')).rows[0].n)).toBe(0)

      // The lists kept are the team's as before: pulled, and deleted by a lead for everyone.
      const lena = workstation(cluster, database, tmp.dir, 'lena')
      const ayse = workstation(cluster, database, tmp.dir, 'ayse')
      try {
        for (const ws of [lena, ayse]) await pullReview({ pool: ws.pool, schema: SCHEMA, cache: ws.cache })
        expect(ayse.cache.review.reviewLists.callIds(LIST)).toEqual(['c1', 'c2'])
        deleteList({ cache: lena.cache, now: () => Date.now() - 1000 }, LIST)
        await pushReview({ pool: lena.pool, schema: SCHEMA, cache: lena.cache })
        await pullReview({ pool: ayse.pool, schema: SCHEMA, cache: ayse.cache })
        expect(ayse.cache.review.reviewLists.exists(LIST)).toBe(false)
        expect(await count()).toEqual([0, 0, 1, 1, 1])
      } finally {
        await lena.close()
        await ayse.close()
      }
    } finally {
      await pool.end()
    }
  }, 90_000)
})
