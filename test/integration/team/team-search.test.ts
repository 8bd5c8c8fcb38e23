/**
 * The team cache search (src/core/team/team-search.ts) against the local search over the
 * same calls: a real PostgreSQL cluster written through the store, a real SQLite cache
 * written through its own API, the same queries, the same ids in the same order and the
 * same totals.
 */
import { join } from 'node:path'
import type pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openCache, type CallCache } from '../../../src/core/cache'
import { createSearch, type LocalSearch } from '../../../src/core/search'
import { backfillSearch, createPool, enableTeamSearch, searchTeamCache, teamCall, type TeamSearchOptions } from '../../../src/core/team'
import { compileTeamQuery } from '../../../src/core/team/team-query'
import { GATHER_MAX_ROWS, pageForm, readCatalog } from '../../../src/core/team/team-search'
import { exactOf, SearchQuery, type SearchQueryInput } from '../../../src/shared/domain'
import { FAST_TEST_SETTINGS, startPgCluster, type PgCluster } from '../../support/pg-cluster'
import { freshDatabase, tempDir } from './helpers'
import { passwordOf, SCHEMA, setUpTenant } from './review-support'
import { makeCalls, pagesOf, START, writeLocalPages, writeTeamPages } from './team-search-data'

const N = 3000
const DAY = 86_400_000

let cluster: PgCluster
let database: string
let cache: CallCache
let local: LocalSearch
let reader: pg.Pool
let analyst: pg.Pool
const tmp = tempDir('cs-team-search-')

beforeAll(async () => {
  cluster = await startPgCluster({ settings: FAST_TEST_SETTINGS })
  database = await freshDatabase(cluster)
  await setUpTenant(cluster, database, [{ name: 'ayla' }])
  const owner = createPool({ url: cluster.urlFor({ database }), schema: SCHEMA, maxConnections: 1 })
  await enableTeamSearch(owner, SCHEMA).finally(() => owner.end())
  const calls = makeCalls(N)
  const pages = pagesOf(calls)
  await writeTeamPages(cluster.urlFor({ database }), SCHEMA, pages)
  cache = openCache(join(tmp.dir, 'local.sqlite'))
  writeLocalPages(cache, pages)
  local = createSearch(cache)
  reader = createPool({
    url: cluster.urlFor({ database, user: `${SCHEMA}_reader`, password: 'reader-pw-1' }),
    schema: SCHEMA,
    maxConnections: 1
  })
  analyst = createPool({ url: cluster.urlFor({ database, user: 'ayla', password: passwordOf('ayla') }), schema: SCHEMA, maxConnections: 1 })
}, 180_000)

afterAll(async () => {
  await reader?.end()
  await analyst?.end()
  cache?.close()
  await cluster?.stop()
  tmp.remove()
})

const team = (): TeamSearchOptions => ({ pool: reader, schema: SCHEMA })
const query = (input: SearchQueryInput): SearchQuery => SearchQuery.parse({ results: 'all', ...input })

/**
 * The local answer and the team cache's: ids of page `pageNo` (1-based, 20 a page) with
 * "matched in", and totals; or the error's code when the query is refused.
 */
async function both(input: SearchQueryInput, pageNo = 1): Promise<{ local: unknown; team: unknown }> {
  const q = query(input)
  const offset = (pageNo - 1) * 20
  const refused = (e: unknown): unknown => ({ error: (e as { code?: string }).code ?? String(e) })
  let localAnswer: unknown
  try {
    const lp = local.page(q, offset, 20)
    localAnswer = { total: { kind: 'exact', n: local.count(q) }, rows: lp.rows.map((r) => [r.callId, r.matchedIn ?? []]) }
  } catch (e) {
    localAnswer = refused(e)
  }
  let teamAnswer: unknown
  try {
    const tp = await searchTeamCache(team(), q, { offset, limit: 20, count: 'exact' })
    teamAnswer = { total: tp.total, rows: tp.page.rows.map((r) => [r.callId, r.matchedIn ?? []]) }
  } catch (e) {
    teamAnswer = refused(e)
  }
  return { local: localAnswer, team: teamAnswer }
}

