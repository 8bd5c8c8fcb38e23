/**
 * The team cache search is opt-in per tenant (pg-migration-8.ts): a real PostgreSQL set up by
 * teamInit, written by the worker's role through the store; the search switched on (columns
 * added, backfilled, resumably), answering as the local search over the same calls, and off
 * again (columns dropped) while writes go on; an upgrade keeps a search already in use.
 */
import { join } from 'node:path'
import type pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openCache, type CallCache } from '../../../src/core/cache'
import { createSearch, type LocalSearch } from '../../../src/core/search'
import {
  createPool,
  disableTeamSearch,
  enableTeamSearch,
  migratePg,
  pgMigrations,
  PgSyncStore,
  searchTeamCache,
  teamSearchState
} from '../../../src/core/team'
import { SearchQuery } from '../../../src/shared/domain'
import { FAST_TEST_SETTINGS, startPgCluster, type PgCluster } from '../../support/pg-cluster'
import { freshDatabase, tempDir } from './helpers'
import { SCHEMA, setUpTenant } from './review-support'
import { makeCalls, pagesOf, SCOPES } from './team-search-data'

const N = 600
const QUERIES = [
  'fatura',
  '"kargo gecikti"',
  'fatura -itiraz',
  'title:fatura',
  'sentiment:olumsuz',
  'score>=70',
  'iptal OR sentiment:olumlu'
]

let cluster: PgCluster
let database: string
let owner: pg.Pool
let reader: pg.Pool
let writer: PgSyncStore
let cache: CallCache
let local: LocalSearch
const tmp = tempDir('cs-team-search-switch-')

beforeAll(async () => {
  cluster = await startPgCluster({ settings: FAST_TEST_SETTINGS })
  database = await freshDatabase(cluster)
  await setUpTenant(cluster, database, [])
  owner = createPool({ url: cluster.urlFor({ database }), schema: SCHEMA, maxConnections: 1 })
  reader = createPool({
    url: cluster.urlFor({ database, user: `${SCHEMA}_reader`, password: 'reader-pw-1' }),
    schema: SCHEMA,
    maxConnections: 1
  })
  writer = await PgSyncStore.open({ url: cluster.urlFor({ database, user: `${SCHEMA}_writer`, password: 'writer-pw-1' }), schema: SCHEMA })
  cache = openCache(join(tmp.dir, 'local.sqlite'))
  for (const key of Object.keys(SCOPES) as Array<keyof typeof SCOPES>) {
    await writer.ensureScope(key, SCOPES[key])
    cache.ensureScope(key, SCOPES[key])
  }
  local = createSearch(cache)
}, 180_000)

afterAll(async () => {
  await writer?.close()
  await reader?.end()
  await owner?.end()
  cache?.close()
  await cluster?.stop()
  tmp.remove()
})

/** Both stores get the same pages. */
async function write(pages: ReturnType<typeof pagesOf>): Promise<void> {
  for (let i = 0; i < pages.length; i += 10) {
    await writer.writePages(pages.slice(i, i + 10))
    cache.writePages(pages.slice(i, i + 10))
  }
}

