import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ChannelName } from '../../../src/shared/ipc/names'
import { contract, type Request, type Response } from '../../../src/shared/ipc/contract'
import type { ReviewQueue, TeamPullProgress } from '../../../src/shared/team'
import { CallsightError } from '../../../src/core/errors'
import { addAnalyst, disableTeamSearch, enableTeamSearch, PgSyncStore, teamInit, createPool } from '../../../src/core/team'
import type { RunningService } from '../../../src/reference-service'
import { createTestApp, type TestApp } from '../../support/app-fixture'
import { FAST_TEST_SETTINGS, startPgCluster, type PgCluster } from '../../support/pg-cluster'
import { engineFor, FROM_MS, signedInSession, startTestService, TO_MS } from '../team/helpers'

// The app's team cache account over real parts: PostgreSQL set up by team init and filled by
// the real engine from the reference service, the real controller, a real SQLite cache.

let cluster: PgCluster
let service: RunningService
let app: TestApp

beforeAll(async () => {
  ;[cluster, service] = await Promise.all([startPgCluster({ settings: FAST_TEST_SETTINGS }), startTestService({ calls: 2500 })])
  await cluster.sql('CREATE DATABASE team')
  const pool = createPool({ url: cluster.urlFor({ database: 'team' }), schema: 'acme' })
  await teamInit({
    pool,
    schema: 'acme',
    writerRole: 'acme_writer',
    readerRole: 'acme_reader',
    writerPassword: 'w-pw',
    readerPassword: 'reader-pw-1'
  })
  await addAnalyst(pool, 'acme', 'ayse', 'ayse-pw-123', false)
  await enableTeamSearch(pool, 'acme')
  await addAnalyst(pool, 'acme', 'leyla', 'leyla-pw-123', true)
  await pool.end()
  const store = await PgSyncStore.open({ url: cluster.urlFor({ database: 'team', user: 'acme_writer', password: 'w-pw' }), schema: 'acme' })
  const { session } = await signedInSession(service)
  await engineFor(session, store).run({ from: FROM_MS, to: TO_MS, results: 'all', includeAnalysis: true }, { mode: 'full' })
  await store.pool.query(
    // The worker's row for the one scope synced, so a window can choose it by name.
    `INSERT INTO acme.worker_scopes (scope_key, name, worker, running, last_success_at, last_outcome, updated_at)
     SELECT scope_key, 'everything', 'host:1', false, 1, 'done', 1 FROM acme.scopes`
  )
  await store.close()
  app = createTestApp()
}, 120_000)

afterAll(async () => {
  await app?.close()
  await service?.stop()
  await cluster?.stop()
})

async function call<C extends ChannelName>(channel: C, request: Request<C>): Promise<Response<C>> {
  const parsed = contract[channel].request.parse(request)
  const handler = app.controller.handlers[channel] as (r: unknown, ctx: { senderId: number }) => Promise<unknown>
  return contract[channel].response.parse(await handler(parsed, { senderId: 1 })) as Response<C>
}

async function failure(p: Promise<unknown>): Promise<CallsightError> {
  try {
    await p
  } catch (e) {
    if (e instanceof CallsightError) return e
    throw e
  }
  throw new Error('expected a failure')
}

const team = () => ({
  url: `postgres://acme_reader@127.0.0.1:${cluster.port}/team`,
  schema: 'acme',
  sslMode: 'disable' as const,
  sslRootCert: null
})