const TEXTS = [
  'fatura',
  'fatur',
  'FATURA',
  'iptal',
  'İPTAL',
  'ıptal',
  'isik',
  'IŞIK',
  'ışı',
  'istanbul',
  'İSTANBUL',
  'sikayet',
  '"kargo gecikti"',
  '"kargo gec"',
  '"gecikti kargo"',
  'fatura iade',
  'fatura AND iade',
  'fatura OR itiraz',
  'fatura veya itiraz',
  'fatura -itiraz',
  '-itiraz',
  'NOT fatura',
  '(fatura OR iptal) -itiraz',
  'fatura OR iptal -itiraz',
  'title:fatura',
  'başlık:ışıklı',
  'summary:"kargo gecikti"',
  'özet:fatura -başlık:fatura',
  'sentiment:olumsuz',
  '"duygu durumu":NÖTR',
  'duygu_durumu:notr',
  '"Anahtar Kelimeler":"ödeme, iptal"',
  'agent:"gökhan ışık"',
  'temsilci:"ILKER SAHIN"',
  'score>=70',
  'score<50',
  'score:55..85',
  'csat:2,5',
  'csat>=4.5',
  'fatura score>80',
  'iptal OR sentiment:olumlu',
  '-sentiment:olumsuz kargo',
  'ödeme iptal',
  '"ödeme iptal"',
  'güncellendi',
  'iade güncel',
  'evet',
  'hayır',
  ''
]

describe('the team cache search answers as the local search does', () => {
  it.each(TEXTS)('%s, newest first, pages 1 and 3', async (text) => {
    for (const pageNo of [1, 3]) {
      const r = await both({ text }, pageNo)
      expect(r.team, `page ${pageNo}`).toEqual(r.local)
      expect(r.local).not.toHaveProperty('error')
    }
  })

  it('gathers a phrase the planner expects few rows of, and pages it as the planner would', async () => {
    const c = await reader.connect()
    try {
      const catalog = await readCatalog(c, SCHEMA)
      const compiled = (text: string): ReturnType<typeof compileTeamQuery> => compileTeamQuery(query({ text }), catalog, SCHEMA)
      for (const text of ['"kargo gec"', '"ödeme iptal" -fatura', 'summary:"kargo gecikti"', 'fatura OR "ödeme iptal"'])
        expect(compiled(text).phrase, text).toBe(true)
      for (const text of ['fatura iade', 'kargo -iptal', 'sentiment:olumsuz', '']) expect(compiled(text).phrase, text).toBe(false)
      expect(pageForm(compiled('"kargo gec"'), 40)).toBe('gather')
      expect(pageForm(compiled('"kargo gec"'), GATHER_MAX_ROWS)).toBe('gather')
      // Many rows expected: the walk of the date index finds a page soonest.
      expect(pageForm(compiled('"kargo gec"'), GATHER_MAX_ROWS + 1)).toBe('planner')
      expect(pageForm(compiled('"kargo gec"'), null)).toBe('planner')
      expect(pageForm(compiled('fatura iade'), 40)).toBe('planner')
    } finally {
      c.release()
    }
    // Both forms give the same pages, in both orders.
    let found = 0
    for (const text of ['"kargo gecikti"', '"ödeme iptal"', 'summary:"kargo gecikti" -fatura'])
      for (const sort of ['date_desc', 'date_asc'] as const)
        for (const offset of [0, 20]) {
          const q = query({ text, sort })
          const gathered = await searchTeamCache(team(), q, { offset, limit: 20 })
          const planned = await searchTeamCache({ ...team(), gatherPhrases: false }, q, { offset, limit: 20 })
          expect(gathered.page, `${text} ${sort} ${offset}`).toEqual(planned.page)
          found += gathered.page.rows.length
        }
    expect(found).toBeGreaterThan(40)
  })

  it.each(['fatura', 'ışık OR kargo', '-iptal', 'sentiment:olumlu score>60'])('%s, oldest first', async (text) => {
    const r = await both({ text, sort: 'date_asc' }, 3)
    expect(r.team).toEqual(r.local)
  })

  it('answers date ranges, scope filters and the filter bar', async () => {
    const cases: SearchQueryInput[] = [
      { text: 'fatura', from: START + 5 * DAY, to: START + 12 * DAY },
      { text: '', callTypes: ['Fatura'] },
      { text: 'iade', callTypes: ['FATURA'] },
      { text: 'kargo', direction: 1 },
      { text: 'kargo', results: 'answered' },
      { text: '', hasNewRequest: true, sort: 'date_asc' },
      { text: 'iptal', analysis: [{ kind: 'equals', key: 'sentiment', value: 'Olumsuz' }] },
      { text: '', analysis: [{ kind: 'range', key: 'score', min: 60, max: 70 }] },
      { text: 'istanbul', analysis: [{ kind: 'equals', key: 'resolved', value: 'hayir' }], direction: 1 },
      { text: 'fatura', callTypes: ['Kargo'] }
    ]
    for (const c of cases) {
      for (const pageNo of [1, 3]) {
        const r = await both(c, pageNo)
        expect(r.team, JSON.stringify(c)).toEqual(r.local)
        expect(r.local, JSON.stringify(c)).not.toHaveProperty('error', 'InvalidInput')
      }
    }
  })

  it('a relevance order without words is newest first; with words it is refused, never answered otherwise', async () => {
    const r = await both({ text: 'sentiment:olumlu', sort: 'relevance' })
    expect(r.team).toEqual(r.local)
    await expect(searchTeamCache(team(), query({ text: 'fatura', sort: 'relevance' }), { offset: 0, limit: 20 })).rejects.toThrow(
      /relevance/
    )
  })

  it('refuses record-field and review filters with a clear error', async () => {
    await expect(
      searchTeamCache(team(), query({ text: '', fields: [{ kind: 'equals', field: 'agentName', value: 'x', folded: true }] }), {
        offset: 0,
        limit: 5
      })
    ).rejects.toThrow(/team cache cannot answer filters on record fields/)
    await expect(searchTeamCache(team(), query({ text: '', review: { statuses: ['reviewed'] } }), { offset: 0, limit: 5 })).rejects.toThrow(
      /team cache cannot answer review filters/
    )
  })

  it('gives the detail of a call as the local cache holds it', async () => {
    const first = (await searchTeamCache(team(), query({ text: 'kargo' }), { offset: 0, limit: 1 })).page.rows[0]!
    const { firstSeenAt: _f, lastChangedAt: _l, ...held } = local.get(first.callId)!
    expect(await teamCall(team(), first.callId)).toEqual(held)
  })
})

