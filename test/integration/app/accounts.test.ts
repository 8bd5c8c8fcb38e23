import { randomBytes } from 'node:crypto'
import { existsSync, rmSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SyncProgress } from '../../../src/shared/domain'
import type { ChannelName } from '../../../src/shared/ipc/names'
import type { Request, Response } from '../../../src/shared/ipc/contract'
import { startService, type RunningService } from '../../../src/reference-service'
import { accountDbPath } from '../../../src/core/app/account-runtime'
import { createTestApp, type TestApp } from '../../support/app-fixture'
import { refusal, routerClient, type RouterClient } from '../../support/router-client'
import { until } from '../../support/until'

// Several accounts side by side (the account switcher): two reference services on 127.0.0.1,
// one account on each, through the app's own router. Each account has its own SQLite file;
// switching signs nobody out; tokens stay in main.

const DAY = 86_400_000

function harness(app: TestApp): {
  call: <C extends ChannelName>(channel: C, request: Request<C>) => Promise<Response<C>>
  client: RouterClient
  syncEnd: (runId: string) => Promise<SyncProgress>
  sync: () => Promise<SyncProgress>
} {
  const client = routerClient(app.controller.handlers)
  const call = <C extends ChannelName>(channel: C, request: Request<C>): Promise<Response<C>> => client.call(channel, request)
  const progress = (): SyncProgress[] => app.events.filter((e) => e.event === 'sync.progress').map((e) => e.payload as SyncProgress)
  const syncEnd = (runId: string): Promise<SyncProgress> =>
    until(() => progress().find((p) => p.runId === runId && ['done', 'failed', 'cancelled'].includes(p.phase)))
  const sync = async (): Promise<SyncProgress> => {
    const now = Date.now()
    const { runId } = await call('sync.start', {
      scope: { from: now - 95 * DAY, to: now + DAY, results: 'all', includeAnalysis: true },
      mode: 'full'
    })
    return syncEnd(runId)
  }
  return { call, client, syncEnd, sync }
}

describe('two accounts side by side, tokens in memory only', () => {
  let slow: RunningService
  let quick: RunningService
  let app: TestApp
  let h: ReturnType<typeof harness>
  const ids = { a: '', b: '' }
  /** Each account's last sync run. */
  const runs = { a: '', b: '' }

  beforeAll(async () => {
    // A: 1,000 calls, each request 60 ms late, so a sync of it is still running when we switch.
    slow = await startService({
      calls: 1_000,
      seed: 3,
      rateLimit: { requests: 6000, perSeconds: 60 },
      faults: { latencyMs: 60 },
      quiet: true
    })
    quick = await startService({ calls: 400, seed: 9, rateLimit: { requests: 6000, perSeconds: 60 }, quiet: true })
    // No secure key store: the tokens live only in each account's runtime, the hardest case
    // for switching back without a sign-in.
    app = createTestApp({ persistTokens: false })
    h = harness(app)
  })
  afterAll(async () => {
    await app.close()
    await slow.stop()
    await quick.stop()
  })

  it('adds a second account by signing in, and the first stays signed in', async () => {
    const a = await h.call('session.signIn', {
      baseUrl: slow.url,
      username: 'demo',
      password: 'demo',
      rateLimit: { requests: 6000, perSeconds: 60 }
    })
    const b = await h.call('session.signIn', {
      baseUrl: quick.url,
      username: 'demo',
      password: 'demo',
      rateLimit: { requests: 6000, perSeconds: 60 }
    })
    ids.a = a.account!.id
    ids.b = b.account!.id
    expect(ids.a).not.toBe(ids.b)
    expect(b.status).toBe('signedIn')
    const { accounts } = await h.call('accounts.list', {})
    expect(accounts.map((e) => [e.account.id, e.active, e.status])).toEqual([
      [ids.a, false, 'signedIn'],
      [ids.b, true, 'signedIn']
    ])
  })

  it('keeps each account in its own cache file, and switches without signing in again', async () => {
    const bRun = await h.sync()
    expect(bRun.phase).toBe('done')
    runs.b = bRun.runId
    expect((await h.call('cache.info', {})).calls).toBe(400)

    const toA = await h.call('accounts.switch', { id: ids.a })
    expect(toA).toMatchObject({ status: 'signedIn', account: { id: ids.a, baseUrl: slow.url } })
    // A has synced nothing yet: B's calls are not in its cache.
    expect((await h.call('cache.info', {})).calls).toBe(0)
    expect((await h.call('search.count', { query: { results: 'all' } })).total).toBe(0)
    // Signed in without a password: A's service answers.
    const remote = await h.call('remote.search', { query: { from: Date.now() - 30 * DAY, to: Date.now() }, skip: 0, take: 5 })
    expect(remote.records.length).toBeGreaterThan(0)
    expect(app.platform.settingsStore.get().activeAccountId).toBe(ids.a)

    expect(existsSync(accountDbPath(app.userData, ids.a))).toBe(true)
    expect(existsSync(accountDbPath(app.userData, ids.b))).toBe(true)
  })

  it("cancels the account's running sync cleanly on a switch; its next sync completes the cache", async () => {
    const now = Date.now()
    const { runId } = await h.call('sync.start', {
      scope: { from: now - 95 * DAY, to: now + DAY, results: 'all', includeAnalysis: true },
      mode: 'full'
    })
    await until(() =>
      app.events.find(
        (e) => e.event === 'sync.progress' && (e.payload as SyncProgress).runId === runId && (e.payload as SyncProgress).stored > 0
      )
    )
    const toB = await h.call('accounts.switch', { id: ids.b })
    expect(toB).toMatchObject({ status: 'signedIn', account: { id: ids.b } })
    // The switch waited for the sync to stop: it has ended, as cancelled, not failed.
    const ended = await h.syncEnd(runId)
    expect(ended.phase).toBe('cancelled')
    expect(ended.stored).toBeLessThan(1_000)
    expect((await h.call('cache.info', {})).calls).toBe(400)
    expect((await h.call('search.count', { query: { results: 'all' } })).total).toBe(400)

    await h.call('accounts.switch', { id: ids.a })
    const partial = (await h.call('cache.info', {})).calls
    expect(partial).toBe(ended.stored)
    const aRun = await h.sync()
    expect(aRun.phase).toBe('done')
    runs.a = aRun.runId
    expect((await h.call('search.count', { query: { results: 'all' } })).total).toBe(1_000)

    await h.call('accounts.switch', { id: ids.b })
    expect((await h.call('search.count', { query: { results: 'all' } })).total).toBe(400)
  })

  it("gives the sync screen the active account's own last run, never the other account's", async () => {
    // B is active (the test before switched to it).
    const onB = await h.call('sync.scopes', {})
    expect(onB.last).toMatchObject({ runId: runs.b, phase: 'done', stored: 400 })
    expect(onB.active).toBeNull()
    await h.call('accounts.switch', { id: ids.a })
    const onA = await h.call('sync.scopes', {})
    expect(onA.last).toMatchObject({ runId: runs.a, phase: 'done' })
    await h.call('accounts.switch', { id: ids.b })
    expect((await h.call('sync.scopes', {})).last?.runId).toBe(runs.b)
  })

  it('refuses an account that is not set up, and keeps the active one', async () => {
    const e = await refusal(h.call('accounts.switch', { id: 'nobody' }))
    expect(e.code).toBe('NotFound')
    expect((await h.call('session.get', {})).account?.id).toBe(ids.b)
  })

  it('signing out one account leaves the other signed in', async () => {
    await h.call('session.signOut', {})
    const { accounts } = await h.call('accounts.list', {})
    expect(accounts.map((e) => [e.account.id, e.status])).toEqual([
      [ids.a, 'signedIn'],
      [ids.b, 'signedOut']
    ])
    expect((await h.call('accounts.switch', { id: ids.a })).status).toBe('signedIn')
  })

  it('removes an inactive account with its cache file', async () => {
    const settings = await h.call('accounts.remove', { id: ids.b })
    expect(settings.accounts.map((a) => a.id)).toEqual([ids.a])
    expect(existsSync(accountDbPath(app.userData, ids.b))).toBe(false)
    expect((await h.call('session.get', {})).account?.id).toBe(ids.a)
    expect((await h.call('cache.info', {})).calls).toBe(1_000)
  })

  it('never sends a token to the renderer', () => {
    expect(h.client.replies.length).toBeGreaterThan(10)
    for (const r of h.client.replies) {
      expect(r).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\./) // no JWT
      expect(r.toLowerCase()).not.toContain('refresh')
      expect(r.toLowerCase()).not.toContain('accesstoken')
    }
  })
})

