/**
 * Schema 12: the memberships by call, which the postings' builder reads a chunk's scopes by,
 * kept while the team search is on (created by the migration on a numbered cache, by
 * `team search enable`, dropped by `disable`), and the scope postings built through it equal
 * the memberships. Real PostgreSQL.
 */
import type pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPool, disableTeamSearch, enableTeamSearch, migratePg, PG_SCHEMA_VERSION, pgMigrations } from '../../../src/core/team'
import { offsetsOf, orPosts } from '../../../src/core/team/count-posts'
import { MEMBERS_BY_CALL } from '../../../src/core/team/pg-migration-11'
import { readChunkTerms } from '../../../src/core/team/team-postings-build'
import { FAST_TEST_SETTINGS, startPgCluster, type PgCluster } from '../../support/pg-cluster'
import { freshDatabase } from './helpers'
import { SCHEMA } from './review-support'

let cluster: PgCluster

beforeAll(async () => {
  cluster = await startPgCluster({ settings: FAST_TEST_SETTINGS })
}, 60_000)
afterAll(async () => {
  await cluster?.stop()
})

const BITS = 8

describe('team cache schema 12: the memberships by call', () => {
  it('comes and goes with the search, and a numbered cache of schema 11 gets it on upgrade', async () => {
    const database = await freshDatabase(cluster)
    const pool = createPool({ url: cluster.urlFor({ database }), schema: SCHEMA, maxConnections: 2 })
    const indexed = async (): Promise<boolean> =>
      (await pool.query<{ ok: boolean }>(`SELECT to_regclass('${SCHEMA}.${MEMBERS_BY_CALL}') IS NOT NULL AS ok`)).rows[0]!.ok
    try {
      expect(await migratePg(pool, SCHEMA)).toBe(PG_SCHEMA_VERSION)
      expect(PG_SCHEMA_VERSION).toBeGreaterThanOrEqual(12)
      // Search off (a new cache): no index, its bytes not spent.
      expect(await indexed()).toBe(false)
      await enableTeamSearch(pool, SCHEMA)
      expect(await indexed()).toBe(true)
      await disableTeamSearch(pool, SCHEMA)
      expect(await indexed()).toBe(false)

      // A cache numbered by schema 11 before this index existed.
      await enableTeamSearch(pool, SCHEMA)
      await pool.query(`DROP INDEX ${SCHEMA}.${MEMBERS_BY_CALL}`)
      await pool.query(`UPDATE ${SCHEMA}.meta SET value = '11' WHERE key = 'schema_version'`)
      expect(await migratePg(pool, SCHEMA)).toBe(PG_SCHEMA_VERSION)
      expect(await indexed()).toBe(true)
    } finally {
      await pool.end()
    }
  })

  it('is not made on upgrade for a cache whose search is off', async () => {
    const database = await freshDatabase(cluster)
    const pool = createPool({ url: cluster.urlFor({ database }), schema: SCHEMA, maxConnections: 2 })
    try {
      expect(
        await migratePg(
          pool,
          SCHEMA,
          pgMigrations.filter((m) => m.version <= 11)
        )
      ).toBe(11)
      expect(await migratePg(pool, SCHEMA)).toBe(PG_SCHEMA_VERSION)
      expect((await pool.query(`SELECT to_regclass('${SCHEMA}.${MEMBERS_BY_CALL}') IS NOT NULL AS ok`)).rows[0]).toEqual({ ok: false })
    } finally {
      await pool.end()
    }
  })

  it("builds each chunk's scope postings from the memberships, read by call through the index", async () => {
    const database = await freshDatabase(cluster)
    const pool = createPool({ url: cluster.urlFor({ database }), schema: SCHEMA, maxConnections: 2 })
    try {
      await migratePg(pool, SCHEMA)
      await pool.query(`INSERT INTO ${SCHEMA}.meta (key, value) VALUES ('count_chunk_bits', '${BITS}')`)
      await enableTeamSearch(pool, SCHEMA)
      const n = 700
      await pool.query(
        `INSERT INTO ${SCHEMA}.calls (call_id, call_at, call_date, title, summary, extra, first_seen_at, last_changed_at, seq)
         SELECT 'c' || lpad(i::text, 4, '0'), i * 60000, '', 't', 's', '{}', 0, 0, i FROM generate_series(1, ${n}) i`
      )
      const scopes = await pool.query<{ id: number }>(
        `INSERT INTO ${SCHEMA}.scopes (scope_key, filters, seq) VALUES ('all', '{}', 1), ('third', '{}', 1), ('none', '{}', 1) RETURNING id`
      )
      const [all, third] = scopes.rows.map((r) => r.id)
      await pool.query(`INSERT INTO ${SCHEMA}.scope_members (scope_id, call_id, seq) SELECT $1, call_id, 1 FROM ${SCHEMA}.calls`, [all])
      await pool.query(
        `INSERT INTO ${SCHEMA}.scope_members (scope_id, call_id, seq) SELECT $1, call_id, 1 FROM ${SCHEMA}.calls WHERE num % 3 = 0`,
        [third]
      )

      const c = await pool.connect()
      try {
        // The builder's statements, recorded to explain the one that reads the memberships.
        const seen: Array<{ sql: string; params: unknown[] }> = []
        const recording = {
          query: (sql: string, params: unknown[]) => {
            seen.push({ sql, params })
            return c.query(sql, params)
          }
        } as unknown as pg.ClientBase
        for (let chunk = 0; chunk * 2 ** BITS <= n; chunk++) {
          const built = await readChunkTerms(recording, SCHEMA, chunk, BITS)
          const offsets = (scope: number): number[] => {
            const i = built.terms.indexOf(`s:${scope}`)
            if (i < 0) return []
            const set = new Uint32Array(2 ** BITS / 32)
            orPosts(set, built.posts[i]!, BITS)
            return offsetsOf(set)
          }
          const expected = async (scope: number): Promise<number[]> =>
            (
              await pool.query<{ o: number }>(
                `SELECT (c.num - $1)::int AS o FROM ${SCHEMA}.calls c JOIN ${SCHEMA}.scope_members m ON m.call_id = c.call_id
                 WHERE m.scope_id = $3 AND c.num >= $1 AND c.num < $2 ORDER BY 1`,
                [chunk * 2 ** BITS, (chunk + 1) * 2 ** BITS, scope]
              )
            ).rows.map((r) => r.o)
          expect(offsets(all!)).toEqual(await expected(all!))
          expect(offsets(third!)).toEqual(await expected(third!))
          expect(offsets(third!).length).toBeGreaterThan(0)
          expect(built.terms.filter((t) => t.startsWith('s:'))).toHaveLength(2)
        }
        // The builder's read of a chunk's memberships is a lookup per call, not a pass over all of them.
        const members = seen.find((q) => q.sql.includes('scope_members'))!
        await c.query(`ANALYZE ${SCHEMA}.scope_members`)
        const plan = await c.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${members.sql}`, members.params)
        expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toContain(MEMBERS_BY_CALL)
      } finally {
        c.release()
      }
    } finally {
      await pool.end()
    }
  })
})