describe('who may search, and what a search may do', () => {
  it('an analyst role searches as the reader role does', async () => {
    const q = query({ text: 'fatura -itiraz' })
    const a = await searchTeamCache({ pool: analyst, schema: SCHEMA }, q, { offset: 20, limit: 20, count: 'exact' })
    const r = await searchTeamCache(team(), q, { offset: 20, limit: 20, count: 'exact' })
    expect(a.total).toEqual({ kind: 'exact', n: local.count(q) })
    expect(a).toEqual(r)
  })

  it('words and phrases that look like SQL or tsquery syntax are only words', async () => {
    const admin = createPool({ url: cluster.urlFor({ database }), schema: SCHEMA, maxConnections: 1 })
    const before = await admin.query(`SELECT count(*)::int AS n, sum(length(title)) AS t FROM ${SCHEMA}.calls`)
    for (const text of [
      `'); DELETE FROM ${SCHEMA}.calls; --`,
      `"x' | !fatura:* & '"`,
      `fatura\\' OR 1=1`,
      `sentiment:"olumsuz'); DROP TABLE ${SCHEMA}.calls; --"`,
      `"a <-> b" ::tsquery`
    ]) {
      const r = await both({ text })
      expect(r.team, text).toEqual(r.local)
    }
    const after = await admin.query(`SELECT count(*)::int AS n, sum(length(title)) AS t FROM ${SCHEMA}.calls`)
    await admin.end()
    expect(after.rows[0]).toEqual(before.rows[0])
  })

  it('the search transaction is read-only even for a role that may write', async () => {
    const admin = createPool({ url: cluster.urlFor({ database }), schema: SCHEMA, maxConnections: 1 })
    try {
      const { readOnlyTransaction } = await import('../../../src/core/team/team-search')
      await expect(
        readOnlyTransaction({ pool: admin, schema: SCHEMA }, (c) => c.query(`DELETE FROM ${SCHEMA}.calls`))
      ).rejects.toMatchObject({ code: 'Forbidden' })
      const n = await admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${SCHEMA}.calls`)
      expect(n.rows[0]!.n).toBe(N)
    } finally {
      await admin.end()
    }
  })

  it('the backfill fills rows written before the search columns, and search then finds them', async () => {
    const admin = createPool({ url: cluster.urlFor({ database }), schema: SCHEMA, maxConnections: 1 })
    try {
      await admin.query(`UPDATE ${SCHEMA}.calls SET search = NULL, facts = NULL WHERE call_id < 'c-00100'`)
      const q = query({ text: 'sentiment:olumsuz fatura' })
      const partial = await searchTeamCache(team(), q, { offset: 0, limit: 20, count: 'exact' })
      expect(partial.unindexed).toBe(true)
      expect(exactOf(partial.total)).toBeLessThan(local.count(q))
      expect(await backfillSearch(admin, SCHEMA, { batch: 37 })).toBe(100)
      const full = await searchTeamCache(team(), q, { offset: 0, limit: 20, count: 'exact' })
      expect(full.unindexed).toBe(false)
      expect(full.total).toEqual({ kind: 'exact', n: local.count(q) })
    } finally {
      await admin.end()
    }
  })
})
