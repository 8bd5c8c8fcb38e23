/**
 * The exact count from the count's postings (schema 11: team-postings-build.ts,
 * team-postings-count.ts) against `count(*)` with the same WHERE, in the same snapshot, on
 * 3,000 calls in chunks of 256 (meta count_chunk_bits = 8): the query shapes and more, writes
 * after a build (counted exactly while their chunks are dirty and after the rebuild), and a
 * write that lands while a chunk is being built. Real PostgreSQL.
 */
import type pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPool, enableTeamSearch, searchTeamCache } from '../../../src/core/team'
import { readCatalog } from '../../../src/core/team/team-search'
import { compileTeamQuery } from '../../../src/core/team/team-query'
import { buildChunk, buildDirtyChunks, chunkBits } from '../../../src/core/team/team-postings-build'
import { postingsCount } from '../../../src/core/team/team-postings-count'
import { inTransaction } from '../../../src/core/team/pg-transaction'
import { SearchQuery, type SearchQueryInput } from '../../../src/shared/domain'
import { FAST_TEST_SETTINGS, startPgCluster, type PgCluster } from '../../support/pg-cluster'
import { queryShapes } from '../../support/query-shapes'
import { freshDatabase } from './helpers'
import { SCHEMA, setUpTenant } from './review-support'
import { makeCalls, pagesOf, START, writeTeamPages } from './team-search-data'

const N = 3000
const MIN = 60_000
const DAY = 24 * 60 * MIN

let cluster: PgCluster
let owner: pg.Pool
let reader: pg.Pool
let url: string

beforeAll(async () => {
  cluster = await startPgCluster({ settings: FAST_TEST_SETTINGS })
  const database = await freshDatabase(cluster)
  await setUpTenant(cluster, database, [])
  url = cluster.urlFor({ database })
  owner = createPool({ url, schema: SCHEMA, maxConnections: 3 })
  await enableTeamSearch(owner, SCHEMA)
  // Chunks of 256 calls: the 3,000 span twelve.
  await owner.query(`INSERT INTO ${SCHEMA}.meta (key, value) VALUES ('count_chunk_bits', '8')`)
  await writeTeamPages(url, SCHEMA, pagesOf(makeCalls(N)))
  reader = createPool({
    url: cluster.urlFor({ database, user: `${SCHEMA}_reader`, password: 'reader-pw-1' }),
    schema: SCHEMA,
    maxConnections: 1
  })
}, 180_000)

afterAll(async () => {
  await reader?.end()
  await owner?.end()
  await cluster?.stop()
})

const query = (input: SearchQueryInput): SearchQuery => SearchQuery.parse({ results: 'all', ...input })

/** The postings' count (null: not from them) and `count(*)` with the same WHERE, in one snapshot. */
async function both(q: SearchQuery, pool: pg.Pool = reader): Promise<{ postings: number | null; sql: number }> {
  const c = await pool.connect()
  try {
    return await inTransaction(
      c,
      async () => {
        const compiled = compileTeamQuery(q, await readCatalog(c, SCHEMA), SCHEMA)
        const where = compiled.where.length > 0 ? ` WHERE ${compiled.where.join(' AND ')}` : ''
        const sql = Number(
          (await c.query<{ n: string }>(`SELECT count(*) AS n FROM ${SCHEMA}.calls c${where}`, compiled.params)).rows[0]!.n
        )
        return { postings: compiled.empty ? 0 : await postingsCount(c, SCHEMA, compiled), sql }
      },
      'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY'
    )
  } finally {
    c.release()
  }
}

const dirtyChunks = async (): Promise<number[]> =>
  (await owner.query<{ chunk: number }>(`SELECT chunk FROM ${SCHEMA}.count_dirty ORDER BY chunk`)).rows.map((r) => r.chunk)