/** What the calls table carries for search: its columns and indexes, and the state in meta. */
async function searchParts(): Promise<{ columns: string[]; indexes: string[]; meta: string | null; keys: number }> {
  const cols = await owner.query<{ c: string }>(
    `SELECT column_name AS c FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'calls' AND column_name IN ('search', 'facts') ORDER BY 1`,
    [SCHEMA]
  )
  const idx = await owner.query<{ i: string }>(
    `SELECT indexname AS i FROM pg_indexes WHERE schemaname = $1 AND tablename = 'calls' AND indexname IN ('calls_search', 'calls_by_date', 'calls_search_missing') ORDER BY 1`,
    [SCHEMA]
  )
  const meta = await owner.query<{ value: string }>(`SELECT value FROM ${SCHEMA}.meta WHERE key = 'search'`)
  const keys = await owner.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${SCHEMA}.search_keys`)
  return { columns: cols.rows.map((r) => r.c), indexes: idx.rows.map((r) => r.i), meta: meta.rows[0]?.value ?? null, keys: keys.rows[0]!.n }
}

async function answers(): Promise<Array<{ text: string; local: unknown; team: unknown }>> {
  const out: Array<{ text: string; local: unknown; team: unknown }> = []
  for (const text of QUERIES) {
    const q = SearchQuery.parse({ text, results: 'all' })
    const t = await searchTeamCache({ pool: reader, schema: SCHEMA }, q, { offset: 0, limit: 20, count: 'exact' })
    out.push({
      text,
      local: { total: { kind: 'exact', n: local.count(q) }, rows: local.page(q, 0, 20).rows.map((r) => [r.callId, r.matchedIn ?? []]) },
      team: { total: t.total, rows: t.page.rows.map((r) => [r.callId, r.matchedIn ?? []]) }
    })
  }
  return out
}

const refusal = async (): Promise<unknown> =>
  searchTeamCache({ pool: reader, schema: SCHEMA }, SearchQuery.parse({ text: 'fatura' }), { offset: 0, limit: 5 }).then(
    () => 'answered',
    (e: { code?: string; message?: string; hint?: string }) => ({ code: e.code, message: e.message, hint: e.hint })
  )

describe('the team cache search, off unless turned on', () => {
  it('a new cache has no search columns or indexes, the worker writes without them, and a search is refused clearly', async () => {
    await write(pagesOf(makeCalls(N)))
    expect(await searchParts()).toEqual({ columns: [], indexes: [], meta: 'off', keys: 0 })
    expect(await teamSearchState(reader, SCHEMA)).toBe('off')
    const n = await owner.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${SCHEMA}.calls`)
    expect(n.rows[0]!.n).toBe(N)
    expect(await refusal()).toEqual({
      code: 'TeamSearchOff',
      message: expect.stringMatching(/does not search/) as unknown,
      hint: expect.stringMatching(/callsight team search enable/) as unknown
    })
  })

  it('enabling backfills what is stored, resumably, and the answers equal the local search', async () => {
    // Stopped after the first batch: the rest stays unindexed until it is run again.
    const ac = new AbortController()
    const first = await enableTeamSearch(owner, SCHEMA, { batch: 100, signal: ac.signal, onProgress: () => ac.abort() })
    expect(first).toBe(100)
    expect(await teamSearchState(reader, SCHEMA)).toBe('on')
    const partial = await searchTeamCache({ pool: reader, schema: SCHEMA }, SearchQuery.parse({ text: 'fatura' }), {
      offset: 0,
      limit: 1
    })
    expect(partial.unindexed).toBe(true)
    // The search indexes are built once the backfill is done.
    expect((await searchParts()).indexes).toEqual(['calls_search_missing'])
    expect(await enableTeamSearch(owner, SCHEMA, { batch: 64 })).toBe(N - 100)
    const parts = await searchParts()
    expect(parts).toMatchObject({
      columns: ['facts', 'search'],
      indexes: ['calls_by_date', 'calls_search', 'calls_search_missing'],
      meta: 'on'
    })
    expect(parts.keys).toBeGreaterThan(3)
    for (const a of await answers()) expect(a.team, a.text).toEqual(a.local)
    // What the worker writes from now on is searchable without a backfill.
    await write(pagesOf(makeCalls(N + 200, 7).slice(N)))
    expect(await enableTeamSearch(owner, SCHEMA)).toBe(0)
    for (const a of await answers()) expect(a.team, a.text).toEqual(a.local)
  })

  it('disabling drops the columns, their indexes and the key catalog; writes go on; enabling again answers as before', async () => {
    await disableTeamSearch(owner, SCHEMA)
    expect(await searchParts()).toEqual({ columns: [], indexes: [], meta: 'off', keys: 0 })
    expect(await refusal()).toMatchObject({ code: 'TeamSearchOff' })
    // Changed titles and new calls while off (another seed rewrites the same ids).
    await write(pagesOf(makeCalls(N + 300, 8)))
    const n = await owner.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${SCHEMA}.calls`)
    expect(n.rows[0]!.n).toBe(N + 300)
    expect(await enableTeamSearch(owner, SCHEMA)).toBe(N + 300)
    for (const a of await answers()) expect(a.team, a.text).toEqual(a.local)
  })
})

describe('schema 8 on an existing cache', () => {
  it('keeps the search of a cache that holds calls, and starts a new one without', async () => {
    const db = await freshDatabase(cluster)
    const pool = createPool({ url: cluster.urlFor({ database: db }), schema: 'old', maxConnections: 1 })
    try {
      const upTo7 = pgMigrations.filter((m) => m.version <= 7)
      await migratePg(pool, 'old', upTo7)
      await migratePg(pool, 'empty', upTo7)
      await pool.query(
        `INSERT INTO old.calls (call_id, call_at, call_date, title, summary, extra, analysis, first_seen_at, last_changed_at, seq, search)
         VALUES ('c-1', 1, '2026-01-01', 'Fatura', '', '{}', NULL, 1, 1, 1, 'fatura:1A')`
      )
      await migratePg(pool, 'old')
      await migratePg(pool, 'empty')
      expect(await teamSearchState(pool, 'old')).toBe('on')
      expect(await teamSearchState(pool, 'empty')).toBe('off')
      const cols = await pool.query<{ s: string }>(
        `SELECT table_schema AS s FROM information_schema.columns WHERE table_name = 'calls' AND column_name = 'search' ORDER BY 1`
      )
      expect(cols.rows.map((r) => r.s)).toEqual(['old'])
      // The new cache's table was made anew: no dropped columns for its rows to carry.
      const dropped = await pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_attribute WHERE attrelid = 'empty.calls'::regclass AND attisdropped`
      )
      expect(dropped.rows[0]!.n).toBe(0)
    } finally {
      await pool.end()
    }
  })
})