describe('accounts across a restart, tokens in the vault', () => {
  let one: RunningService
  let two: RunningService
  const userDataRef = { dir: '' }

  beforeAll(async () => {
    one = await startService({ calls: 50, seed: 4, quiet: true })
    two = await startService({ calls: 60, seed: 5, quiet: true })
  })
  afterAll(async () => {
    await one.stop()
    await two.stop()
  })

  it('comes back on the last active account, with the other one a switch away', async () => {
    const cipherKey = randomBytes(32)
    const first = createTestApp({ cipherKey })
    userDataRef.dir = first.userData
    const h1 = harness(first)
    const a = await h1.call('session.signIn', { baseUrl: one.url, username: 'demo', password: 'demo' })
    const b = await h1.call('session.signIn', { baseUrl: two.url, username: 'demo', password: 'demo' })
    await h1.call('accounts.switch', { id: a.account!.id })
    // Only ciphertext in the vault: no token in the clear on disk.
    const stored = JSON.stringify(first.platform.secretStore.get(`tokens:${b.account!.id}`))
    expect(stored).toContain('"backend"')
    expect(stored).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\./)
    await first.controller.dispose()

    const second = createTestApp({ userData: userDataRef.dir, cipherKey })
    try {
      const h2 = harness(second)
      const state = await h2.call('session.get', {})
      expect(state).toMatchObject({ status: 'signedIn', account: { id: a.account!.id } })
      const { accounts } = await h2.call('accounts.list', {})
      expect(accounts.map((e) => [e.account.id, e.active, e.status])).toEqual([
        [a.account!.id, true, 'signedIn'],
        [b.account!.id, false, 'signedIn']
      ])
      const toB = await h2.call('accounts.switch', { id: b.account!.id })
      expect(toB.status).toBe('signedIn')
      const remote = await h2.call('remote.search', { query: { from: Date.now() - 30 * DAY, to: Date.now() }, skip: 0, take: 5 })
      expect(remote.records.length).toBeGreaterThan(0)
    } finally {
      await second.close()
      rmSync(userDataRef.dir, { recursive: true, force: true })
    }
  })
})