const SHAPES = queryShapes({ w1: 'fatura', w2: 'kargo', half: 'iptal', common: 'müşteri', end: START + N * MIN })
const MORE: Array<[string, SearchQueryInput]> = [
  ['NOT of an equals term', { text: '-sentiment:olumsuz' }],
  ['NOT of a range', { text: '-score:55..85' }],
  ['OR across text and facts', { text: 'kargo OR sentiment:nötr' }],
  ['AND of equals terms', { text: 'sentiment:olumsuz resolved:evet' }],
  ['a comma decimal range', { text: 'csat:1,5..2,5' }],
  ['a field-limited word', { text: 'title:fatura' }],
  ['a field-limited prefix', { text: 'summary:fat' }],
  ['a phrase', { text: '"kargo gecikti"' }],
  ['a phrase under NOT', { text: 'fatura -"kargo gecikti"' }],
  ['prefix of 1', { text: 'f' }],
  ['prefix of 2', { text: 'fa' }],
  ['prefix of 3', { text: 'fat' }],
  ['prefix of 4', { text: 'fatu' }],
  ['prefix of 5', { text: 'fatur' }],
  ['a prefix of dotless ı', { text: 'ış' }],
  ['an empty result', { text: 'zzzzq' }],
  ['nothing typed', { text: '' }],
  ['a scope (call type)', { text: 'kargo', callTypes: ['Fatura'] }],
  ['two scopes (type and direction)', { text: '-iptal', callTypes: ['Fatura'], direction: 1 }],
  ['answered scope', { text: 'fatura', results: 'answered' }],
  ['date edges inside days', { text: 'fatura', from: START + 100 * MIN, to: START + 2950 * MIN }],
  ['a range inside one day', { text: '', from: START + 1500 * MIN, to: START + 1600 * MIN }],
  ['from only, mid-day', { text: 'kargo', from: START + DAY + 7 * MIN }],
  ['to only, mid-day', { text: '-kargo', to: START + DAY + 7 * MIN }],
  ['whole days', { text: 'iptal', from: START, to: START + 2 * DAY }]
]
/** A shape on this data: its keys (sentiment for the bench's duygu, score for duration), newest first for relevance (which the team cache refuses). */
const onThisData = (q: SearchQuery): SearchQuery =>
  SearchQuery.parse({
    ...q,
    text: q.text.replace(/duygu:/g, 'sentiment:').replace('duration:300..600', 'score:50..70'),
    sort: q.sort === 'relevance' ? 'date_desc' : q.sort
  })
const ALL: Array<[string, SearchQuery]> = [
  ...SHAPES.map(([label, q]): [string, SearchQuery] => [label, onThisData(q)]),
  ...MORE.map(([label, input]): [string, SearchQuery] => [label, query(input)])
]

async function expectExact(label: string): Promise<void> {
  for (const [name, q] of ALL) {
    const r = await both(q)
    expect({ label, name, n: r.postings }).toEqual({ label, name, n: r.sql })
  }
}

