import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildCli, removeBuild } from '../cli/build-cli'
import { runCli } from '../cli/helpers'
import { openCache, type CallCache } from '../../../src/core/cache'
import { connectionOf } from '../../../src/core/cache/call-cache'
import { createSearch } from '../../../src/core/search'
import { createPool, PgSyncStore, pullTeamCache, type PullProgress } from '../../../src/core/team'
import type { TeamWindow } from '../../../src/shared/team'
import { SearchQuery, type SearchQueryInput } from '../../../src/shared/domain'
import { PG_SUPERUSER, PG_SUPERUSER_PASSWORD } from '../../support/pg-cluster'
import { FROM, FROM_MS, freshDatabase, pgContent, sqliteContent, TO_MS, useClusterAndService, type CacheContent } from './helpers'

/**
 * A workstation's window of chosen worker scopes: the worker keeps two scopes (inbound and
 * outbound calls); a workstation holds one of them, exactly, and says the other is outside.
 */
const team = useClusterAndService({ calls: 1200 }, 'callsight-scopes-')
const ENV = { PGPASSWORD: PG_SUPERUSER_PASSWORD }

let cli = ''
beforeAll(async () => {
  cli = await buildCli()
}, 120_000)
afterAll(() => removeBuild(cli))

async function pull(url: string, file: string, window?: TeamWindow, onProgress?: (p: PullProgress, stop: () => void) => void) {
  const pool = createPool({ url, schema: 'acme', maxConnections: 2 })
  const cache = openCache(file)
  const ac = new AbortController()
  try {
    return await pullTeamCache({
      pool,
      schema: 'acme',
      sourceLabel: url,
      cache,
      batchSize: 100,
      signal: ac.signal,
      ...(window ? { window } : {}),
      ...(onProgress ? { onProgress: (p: PullProgress) => onProgress(p, () => ac.abort()) } : {})
    })
  } finally {
    cache.close()
    await pool.end()
  }
}

function withCache<T>(file: string, f: (cache: CallCache) => T): T {
  const cache = openCache(file)
  try {
    return f(cache)
  } finally {
    cache.close()
  }
}

/** The team cache's content restricted to the members of the scopes whose keys are given. */
function ofScopes(full: CacheContent, keys: readonly string[]): CacheContent {
  const members = new Set([...full.members].filter((m) => keys.includes(m.slice(0, m.indexOf('|')))))
  const ids = new Set([...members].map((m) => m.slice(m.indexOf('|') + 1)))
  const calls = new Map([...full.calls].filter(([id]) => ids.has(id)))
  return { calls, members, scopes: new Map([...full.scopes].filter(([k]) => keys.includes(k))) }
}

function expectHolds(file: string, want: CacheContent): void {
  withCache(file, (cache) => {
    const got = sqliteContent(cache)
    expect(got.calls.size).toBe(want.calls.size)
    expect([...got.calls.keys()].sort()).toEqual([...want.calls.keys()].sort())
    expect(got.calls).toEqual(want.calls)
    expect(got.members).toEqual(want.members)
    expect([...got.scopes.keys()].sort()).toEqual([...want.scopes.keys()].sort())
    expect(connectionOf(cache).pragma('integrity_check', { simple: true })).toBe('ok')
  })
}

const query = (over: SearchQueryInput): SearchQuery => SearchQuery.parse({ results: 'all', ...over })

async function scopeKeys(url: string): Promise<Record<string, string>> {
  const c = new pg.Client({ connectionString: url })
  await c.connect()
  try {
    const r = await c.query<{ name: string; scope_key: string }>('SELECT name, scope_key FROM acme.worker_scopes')
    return Object.fromEntries(r.rows.map((x) => [x.name, x.scope_key]))
  } finally {
    await c.end()
  }
}

async function sql(url: string, text: string): Promise<void> {
  const c = new pg.Client({ connectionString: url })
  await c.connect()
  try {
    await c.query(text)
  } finally {
    await c.end()
  }
}

