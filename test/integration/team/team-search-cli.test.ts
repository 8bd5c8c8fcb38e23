/**
 * `callsight search --team`: the built CLI asks a real PostgreSQL as the reader role, and its
 * page equals core's searchTeamCache on the same query.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPool, enableTeamSearch, PgSyncStore, searchTeamCache } from '../../../src/core/team'
import { SearchQuery } from '../../../src/shared/domain'
import { buildCli, removeBuild } from '../cli/build-cli'
import { runCli } from '../cli/helpers'
import { FAST_TEST_SETTINGS, startPgCluster, type PgCluster } from '../../support/pg-cluster'
import { freshDatabase } from './helpers'
import { SCHEMA, setUpTenant } from './review-support'
import { makeCalls, pagesOf, SCOPES } from './team-search-data'

let cli = ''
let cluster: PgCluster
let database = ''

beforeAll(async () => {
  ;[cli, cluster] = await Promise.all([buildCli(), startPgCluster({ settings: FAST_TEST_SETTINGS })])
  database = await freshDatabase(cluster)
  await setUpTenant(cluster, database, [])
  const owner = createPool({ url: cluster.urlFor({ database }), schema: SCHEMA, maxConnections: 1 })
  await enableTeamSearch(owner, SCHEMA).finally(() => owner.end())
  const store = await PgSyncStore.open({ url: cluster.urlFor({ database }), schema: SCHEMA })
  try {
    for (const key of Object.keys(SCOPES) as Array<keyof typeof SCOPES>) await store.ensureScope(key, SCOPES[key])
    await store.writePages(pagesOf(makeCalls(400)))
  } finally {
    await store.close()
  }
  // The planner's row count, as autovacuum keeps it on a server in use: the estimate reads it.
  const admin = createPool({ url: cluster.urlFor({ database }), schema: SCHEMA, maxConnections: 1 })
  await admin.query(`ANALYZE ${SCHEMA}.calls`).finally(() => admin.end())
}, 180_000)

afterAll(async () => {
  await cluster?.stop()
  removeBuild(cli)
})

describe('callsight search --team', () => {
  it('prints the page with an estimate, then the exact count the team cache gives, as the reader role', async () => {
    const reader = cluster.credentialsFor({ database, user: `${SCHEMA}_reader`, password: 'reader-pw-1' })
    const args = [
      'search',
      '--team',
      reader.url,
      '--schema',
      SCHEMA,
      '--results',
      'all',
      '--page',
      '2',
      '--limit',
      '5',
      '--count',
      '--count-sample',
      '40',
      '--json'
    ]
    const ran = await runCli(cli, [...args, 'iptal -ışık'], { PGPASSWORD: reader.password! })
    expect(ran.stderr).toBe('')
    expect(ran.code).toBe(0)
    const out = JSON.parse(ran.stdout) as {
      total: { kind: string; n: number }
      estimate: { kind: string; about: number }
      page: number
      items: Array<{ callId: string }>
    }
    const pool = createPool({ url: cluster.urlFor({ database, user: `${SCHEMA}_reader`, password: 'reader-pw-1' }), schema: SCHEMA })
    try {
      const q = SearchQuery.parse({ text: 'iptal -ışık', results: 'all' })
      const core = await searchTeamCache({ pool, schema: SCHEMA }, q, { offset: 5, limit: 5, count: 'exact' })
      expect(out.total).toEqual(core.total)
      expect(out.total.n).toBeGreaterThan(10)
      expect(out.page).toBe(2)
      expect(out.items.map((i) => i.callId)).toEqual(core.page.rows.map((r) => r.callId))
    } finally {
      await pool.end()
    }

    const text = await runCli(cli, [...args.filter((a) => a !== '--json'), 'iptal -ışık'], { PGPASSWORD: reader.password! })
    expect(text.stdout).toMatch(new RegExp(`Page 2: 5 of (about \\d+|${out.total.n}) call\\(s\\) in the team cache`))

    // Every call: far more than the sample of 40 sees, so an estimate ("about N") first, then N.
    const all = await runCli(cli, args, { PGPASSWORD: reader.password! })
    expect(all.code, all.stderr).toBe(0)
    const every = JSON.parse(all.stdout) as { total: unknown; estimate: unknown }
    expect(every.estimate).toEqual({ kind: 'estimate', about: 400, exactTimedOut: false })
    expect(every.total).toEqual({ kind: 'exact', n: 400 })
    const said = await runCli(
      cli,
      args.filter((a) => a !== '--json'),
      { PGPASSWORD: reader.password! }
    )
    expect(said.stdout).toMatch(/Page 2: 5 of about 400 call\(s\) in the team cache \(an estimate\)\.\nIn all: 400 call\(s\)\.\n$/)
  })

  it('tells a workstation the team cache search is off (exit 16), and the owner turns it on and off', async () => {
    const db = await freshDatabase(cluster)
    const owner = cluster.credentialsFor({ database: db })
    const ownerEnv = { PGPASSWORD: owner.password! }
    const init = await runCli(cli, ['team', 'init', '--db', owner.url, '--schema', 'off1'], {
      ...ownerEnv,
      CALLSIGHT_WRITER_PASSWORD: 'w-pw-off1',
      CALLSIGHT_READER_PASSWORD: 'r-pw-off1'
    })
    expect(init.code, init.stderr).toBe(0)
    const reader = cluster.credentialsFor({ database: db, user: 'off1_reader', password: 'r-pw-off1' })
    const search = (): ReturnType<typeof runCli> =>
      runCli(cli, ['search', '--team', reader.url, '--schema', 'off1', '--count', 'iptal'], { PGPASSWORD: reader.password! })
    const switchTo = (action: string): ReturnType<typeof runCli> =>
      runCli(cli, ['team', 'search', action, '--db', owner.url, '--schema', 'off1'], ownerEnv)

    expect((await switchTo('status')).stdout).toBe('Team cache search in "off1": off.\n')
    const off = await search()
    expect(off.code).toBe(16)
    expect(off.stderr).toMatch(/does not search: its operator has not turned search on/)
    expect(off.stderr).toMatch(/callsight team search enable --schema off1/)

    const on = await switchTo('enable')
    expect(on.code, on.stderr).toBe(0)
    expect(on.stdout).toMatch(/search in "off1" is on/)
    const found = await search()
    expect(found.code, found.stderr).toBe(0)
    expect(found.stdout).toMatch(/Page 1: 0 of 0 call\(s\) in the team cache/)

    const disabled = await switchTo('disable')
    expect(disabled.code, disabled.stderr).toBe(0)
    expect((await switchTo('status')).stdout).toBe('Team cache search in "off1": off.\n')
    expect((await search()).code).toBe(16)
  }, 180_000)

  it('refuses what the team cache cannot answer, and a password on the command line', async () => {
    const reader = cluster.credentialsFor({ database, user: `${SCHEMA}_reader`, password: 'reader-pw-1' })
    const relevance = await runCli(cli, ['search', '--team', reader.url, '--schema', SCHEMA, '--sort', 'relevance', 'iptal'], {
      PGPASSWORD: reader.password!
    })
    expect(relevance.code).not.toBe(0)
    expect(relevance.stderr).toMatch(/team cache cannot answer the relevance order/)
    const withPassword = await runCli(cli, ['search', '--team', cluster.urlFor({ database }), 'iptal'])
    expect(withPassword.code).not.toBe(0)
    expect(withPassword.stderr).toMatch(/holds a password/)
  }, 120_000)
})
