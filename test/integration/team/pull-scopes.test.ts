import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { copyFileSync } from 'node:fs'
import { join } from 'node:path'
import { buildCli, removeBuild } from '../cli/build-cli'
import { runCli } from '../cli/helpers'
import { createSearch } from '../../../src/core/search'
import { SearchQuery, type SearchQueryInput } from '../../../src/shared/domain'
import { DAY_MS } from '../../../src/core/team'
import type { RunningService } from '../../../src/reference-service'
import {
  expectHolds,
  FROM,
  FROM_MS,
  pgContent,
  pullInto,
  startTestService,
  TO_MS,
  useClusterAndService,
  withCache,
  within,
  workerCycle,
  type CacheContent
} from './helpers'

/**
 * A workstation's window of chosen worker scopes: the worker keeps two scopes (inbound and
 * outbound calls); a workstation holds one of them, exactly, and says the other is outside.
 */
const team = useClusterAndService({ calls: 1200 }, 'callsight-scopes-')

let cli = ''
beforeAll(async () => {
  cli = await buildCli()
}, 120_000)
afterAll(() => removeBuild(cli))

/** The team cache's content restricted to the members of the scopes whose keys are given. */
function ofScopes(full: CacheContent, keys: readonly string[]): CacheContent {
  const members = new Set([...full.members].filter((m) => keys.includes(m.slice(0, m.indexOf('|')))))
  const ids = new Set([...members].map((m) => m.slice(m.indexOf('|') + 1)))
  const calls = new Map([...full.calls].filter(([id]) => ids.has(id)))
  return { calls, members, scopes: new Map([...full.scopes].filter(([k]) => keys.includes(k))) }
}

const query = (over: SearchQueryInput): SearchQuery => SearchQuery.parse({ results: 'all', ...over })

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
    const { database, url, keys } = await workerCycle(team, team.service, cli, [
      { name: 'inbound', from: FROM, results: 'all', direction: 1 },
      { name: 'outbound', from: FROM, results: 'all', direction: 2 }
    ])
    const full = await pgContent(url, 'acme')
    const inbound = ofScopes(full, [keys['inbound']!])
    expect(inbound.calls.size).toBeGreaterThan(200)
    expect(inbound.calls.size).toBeLessThan(full.calls.size - 200)

    // One scope only: its members, exactly, stopped after a few batches and resumed.
    const file = join(team.dir, 'scoped.sqlite')
    const stopped = await pullInto(url, file, {
      window: { days: null, scopes: ['inbound'] },
      onProgress: (p, stop) => {
        if (p.batches >= 3) stop()
      }
    })
    expect(stopped.phase).toBe('cancelled')
    expect(stopped.rescoped).toBe(true)
    withCache(file, (cache) => expect(cache.info().calls).toBeLessThan(inbound.calls.size))
    const resumed = await pullInto(url, file)
    expect(resumed.phase, JSON.stringify(resumed.error)).toBe('done')
    expect(resumed.rescoped).toBeUndefined()
    expectHolds(file, inbound, { scopes: true })

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
    const joined = await pullInto(url, file)
    expect(joined.phase, JSON.stringify(joined.error)).toBe('done')
    const full2 = await pgContent(url, 'acme')
    const inbound2 = ofScopes(full2, [keys['inbound']!])
    expect(inbound2.calls.has(joining)).toBe(true)
    expectHolds(file, inbound2, { scopes: true })

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
    expectHolds(file, inbound2, { scopes: true })
    withCache(file, (cache) => expect(cache.teamScopes()?.map((s) => s.name)).toEqual(['inbound']))

    // Every scope again, through the CLI: the pull starts anew and holds the full set.
    const all = await runCli(cli, ['pull', '--from', cliUrl, '--db', file, '--schema', 'acme', '--all-scopes'], cliEnv)
    expect(all.code, all.stderr).toBe(0)
    expect(all.stdout).toContain('The chosen scopes changed')
    expectHolds(file, full2, { scopes: true })
    withCache(file, (cache) => {
      expect(cache.teamScopes()).toBeNull()
      expect(createSearch(cache).coverage(query({ direction: 2, from: FROM_MS, to: TO_MS })).complete).toBe(true)
    })
  }, 300_000)
})