describe('the count from postings', () => {
  it('every shape and more equals count(*), from the postings', async () => {
    const done = await buildDirtyChunks(owner, SCHEMA)
    expect(done.built).toBeGreaterThanOrEqual(12)
    expect(await dirtyChunks()).toEqual([])
    const sizes: number[] = []
    for (const [name, q] of ALL) {
      const r = await both(q)
      expect({ name, n: r.postings }).toEqual({ name, n: r.sql })
      sizes.push(r.sql)
    }
    // The data exercise them: most shapes match some calls, not all.
    expect(sizes.filter((n) => n > 0 && n < N).length).toBeGreaterThan(ALL.length / 2)
    // The search's own exact count, as the reader runs it, takes them.
    const q = query({ text: 'fatura -sentiment:olumsuz' })
    const r = await searchTeamCache({ pool: reader, schema: SCHEMA }, q, { offset: 0, limit: 0, count: 'exact' })
    expect(r.total).toEqual({ kind: 'exact', n: (await both(q)).sql })
  })

  it('writes after a build leave their chunks dirty, counted exactly before and after the rebuild', async () => {
    await buildDirtyChunks(owner, SCHEMA)
    const bits = await chunkBits(owner, SCHEMA)
    const chunkOf = async (callId: string): Promise<number> =>
      Number((await owner.query<{ num: string }>(`SELECT num FROM ${SCHEMA}.calls WHERE call_id = $1`, [callId])).rows[0]!.num) >> bits
    const calls = makeCalls(N)

    // New calls, and a rewrite of an old call's text, through the worker's store.
    const fresh = makeCalls(40, 99).map((r, i) => ({ ...r, callId: `new-${i}`, summary: `kargo fatura yenikelime ${r.summary}` }))
    const old = calls[10]!
    const edited = { ...old, summary: 'yenikelime iptal', title: 'Kargo görüşmesi' }
    await writeTeamPages(url, SCHEMA, [{ scopeKey: 'all', records: [...fresh, edited], includeAnalysis: true, checkpoint: null }])
    const oldChunk = await chunkOf(old.callId)
    expect(await dirtyChunks()).toEqual(expect.arrayContaining([oldChunk, await chunkOf('new-0')]))
    // A delete and a change of scope membership, as the owner.
    const gone = calls[700]!
    const goneChunk = await chunkOf(gone.callId)
    await owner.query(`DELETE FROM ${SCHEMA}.calls WHERE call_id = $1`, [gone.callId])
    const member = (
      await owner.query<{ call_id: string; scope_id: number }>(`SELECT call_id, scope_id FROM ${SCHEMA}.scope_members m
      JOIN ${SCHEMA}.scopes s ON s.id = m.scope_id WHERE s.scope_key = 'fatura' ORDER BY call_id DESC LIMIT 1`)
    ).rows[0]!
    await owner.query(`DELETE FROM ${SCHEMA}.scope_members WHERE call_id = $1 AND scope_id = $2`, [member.call_id, member.scope_id])
    expect(await dirtyChunks()).toEqual(expect.arrayContaining([goneChunk, await chunkOf(member.call_id)]))

    expect((await both(query({ text: 'yenikelime' }))).sql).toBe(41)
    await expectExact('dirty')
    await buildDirtyChunks(owner, SCHEMA)
    expect(await dirtyChunks()).toEqual([])
    await expectExact('rebuilt')
  })

  it('a write committed while a chunk is built leaves it dirty, and the count exact', async () => {
    await buildDirtyChunks(owner, SCHEMA)
    const bits = await chunkBits(owner, SCHEMA)
    const target = makeCalls(N)[300]!
    const num = Number(
      (await owner.query<{ num: string }>(`SELECT num FROM ${SCHEMA}.calls WHERE call_id = $1`, [target.callId])).rows[0]!.num
    )
    const chunk = num >> bits
    await owner.query(`UPDATE ${SCHEMA}.calls SET title = title WHERE call_id = $1`, [target.callId])
    expect(await dirtyChunks()).toEqual([chunk])

    const c = await owner.connect()
    try {
      // The rows were read; then the call's text changes and commits before the build writes.
      const removed = await buildChunk(c, SCHEMA, chunk, bits, {
        afterRead: async () => {
          await owner.query(`UPDATE ${SCHEMA}.calls SET search = search || 'yarisyaz'::tsvector WHERE call_id = $1`, [target.callId])
        }
      })
      expect(removed).toBe(false)
    } finally {
      c.release()
    }
    expect(await dirtyChunks()).toEqual([chunk])
    expect(await both(query({ text: 'yarisyaz' }))).toEqual({ postings: 1, sql: 1 })
    await expectExact('raced')

    const again = await buildDirtyChunks(owner, SCHEMA)
    expect(again).toEqual({ built: 1, again: 0 })
    expect(await dirtyChunks()).toEqual([])
    expect(await both(query({ text: 'yarisyaz' }))).toEqual({ postings: 1, sql: 1 })
  })

  it('a chunk holding a call whose tsvector lost positions is counted by SQL, exactly', async () => {
    const base = makeCalls(1, 5)[0]!
    // 300 of one word: PostgreSQL keeps 256 of its positions, so the analysis's weight C is lost.
    const long = {
      ...base,
      callId: 'long-1',
      summary: Array(300).fill('kargo').join(' '),
      analysis: [{ key: 'agent', friendlyName: 'Temsilci', value: 'kargo' }]
    }
    await writeTeamPages(url, SCHEMA, [{ scopeKey: 'all', records: [long], includeAnalysis: true, checkpoint: null }])
    await buildDirtyChunks(owner, SCHEMA)
    expect(await dirtyChunks()).toEqual([])
    const x = await owner.query(`SELECT 1 FROM ${SCHEMA}.count_posts WHERE term = 'x'`)
    expect(x.rowCount).toBe(1)
    await expectExact('lossy')
    const r = await both(query({ text: 'agent:kargo' }))
    expect(r).toEqual({ postings: 0, sql: 0 })
  })

  it('a build within a budget builds one chunk at least, and the rest stay dirty, counted exactly', async () => {
    await buildDirtyChunks(owner, SCHEMA)
    await owner.query(
      `INSERT INTO ${SCHEMA}.count_dirty (chunk) SELECT DISTINCT chunk FROM ${SCHEMA}.count_posts
       ON CONFLICT (chunk) DO UPDATE SET version = ${SCHEMA}.count_dirty.version + 1`
    )
    const before = (await dirtyChunks()).length
    expect(before).toBeGreaterThanOrEqual(12)
    expect(await buildDirtyChunks(owner, SCHEMA, { budgetMs: 0 })).toEqual({ built: 1, again: 0 })
    expect((await dirtyChunks()).length).toBe(before - 1)
    const q = query({ text: 'fatura -sentiment:olumsuz' })
    const r = await searchTeamCache({ pool: reader, schema: SCHEMA }, q, { offset: 0, limit: 0, count: 'exact' })
    expect(r.total).toEqual({ kind: 'exact', n: (await both(q)).sql })
  })
})
