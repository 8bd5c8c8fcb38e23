/**
 * The team cache search's count in two steps (src/core/team/team-count.ts) against the local
 * count of the same calls: the estimate is labelled an estimate, the exact count is the local
 * one, and an exact count past its budget stays an estimate instead of becoming a wrong
 * exact figure. Real PostgreSQL, a real SQLite cache.
 */
import { join } from 'node:path'
import type pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openCache, type CallCache } from '../../../src/core/cache'
import { createSearch, type LocalSearch } from '../../../src/core/search'
import { createPool, enableTeamSearch, searchTeamCache, type TeamSearchOptions } from '../../../src/core/team'
import { contract } from '../../../src/shared/ipc/contract'
import { SearchQuery, TeamCount, type SearchQueryInput } from '../../../src/shared/domain'
import { FAST_TEST_SETTINGS, startPgCluster, type PgCluster } from '../../support/pg-cluster'
import { freshDatabase, tempDir } from './helpers'
import { SCHEMA, setUpTenant } from './review-support'
import { makeCalls, pagesOf, START, writeLocalPages, writeTeamPages } from './team-search-data'

const N = 3000

let cluster: PgCluster
let database: string
let cache: CallCache
let local: LocalSearch
let reader: pg.Pool
const tmp = tempDir('cs-team-count-')

beforeAll(async () => {
  cluster = await startPgCluster({ settings: FAST_TEST_SETTINGS })
  database = await freshDatabase(cluster)
  await setUpTenant(cluster, database, [])
  const owner = createPool({ url: cluster.urlFor({ database }), schema: SCHEMA, maxConnections: 1 })
  await enableTeamSearch(owner, SCHEMA)
  const calls = makeCalls(N)
  const pages = pagesOf(calls)
  await writeTeamPages(cluster.urlFor({ database }), SCHEMA, pages)
  // The planner's row count, as autovacuum keeps it on a server in use.
  await owner.query(`ANALYZE ${SCHEMA}.calls`).finally(() => owner.end())
  cache = openCache(join(tmp.dir, 'local.sqlite'))
  writeLocalPages(cache, pages)
  local = createSearch(cache)
  reader = createPool({
    url: cluster.urlFor({ database, user: `${SCHEMA}_reader`, password: 'reader-pw-1' }),
    schema: SCHEMA,
    maxConnections: 1
  })
}, 180_000)

afterAll(async () => {
  await reader?.end()
  cache?.close()
  await cluster?.stop()
  tmp.remove()
})

const query = (input: SearchQueryInput): SearchQuery => SearchQuery.parse({ results: 'all', ...input })
/** A sample far smaller than the table, so that the estimate samples instead of counting. */
const sampled = (extra: Partial<TeamSearchOptions> = {}): TeamSearchOptions => ({ pool: reader, schema: SCHEMA, sampleRows: 300, ...extra })
const IPC_RESPONSE = contract['team.search'].response

const QUERIES = ['fatura', '-iptal', 'sentiment:olumsuz kargo', 'score:55..85', 'fatura OR itiraz', '']

describe('the count in two steps', () => {
  it.each(QUERIES)('%s: an estimate labelled so, then the exact count equal to the local one', async (text) => {
    const q = query({ text })
    const want = local.count(q)
    expect(want).toBeGreaterThan(0)

    const first = await searchTeamCache(sampled(), q, { offset: 0, limit: 20, count: 'estimate' })
    expect(first.total?.kind).toBe('estimate')
    // Its number is never under the name an exact count has, in core or over IPC.
    expect(first.total).not.toHaveProperty('n')
    const overIpc = IPC_RESPONSE.parse(JSON.parse(JSON.stringify(first)))
    expect(overIpc.total).toEqual(first.total)
    if (first.total?.kind === 'estimate') {
      expect(first.total.exactTimedOut).toBe(false)
      // A sample of a tenth of the calls: near, not exact (the test data's terms are common).
      expect(first.total.about).toBeGreaterThan(want / 3)
      expect(first.total.about).toBeLessThan(want * 3)
    }

    const exact = await searchTeamCache(sampled(), q, { offset: 0, limit: 0, count: 'exact' })
    expect(exact.total).toEqual({ kind: 'exact', n: want })
    expect(IPC_RESPONSE.parse(JSON.parse(JSON.stringify(exact))).total).toEqual({ kind: 'exact', n: want })
  })

  it('a team cache not much larger than the sample is counted exactly at once', async () => {
    const q = query({ text: 'kargo' })
    const r = await searchTeamCache({ pool: reader, schema: SCHEMA }, q, { offset: 0, limit: 20, count: 'estimate' })
    expect(r.total).toEqual({ kind: 'exact', n: local.count(q) })
  })

  it('a rare query, which the sample barely sees, is counted exactly in the estimate step', async () => {
    // A call a minute from START: twenty minutes hold about 20 of the 3,000, 2 in the sample.
    const q = query({ text: '', from: START, to: START + 20 * 60_000 })
    const want = local.count(q)
    expect(want).toBeGreaterThan(0)
    expect(want).toBeLessThan(30)
    const r = await searchTeamCache(sampled(), q, { offset: 0, limit: 20, count: 'estimate' })
    expect(r.total).toEqual({ kind: 'exact', n: want })
  })

  it('a rare phrase (count(*) first) and a rare AND of words (the postings first) are exact in the estimate step', async () => {
    const window = { from: START, to: START + 45 * 60_000 }
    for (const text of ['"kargo gecikti"', 'kargo gecikti', 'fatura "ödeme iptal"']) {
      const q = query({ text, ...window })
      const want = local.count(q)
      expect(want, text).toBeGreaterThan(0)
      expect(want, text).toBeLessThan(30)
      const r = await searchTeamCache(sampled(), q, { offset: 0, limit: 20, count: 'estimate' })
      expect(r.total, text).toEqual({ kind: 'exact', n: want })
      const exact = await searchTeamCache(sampled(), q, { offset: 0, limit: 0, count: 'exact' })
      expect(exact.total, text).toEqual({ kind: 'exact', n: want })
    }
  })

  it('an exact count past its budget stays an estimate, said as cut short, never a wrong exact figure', async () => {
    // A range tests every row's analysis JSON: thousands of rows take far more than 1 ms.
    const q = query({ text: 'score:55..85 -iptal' })
    const r = await searchTeamCache(sampled({ exactBudgetMs: 1 }), q, { offset: 0, limit: 20, count: 'exact' })
    expect(r.total).toMatchObject({ kind: 'estimate', exactTimedOut: true })
    expect(r.total).not.toHaveProperty('n')
    // The page of the same request is whole, and the transaction went on after the cut.
    expect(r.page.rows.map((x) => x.callId)).toEqual(local.page(q, 0, 20).rows.map((x) => x.callId))
    // The budget was the count's alone: the next request counts with the default one.
    const again = await searchTeamCache(sampled(), q, { offset: 0, limit: 0, count: 'exact' })
    expect(again.total).toEqual({ kind: 'exact', n: local.count(q) })
  })

  it('the IPC contract refuses an estimate dressed as exact and an exact count without its number', () => {
    expect(TeamCount.safeParse({ kind: 'estimate', n: 5, exactTimedOut: false }).success).toBe(false)
    expect(TeamCount.safeParse({ kind: 'exact', about: 5 }).success).toBe(false)
    expect(IPC_RESPONSE.safeParse({ page: { offset: 0, rows: [] }, total: 5, unindexed: false }).success).toBe(false)
  })
})