describe('a window of one scope and the last N days together (callsight pull --scope NAME --days N)', () => {
  // Calls of the last 60 days: a window of days counts back from the pull's own moment.
  let recent: RunningService | undefined
  beforeAll(async () => {
    const now = Date.now()
    recent = await startTestService({
      calls: 1200,
      from: new Date(now - 60 * DAY_MS).toISOString(),
      to: new Date(now - 5 * 60_000).toISOString()
    })
  }, 60_000)
  afterAll(async () => {
    await recent?.stop()
  })

  it("holds exactly the chosen scope's calls of the last N days, names both, and widening either brings the rest", async () => {
    const from = new Date(Date.now() - 61 * DAY_MS).toISOString()
    const { database, url, keys } = await workerCycle(team, recent!, cli, [
      { name: 'inbound', from, results: 'all', direction: 1 },
      { name: 'outbound', from, results: 'all', direction: 2 }
    ])
    const full = await pgContent(url, 'acme')
    const inbound = ofScopes(full, [keys['inbound']!])
    const creds = team.cluster.credentialsFor({ database })
    const pullCli = (file: string, ...args: string[]) =>
      runCli(cli, ['pull', '--from', creds.url, '--db', file, '--schema', 'acme', ...args], { PGPASSWORD: creds.password ?? '' })
    /** Pulls with `args`, then the window's start the file holds (the pull's moment less its days). */
    const pullWindow = async (file: string, ...args: string[]): Promise<number> => {
      const before = Date.now()
      const r = await pullCli(file, ...args)
      expect(r.code, r.stderr + r.stdout).toBe(0)
      const start = withCache(file, (cache) => cache.teamWindow().heldFrom)
      const days = withCache(file, (cache) => cache.teamWindow().days)
      expect(start).not.toBeNull()
      expect(start!).toBeGreaterThanOrEqual(before - days! * DAY_MS)
      expect(start!).toBeLessThanOrEqual(Date.now() - days! * DAY_MS)
      return start!
    }

    // Inbound calls of the last 20 days, exactly: neither outbound calls nor older inbound ones.
    const file = join(team.dir, 'inbound-20-days.sqlite')
    const start20 = await pullWindow(file, '--scope', 'inbound', '--days', '20')
    const want = within(inbound, start20)
    expect(want.calls.size).toBeGreaterThan(100)
    expect(want.calls.size).toBeLessThan(inbound.calls.size - 100)
    expect(within(full, start20).calls.size).toBeGreaterThan(want.calls.size + 100)
    expectHolds(file, want, { scopes: true })
    withCache(file, (cache) => expect(cache.teamScopes()?.map((s) => s.name)).toEqual(['inbound']))

    // Coverage names both the window's days and its scope wherever either leaves calls out.
    const now = Date.now()
    const notice = { kind: 'outside-window', windowStart: start20, days: 20, scopes: ['inbound'] }
    withCache(file, (cache) => {
      const search = createSearch(cache)
      const inside = search.coverage(query({ direction: 1, from: start20, to: now }))
      expect(inside.complete).toBe(true)
      expect(inside.notices).toBeUndefined()
      for (const q of [query({ direction: 1, from: now - 50 * DAY_MS, to: now }), query({ direction: 2, from: start20, to: now })]) {
        const c = search.coverage(q)
        expect(c.complete).toBe(false)
        expect(c.notices).toEqual([notice])
      }
    })
    const cliSearch = await runCli(cli, ['search', '--db', file, '--zone', 'UTC', '--results', 'all', '--direction', '2'])
    expect(cliSearch.code).toBe(0)
    expect(cliSearch.stderr).toContain("Outside this workstation's window: last 20 days")
    expect(cliSearch.stderr).toContain('the scopes "inbound" only')
    expect(cliSearch.stderr).toContain('--days N (or --all for every date), --scope NAME for each scope (or --all-scopes)')

    // Wider in days, the same scope: the older inbound calls come, no outbound one.
    const wider = join(team.dir, 'inbound-wider.sqlite')
    copyFileSync(file, wider)
    const start45 = await pullWindow(wider, '--days', '45')
    expect(within(inbound, start45).calls.size).toBeGreaterThan(want.calls.size + 100)
    expectHolds(wider, within(inbound, start45), { scopes: true })
    withCache(wider, (cache) => expect(cache.teamScopes()?.map((s) => s.name)).toEqual(['inbound']))

    // Every scope, the same days: the outbound calls of the window come too.
    const start20all = await pullWindow(file, '--all-scopes')
    expectHolds(file, within(full, start20all), { scopes: true })
    withCache(file, (cache) => {
      expect(cache.teamScopes()).toBeNull()
      expect(cache.teamWindow().days).toBe(20)
    })
  }, 300_000)
})
