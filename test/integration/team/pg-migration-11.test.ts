/**
 * Schema 11 on a cache that already holds calls: they are numbered in call_at order, their
 * chunks marked dirty, `team init` builds the postings, a new call takes the next number, and
 * the count from the postings equals count(*). Real PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPool, disableTeamSearch, enableTeamSearch, migratePg, PG_SCHEMA_VERSION, pgMigrations } from '../../../src/core/team'
import { readCatalog } from '../../../src/core/team/team-search'
import { compileTeamQuery } from '../../../src/core/team/team-query'
import { postingsCount } from '../../../src/core/team/team-postings-count'
import { inTransaction } from '../../../src/core/team/pg-transaction'
import { SearchQuery } from '../../../src/shared/domain'
import { FAST_TEST_SETTINGS, startPgCluster, type PgCluster } from '../../support/pg-cluster'
import { freshDatabase } from './helpers'
import { SCHEMA, setUpTenant } from './review-support'

let cluster: PgCluster

beforeAll(async () => {
  cluster = await startPgCluster({ settings: FAST_TEST_SETTINGS })
}, 60_000)
afterAll(async () => {
  await cluster?.stop()
})

const N = 600

describe('team cache schema 11: the count postings', () => {
  it('numbers the calls already there in call_at order, and team init builds their postings', async () => {
    const database = await freshDatabase(cluster)
    const pool = createPool({ url: cluster.urlFor({ database }), schema: SCHEMA, maxConnections: 2 })
    try {
      expect(
        await migratePg(
          pool,
          SCHEMA,
          pgMigrations.filter((m) => m.version <= 10)
        )
      ).toBe(10)
      await enableTeamSearch(pool, SCHEMA)
      await pool.query(`INSERT INTO acme.meta (key, value) VALUES ('count_chunk_bits', '8')`)
      await pool.query(`INSERT INTO acme.search_keys VALUES ('csat', 'Memnuniyet', ${N}, ${N})`)
      // Call ids in the opposite order of their times; the analysis value among the words, as the writer puts it.
      await pool.query(
        `INSERT INTO acme.calls (call_id, call_at, call_date, title, summary, extra, analysis, first_seen_at, last_changed_at, seq, search, facts)
         SELECT 'c' || lpad(i::text, 4, '0'), (${N} - i) * 60000, '', 't', 's', '{}', '[]', 0, 0, i,
           (CASE WHEN i % 3 = 0 THEN 'kargo:1A fatura:2B ' ELSE 'fatura:1A ' END || (i % 5) || ':4C')::tsvector, jsonb_build_object('csat', jsonb_build_array((i % 5)::text, i % 5))
         FROM generate_series(1, ${N}) i`
      )
      expect(await migratePg(pool, SCHEMA)).toBe(PG_SCHEMA_VERSION)

      const order = await pool.query<{ by_num: string[]; by_time: string[]; lo: string; hi: string }>(
        `SELECT array_agg(call_id ORDER BY num) AS by_num, array_agg(call_id ORDER BY call_at, call_id) AS by_time, min(num) AS lo, max(num) AS hi FROM acme.calls`
      )
      expect(order.rows[0]!.by_num).toEqual(order.rows[0]!.by_time)
      expect([order.rows[0]!.lo, order.rows[0]!.hi]).toEqual(['1', String(N)])
      const dirty = async (): Promise<number[]> =>
        (await pool.query<{ chunk: number }>('SELECT chunk FROM acme.count_dirty ORDER BY chunk')).rows.map((r) => r.chunk)
      expect(await dirty()).toEqual([0, 1, 2])

      await setUpTenant(cluster, database, [])
      expect(await dirty()).toEqual([])
      expect((await pool.query(`SELECT count(DISTINCT chunk)::int AS n FROM acme.count_posts WHERE term = 'all'`)).rows[0]).toEqual({
        n: 3
      })

      // A new call: the next number.
      await pool.query(
        `INSERT INTO acme.calls (call_id, call_at, call_date, title, summary, extra, first_seen_at, last_changed_at, seq, search, facts)
         VALUES ('z-new', 0, '', 't', 's', '{}', 0, 0, 0, 'kargo:1A', '{}')`
      )
      expect((await pool.query(`SELECT num FROM acme.calls WHERE call_id = 'z-new'`)).rows[0]).toEqual({ num: String(N + 1) })
      expect(await dirty()).toEqual([2])

      for (const text of ['kargo', '-kargo', 'csat:3', 'csat:2..3 -kargo', 'fat']) {
        const c = await pool.connect()
        try {
          const r = await inTransaction(
            c,
            async () => {
              const compiled = compileTeamQuery(SearchQuery.parse({ text, results: 'all' }), await readCatalog(c, SCHEMA), SCHEMA)
              const sql = await c.query<{ n: string }>(
                `SELECT count(*) AS n FROM acme.calls c WHERE ${compiled.where.join(' AND ')}`,
                compiled.params
              )
              return { text, postings: await postingsCount(c, SCHEMA, compiled), sql: Number(sql.rows[0]!.n) }
            },
            'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY'
          )
          expect(r).toEqual({ text, postings: r.sql, sql: r.sql })
          expect(r.sql).toBeGreaterThan(0)
        } finally {
          c.release()
        }
      }
    } finally {
      await pool.end()
    }
  })

  it('numbers the calls only while search is on: none with it off, added by enable, dropped by disable', async () => {
    const database = await freshDatabase(cluster)
    const pool = createPool({ url: cluster.urlFor({ database }), schema: SCHEMA, maxConnections: 2 })
    const numbered = async (): Promise<{ num: boolean; triggers: number }> => {
      const r = await pool.query<{ num: boolean; triggers: number }>(
        `SELECT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = 'acme.calls'::regclass AND attname = 'num' AND NOT attisdropped) AS num,
                (SELECT count(*)::int FROM pg_trigger WHERE tgname LIKE '%count%' AND NOT tgisinternal) AS triggers`
      )
      return r.rows[0]!
    }
    try {
      // A new cache starts with search off: its calls carry no number (size per call unchanged).
      expect(await migratePg(pool, SCHEMA)).toBe(PG_SCHEMA_VERSION)
      expect(await numbered()).toEqual({ num: false, triggers: 0 })
      await pool.query(
        `INSERT INTO acme.calls (call_id, call_at, call_date, title, summary, extra, first_seen_at, last_changed_at, seq)
         SELECT 'c' || i, (10 - i) * 60000, '', 't', 's', '{}', 0, 0, i FROM generate_series(1, 10) i`
      )
      expect((await pool.query('SELECT count(*)::int AS n FROM acme.count_dirty')).rows[0]).toEqual({ n: 0 })

      await enableTeamSearch(pool, SCHEMA)
      expect(await numbered()).toEqual({ num: true, triggers: 7 })
      const order = await pool.query<{ by_num: string[]; by_time: string[] }>(
        `SELECT array_agg(call_id ORDER BY num) AS by_num, array_agg(call_id ORDER BY call_at, call_id) AS by_time FROM acme.calls`
      )
      expect(order.rows[0]!.by_num).toEqual(order.rows[0]!.by_time)
      expect((await pool.query('SELECT count(*)::int AS n FROM acme.count_dirty')).rows[0]).toEqual({ n: 1 })
      // Enabled again: nothing renumbered.
      await enableTeamSearch(pool, SCHEMA)
      expect((await pool.query(`SELECT num FROM acme.calls WHERE call_id = 'c10'`)).rows[0]).toEqual({ num: '1' })

      await disableTeamSearch(pool, SCHEMA)
      expect(await numbered()).toEqual({ num: false, triggers: 0 })
      expect((await pool.query('SELECT count(*)::int AS n FROM acme.count_dirty')).rows[0]).toEqual({ n: 0 })
      // A write with search off marks nothing and needs no number.
      await pool.query(
        `INSERT INTO acme.calls (call_id, call_at, call_date, title, summary, extra, first_seen_at, last_changed_at, seq)
         VALUES ('late', 0, '', 't', 's', '{}', 0, 0, 11)`
      )
      await enableTeamSearch(pool, SCHEMA)
      expect((await pool.query('SELECT count(DISTINCT num)::int AS n, min(num)::int AS lo FROM acme.calls')).rows[0]).toEqual({
        n: 11,
        lo: 1
      })
    } finally {
      await pool.end()
    }
  })
})