describe('a window of chosen scopes', () => {
  it('holds exactly the chosen scopes, says the others are outside, resumes, and goes back to all', async () => {
    const database = await freshDatabase(team.cluster)
    const url = team.cluster.urlFor({ database })
    await (await PgSyncStore.open({ url, schema: 'acme', migrate: true })).close()
    const config = join(team.dir, 'worker.json')
    writeFileSync(
      config,
      JSON.stringify({
        server: team.service.url,
        user: 'demo',
        zone: 'Europe/Istanbul',
        db: team.cluster.credentialsFor({ database, user: PG_SUPERUSER }).url,
        schema: 'acme',
        rateLimit: { requests: 600, perSeconds: 1 },
        intervalMinutes: 0.02,
        scopes: [
          { name: 'inbound', from: FROM, results: 'all', direction: 1 },
          { name: 'outbound', from: FROM, results: 'all', direction: 2 }
        ],
        memberships: false,
        fullPassEvery: false
      })
    )
    const worker = await runCli(cli, ['worker', '--config', config, '--once'], ENV)
    expect(worker.code, worker.stderr + worker.stdout).toBe(0)
    const keys = await scopeKeys(url)
    expect(Object.keys(keys).sort()).toEqual(['inbound', 'outbound'])
    const full = await pgContent(url, 'acme')
    const inbound = ofScopes(full, [keys['inbound']!])
    expect(inbound.calls.size).toBeGreaterThan(200)
    expect(inbound.calls.size).toBeLessThan(full.calls.size - 200)

    // One scope only: its members, exactly, stopped after a few batches and resumed.
    const file = join(team.dir, 'scoped.sqlite')
    const stopped = await pull(url, file, { days: null, scopes: ['inbound'] }, (p, stop) => {
      if (p.batches >= 3) stop()
    })
    expect(stopped.phase).toBe('cancelled')
    expect(stopped.rescoped).toBe(true)
    withCache(file, (cache) => expect(cache.info().calls).toBeLessThan(inbound.calls.size))
    const resumed = await pull(url, file)
    expect(resumed.phase, JSON.stringify(resumed.error)).toBe('done')
    expect(resumed.rescoped).toBeUndefined()
    expectHolds(file, inbound)

    // Inside the scope the answer is complete; a query the other scope answers is outside the window, named.
    withCache(file, (cache) => {
      const search = createSearch(cache)
      const inside = search.coverage(query({ direction: 1, from: FROM_MS, to: TO_MS }))
      expect(inside.complete).toBe(true)
      expect(inside.notices).toBeUndefined()
      const other = search.coverage(query({ direction: 2, from: FROM_MS, to: TO_MS }))
      expect(other.complete).toBe(false)
      expect(other.notices).toEqual([{ kind: 'outside-window', windowStart: null, days: null, scopes: ['inbound'] }])
      expect(search.count(query({ direction: 2, from: FROM_MS, to: TO_MS }))).toBe(0)
    })
    const cliSearch = await runCli(cli, ['search', '--db', file, '--zone', 'UTC', '--results', 'all', '--direction', '2', '--from', FROM])
    expect(cliSearch.code).toBe(0)
    expect(cliSearch.stderr).toContain(`Outside this workstation's window: the scopes "inbound" only`)
    expect(cliSearch.stderr).toContain('--scope NAME')

    // An outbound call joins the chosen scope after its own last change (a scope widened on the
    // worker): the next pull brings it with its membership.
    const joining = [...full.calls.keys()].find((id) => !inbound.calls.has(id))!
    await sql(
      url,
      `INSERT INTO acme.scope_members (scope_id, call_id, seq)
       SELECT s.id, '${joining}', nextval('acme.changes') FROM acme.scopes s WHERE s.scope_key = '${keys['inbound']!.replace(/'/g, "''")}'`
    )
    const joined = await pull(url, file)
    expect(joined.phase, JSON.stringify(joined.error)).toBe('done')
    const full2 = await pgContent(url, 'acme')
    const inbound2 = ofScopes(full2, [keys['inbound']!])
    expect(inbound2.calls.has(joining)).toBe(true)
    expectHolds(file, inbound2)

    // An unknown name is refused with the known ones (a usage error), nothing changed.
    const creds = team.cluster.credentialsFor({ database })
    const cliUrl = creds.url
    const cliEnv = { PGPASSWORD: creds.password ?? '' }
    const unknown = await runCli(
      cli,
      ['pull', '--from', cliUrl, '--db', file, '--schema', 'acme', '--scope', 'inbound', '--scope', 'nope'],
      cliEnv
    )
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain('"nope"')
    expect(unknown.stderr).toContain('Known scopes: "inbound", "outbound"')
    expectHolds(file, inbound2)
    withCache(file, (cache) => expect(cache.teamScopes()?.map((s) => s.name)).toEqual(['inbound']))

    // Every scope again, through the CLI: the pull starts anew and holds the full set.
    const all = await runCli(cli, ['pull', '--from', cliUrl, '--db', file, '--schema', 'acme', '--all-scopes'], cliEnv)
    expect(all.code, all.stderr).toBe(0)
    expect(all.stdout).toContain('The chosen scopes changed')
    expectHolds(file, full2)
    withCache(file, (cache) => {
      expect(cache.teamScopes()).toBeNull()
      expect(createSearch(cache).coverage(query({ direction: 2, from: FROM_MS, to: TO_MS })).complete).toBe(true)
    })
  }, 300_000)
})