describe('a team cache account in the app', () => {
  it('refuses a wrong password or a password in the address, and saves nothing', async () => {
    const wrong = await failure(call('team.connect', { team: team(), password: 'nope', baseUrl: service.url, username: 'demo' }))
    expect(wrong.code).toBe('InvalidCredentials')
    expect((await call('settings.get', {})).accounts).toEqual([])
    // The password has its own, encrypted field: in the address (user:pw@, or the query
    // parameters libpq reads a password or key passphrase from) it would land in config.json.
    for (const url of [
      `postgres://acme_reader:pw@127.0.0.1:${cluster.port}/team`,
      `postgres://acme_reader@127.0.0.1:${cluster.port}/team?password=reader-pw-1`,
      `postgres://acme_reader@127.0.0.1:${cluster.port}/team?sslmode=require&sslpassword=key-pw`
    ]) {
      const parsed = contract['team.connect'].request.safeParse({
        team: { ...team(), url },
        password: 'x',
        baseUrl: service.url,
        username: 'demo'
      })
      expect(parsed.success, url).toBe(false)
      expect(JSON.stringify(parsed.error?.issues)).toMatch(/its own field/)
    }
  })

  it('connects, keeps the password encrypted, pulls with progress, shows the worker, and asks nothing of the service', async () => {
    const state = await call('team.connect', { team: team(), password: 'reader-pw-1', baseUrl: service.url, username: 'demo' })
    expect(state.account?.teamCache?.schema).toBe('acme')
    expect(state.status).toBe('signedOut')
    // The password is nowhere in clear on disk.
    for (const f of ['config.json', 'secrets.json']) expect(readFileSync(join(app.userData, f), 'utf8')).not.toContain('reader-pw-1')
    expect(readFileSync(join(app.userData, 'secrets.json'), 'utf8')).toContain('team-password:')

    service.admin.resetStats()
    const { runId } = await call('team.pull', {})
    const end = Date.now() + 60_000
    let last: TeamPullProgress | undefined
    while (Date.now() < end) {
      last = app.events
        .filter((e) => e.event === 'team.progress')
        .map((e) => e.payload as TeamPullProgress)
        .filter((p) => p.runId === runId)
        .pop()
      if (last && last.phase !== 'pulling') break
      await new Promise((r) => setTimeout(r, 25))
    }
    expect(last).toMatchObject({ phase: 'done', calls: 2500 })
    expect(service.admin.stats().requests).toBe(0)
    expect((await call('search.count', { query: { text: '', results: 'all' } })).total).toBe(2500)
    const status = await call('team.status', {})
    expect(status).toMatchObject({ error: null, source: { schema: 'acme' } })
    expect(status.cursor).toBeGreaterThan(0)
    expect(status.workers).toEqual([expect.objectContaining({ name: 'everything', running: false, lastOutcome: 'done' })])
    // Remote search stays possible: signing in to the service keeps the team source.
    const signedIn = await call('session.signIn', { baseUrl: service.url, username: 'demo', password: 'demo' })
    expect(signedIn.account?.teamCache?.url).toBe(team().url)
  })
  it('holds a window of days from the team panel: drops what leaves, widens back, says it in coverage', async () => {
    const waitPull = async (runId: string): Promise<TeamPullProgress | undefined> => {
      const end = Date.now() + 60_000
      for (;;) {
        const last = app.events
          .filter((e) => e.event === 'team.progress')
          .map((e) => e.payload as TeamPullProgress)
          .filter((p) => p.runId === runId)
          .pop()
        if ((last && last.phase !== 'pulling') || Date.now() > end) return last
        await new Promise((r) => setTimeout(r, 25))
      }
    }
    expect(contract['team.window'].request.safeParse({ days: 0 }).success).toBe(false)
    expect(contract['team.window'].request.safeParse({ days: 1.5 }).success).toBe(false)
    const count = async (): Promise<number> => (await call('search.count', { query: { text: '', results: 'all' } })).total
    // The calls are all of one day: a window reaching back past it holds them all.
    const wide = Math.ceil((Date.now() - FROM_MS) / 86_400_000) + 30
    expect(await waitPull((await call('team.window', { days: wide })).runId)).toMatchObject({ phase: 'done', dropped: 0 })
    expect(await count()).toBe(2500)
    expect((await call('team.status', {})).window).toMatchObject({ days: wide, calls: 2500 })

    // Narrowed to the last 7 days: every call leaves, and search says the rest is outside the window.
    expect(await waitPull((await call('team.window', { days: 7 })).runId)).toMatchObject({ phase: 'done', dropped: 2500 })
    expect(await count()).toBe(0)
    const status = await call('team.status', {})
    expect(status.window).toMatchObject({ days: 7, calls: 0 })
    expect(status.window!.start).toBeGreaterThan(Date.now() - 8 * 86_400_000)
    expect(status.window!.bytes).toBeGreaterThan(0)
    const { coverage } = await call('search.count', { query: { text: '', results: 'all', from: FROM_MS, to: TO_MS } })
    expect(coverage.complete).toBe(false)
    expect(coverage.notices).toEqual([{ kind: 'outside-window', windowStart: status.window!.start, days: 7 }])

    // Everything again: the backfill brings every call back.
    expect(await waitPull((await call('team.window', { days: null })).runId)).toMatchObject({ phase: 'done', backfilled: 2500 })
    expect(await count()).toBe(2500)
    expect((await call('search.count', { query: { text: '', results: 'all', from: FROM_MS, to: TO_MS } })).coverage.notices).toBeUndefined()

    // Chosen scopes: an unknown name is refused with the known ones, nothing changed; a known
    // one pulls anew and is shown with the window; every scope again.
    const unknown = await failure(call('team.window', { days: null, scopes: ['nope'] }))
    expect(unknown.code).toBe('InvalidInput')
    expect(unknown.hint).toContain('"everything"')
    expect((await call('team.status', {})).window).toMatchObject({ days: null, calls: 2500 })
    expect((await call('team.status', {})).window?.scopes).toBeUndefined()
    expect(await waitPull((await call('team.window', { days: null, scopes: ['everything'] })).runId)).toMatchObject({
      phase: 'done',
      calls: 2500
    })
    expect((await call('team.status', {})).window).toMatchObject({ days: null, scopes: ['everything'], calls: 2500 })
    expect(await waitPull((await call('team.window', { days: null, scopes: null })).runId)).toMatchObject({ phase: 'done', calls: 2500 })
    expect((await call('team.status', {})).window?.scopes).toBeUndefined()
    expect(await count()).toBe(2500)
  }, 90_000)

  it('an analyst\'s own login: saves queue ("N changes waiting"), written as the role, and reach the team cache with the next pull', async () => {
    const ayse = { ...team(), url: `postgres://ayse@127.0.0.1:${cluster.port}/team` }
    await call('team.connect', { team: ayse, password: 'ayse-pw-123', baseUrl: service.url, username: 'typed name' })
    const queue = () => app.events.filter((e) => e.event === 'review.queue').map((e) => e.payload as ReviewQueue)
    const saved = await call('annotations.save', { callId: 'shared-call-1', status: 'reviewed', note: 'fine' })
    // The author is the role PostgreSQL knows, not the name typed in the form.
    expect(saved.updatedBy).toBe('ayse')
    expect(queue().pop()).toMatchObject({ waiting: 2, refused: 0 })
    expect((await call('team.status', {})).review).toMatchObject({ waiting: 2, refused: 0 })

    const { runId } = await call('team.pull', {})
    const end = Date.now() + 60_000
    while (
      Date.now() < end &&
      !app.events.some(
        (e) =>
          e.event === 'team.progress' &&
          (e.payload as TeamPullProgress).runId === runId &&
          (e.payload as TeamPullProgress).phase !== 'pulling'
      )
    )
      await new Promise((r) => setTimeout(r, 25))
    while (Date.now() < end && queue().pop()?.waiting !== 0) await new Promise((r) => setTimeout(r, 25))
    expect(queue().pop()).toMatchObject({ waiting: 0, refused: 0, error: null })
    const pool = createPool({ url: cluster.urlFor({ database: 'team' }), schema: 'acme' })
    try {
      const rows = await pool.query(`SELECT author, value FROM acme.review_fields WHERE call_id = 'shared-call-1'`)
      expect(rows.rows).toEqual([{ author: 'ayse', value: '"reviewed"' }])
    } finally {
      await pool.end()
    }
  }, 90_000)

  it('searches the team cache in place over IPC as the local search answers the pulled calls', async () => {
    for (const text of ['', 'iptal', 'fatura -iade', '"kargo"']) {
      for (const sort of ['date_desc', 'date_asc'] as const) {
        const query = { text, results: 'all' as const, sort }
        const local = await call('search.page', { query, offset: 20, limit: 20 })
        const remote = await call('team.search', { query, offset: 20, limit: 20, count: 'exact' })
        expect(
          remote.page.rows.map((r) => r.callId),
          text
        ).toEqual(local.rows.map((r) => r.callId))
        const want = { kind: 'exact', n: (await call('search.count', { query })).total }
        expect(remote.total, text).toEqual(want)
        expect(remote.unindexed).toBe(false)
        // A team cache this small is counted exactly at once, even when an estimate is asked.
        expect((await call('team.search', { query, offset: 0, limit: 1, count: 'estimate' })).total, text).toEqual(want)
      }
    }
    const first = (await call('team.search', { query: { text: 'iptal', results: 'all' }, offset: 0, limit: 1 })).page.rows[0]!
    const { firstSeenAt: _f, lastChangedAt: _l, ...held } = (await call('calls.get', { callId: first.callId }))!
    expect(await call('team.call', { callId: first.callId })).toEqual(held)
    const refused = await failure(call('team.search', { query: { text: 'iptal', sort: 'relevance' }, offset: 0, limit: 5 }))
    expect(refused.message).toMatch(/team cache cannot answer the relevance order/)
  })

  it('a team cache search where the operator turned search off fails with TeamSearchOff, and works once on again', async () => {
    const owner = createPool({ url: cluster.urlFor({ database: 'team' }), schema: 'acme', maxConnections: 1 })
    const query = { text: 'iptal', results: 'all' as const }
    try {
      await disableTeamSearch(owner, 'acme')
      const off = await failure(call('team.search', { query, offset: 0, limit: 5 }))
      expect(off.code).toBe('TeamSearchOff')
      expect(off.hint).toMatch(/callsight team search enable/)
      await enableTeamSearch(owner, 'acme')
      expect((await call('team.search', { query, offset: 0, limit: 5, count: 'exact' })).total).toEqual({
        kind: 'exact',
        n: (await call('search.count', { query })).total
      })
    } finally {
      await owner.end()
    }
  })
  it("sends a lead's new list and scorecard to the team at once, as it sends a save", async () => {
    // A workstation of its own: the lead's only account, connected once.
    const lead = createTestApp()
    const on = async <C extends ChannelName>(channel: C, request: Request<C>): Promise<Response<C>> => {
      const handler = lead.controller.handlers[channel] as (r: unknown, ctx: { senderId: number }) => Promise<unknown>
      return contract[channel].response.parse(await handler(contract[channel].request.parse(request), { senderId: 1 })) as Response<C>
    }
    const pool = createPool({ url: cluster.urlFor({ database: 'team' }), schema: 'acme' })
    try {
      const leyla = { ...team(), url: `postgres://leyla@127.0.0.1:${cluster.port}/team` }
      await on('team.connect', { team: leyla, password: 'leyla-pw-123', baseUrl: service.url, username: 'leyla' })
      // The live sync's first run after connecting: from then on only a save or a notification runs one.
      const end = Date.now() + 30_000
      while (Date.now() < end && !lead.events.some((e) => e.event === 'review.queue')) await new Promise((r) => setTimeout(r, 25))
      const card = await on('scorecards.save', {
        definition: { name: 'Ekip formu', criteria: [{ id: 'greet', name: 'Selamlama', weight: 1, scale: '1_5', critical: false }] }
      })
      const list = await on('reviewLists.create', { name: 'Ekip listesi', source: { kind: 'ids', ids: ['shared-call-1'] } })
      const shared = async (): Promise<number> =>
        Number(
          (
            await pool.query<{ n: string }>(
              `SELECT (SELECT count(*) FROM acme.team_scorecards WHERE id = $1) + (SELECT count(*) FROM acme.team_review_lists WHERE id = $2) AS n`,
              [card.id, list.id]
            )
          ).rows[0]!.n
        )
      // No pull, no other save: within seconds, or never (the next scheduled pull is minutes away).
      const until = Date.now() + 15_000
      while (Date.now() < until && (await shared()) < 2) await new Promise((r) => setTimeout(r, 100))
      expect(await shared()).toBe(2)
    } finally {
      await pool.end()
      await lead.close()
    }
  }, 90_000)

  it('starts the live sync again for the next account connected, after the previous one was live', async () => {
    // The analyst's account above has been live (a save pushed, a status read): now the lead connects here.
    const leyla = { ...team(), url: `postgres://leyla@127.0.0.1:${cluster.port}/team` }
    const before = app.events.length
    await call('team.connect', { team: leyla, password: 'leyla-pw-123', baseUrl: service.url, username: 'leyla' })
    // The live sync's first run for the new login says so (a pull, no pull asked for).
    const synced = (): boolean => app.events.slice(before).some((e) => e.event === 'review.queue')
    const end = Date.now() + 20_000
    while (Date.now() < end && !synced()) await new Promise((r) => setTimeout(r, 25))
    expect(synced()).toBe(true)
  }, 60_000)
})
