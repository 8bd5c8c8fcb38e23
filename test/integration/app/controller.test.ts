import { existsSync, readFileSync } from 'node:fs'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse } from 'csv-parse/sync'
import type { ChannelName } from '../../../src/shared/ipc/names'
import type { Request, Response } from '../../../src/shared/ipc/contract'
import type { SyncProgress, ExportProgress } from '../../../src/shared/domain'
import { startService, type RunningService } from '../../../src/reference-service'
import { accountDbPath } from '../../../src/core/app/account-runtime'
import { createTestApp, type TestApp } from '../../support/app-fixture'
import { refusal, routerClient, type RouterClient } from '../../support/router-client'
import { until } from '../../support/until'

// The application controller end to end over real parts: the app's own IPC router, the
// reference service over HTTP on 127.0.0.1, a real SQLite file, the real sync engine and exporter.

let app: TestApp
let client: RouterClient

function use(next: TestApp): void {
  app = next
  client = routerClient(next.controller.handlers)
}

function call<C extends ChannelName>(channel: C, request: Request<C>): Promise<Response<C>> {
  return client.call(channel, request)
}

const failure = refusal

/** The last progress of an export: done, failed or cancelled. */
function exportEnd(exportId: string): Promise<ExportProgress> {
  return until(() =>
    app.events
      .filter((e) => e.event === 'export.progress')
      .map((e) => e.payload as ExportProgress)
      .find((p) => p.exportId === exportId && p.phase !== 'writing')
  )
}

const DAY = 86_400_000

/** What the app logged, every level. */
const logged: Array<{ level: string; message: string; fields?: Record<string, unknown> }> = []

describe('application controller', () => {
  beforeAll(() => {
    use(createTestApp({ logger: { log: (level, message, fields) => logged.push({ level, message, fields }) } }))
  })
  afterAll(async () => {
    await app.close()
  })

  it('starts signed out, with an empty cache', async () => {
    expect((await call('session.get', {})).status).toBe('signedOut')
    expect(await call('cache.info', {})).toMatchObject({ calls: 0, path: null })
    expect((await call('search.page', { query: {}, offset: 0, limit: 50 })).rows).toEqual([])
  })

  it('reports a wrong password as InvalidCredentials and stays signed out', async () => {
    const demo = await app.platform.demo!.start()
    const e = await failure(call('session.signIn', { baseUrl: demo.baseUrl, username: 'demo', password: 'wrong' }))
    expect(e.code).toBe('InvalidCredentials')
    expect((await call('session.get', {})).status).toBe('signedOut')
  })

  it('signs in to the demo, syncs a scope with progress, and searches Turkish-folded text offline', async () => {
    const state = await call('session.startDemo', {})
    expect(state.status).toBe('signedIn')
    expect(state.account?.demo).toBe(true)
    expect((await call('catalog.callTypes', {})).length).toBeGreaterThan(0)

    const now = Date.now()
    const { runId } = await call('sync.start', {
      scope: { from: now - 95 * DAY, to: now + DAY, results: 'all', includeAnalysis: true },
      mode: 'full'
    })
    const final = await until(() => {
      const done = app.events
        .filter((e) => e.event === 'sync.progress')
        .map((e) => e.payload as SyncProgress)
        .find((p) => p.runId === runId && ['done', 'failed', 'cancelled'].includes(p.phase))
      return done
    })
    expect(final.error).toBeUndefined()
    expect(final.phase).toBe('done')
    expect(final.stored).toBe(3_000)
    const fetching = app.events.filter((e) => e.event === 'sync.progress' && (e.payload as SyncProgress).phase === 'fetching')
    expect(fetching.length).toBeGreaterThan(1)

    const info = await call('cache.info', {})
    expect(info.calls).toBe(3_000)
    expect(info.lastSyncAt).not.toBeNull()
    const scopes = await call('sync.scopes', {})
    expect(scopes.scopes[0]?.lastSuccessAt).not.toBeNull()

    const upper = await call('search.count', { query: { results: 'all', text: 'İPTAL' } })
    const lower = await call('search.count', { query: { results: 'all', text: 'iptal' } })
    expect(lower.total).toBeGreaterThan(0)
    expect(upper.total).toBe(lower.total)

    const page = await call('search.page', { query: { results: 'all', text: 'iptal' }, offset: 0, limit: 20 })
    expect(page.rows.length).toBeGreaterThan(0)
    const first = await call('calls.get', { callId: page.rows[0]!.callId })
    expect(first?.callId).toBe(page.rows[0]!.callId)
    expect(first?.analysis.length).toBeGreaterThan(0)
  })

  it('logs at debug level how each page was served and why', async () => {
    const before = logged.length
    await call('search.page', { query: { results: 'all', text: 'iptal' }, offset: 0, limit: 20 })
    const entry = logged.slice(before).find((l) => l.message === 'search page')
    expect(entry?.level).toBe('debug')
    expect(typeof entry?.fields?.plan).toBe('string')
    expect(entry?.fields?.inputs).toMatchObject({ offset: 0, limit: 20 })
    expect(entry?.fields?.ms).toBeGreaterThanOrEqual(0)
  })

  it('filters by an analysis value and gives facets', async () => {
    const keys = await call('search.analysisKeys', {})
    const key = keys.find((k) => !k.numeric)
    expect(key).toBeDefined()
    const facets = await call('search.facets', { query: { results: 'all' }, analysisKey: key!.key })
    expect(facets.total).toBe(3_000)
    const value = facets.perValue[0]!
    const filtered = await call('search.count', {
      query: { results: 'all', analysis: [{ kind: 'equals', key: key!.key, value: value.value }] }
    })
    expect(filtered.total).toBe(value.count)
  })

  it('exports selected calls through the save dialog, with progress, to a file that reads back', async () => {
    const page = await call('search.page', { query: { results: 'all' }, offset: 0, limit: 5 })
    const ids = page.rows.map((r) => r.callId)
    const started = await call('export.start', {
      selection: { kind: 'ids', ids },
      format: 'csv',
      columns: ['callId', 'title'],
      analysisLayout: 'wide'
    })
    expect(started.started).toBe(true)
    if (!started.started) return
    const done = await exportEnd(started.exportId)
    expect(done.phase).toBe('done')
    expect(done.file).toBe(started.file)
    const rows = parse(readFileSync(started.file, 'utf8'), { bom: true }) as string[][]
    expect(
      rows
        .slice(1)
        .map((r) => r[0])
        .sort()
    ).toEqual([...ids].sort())
    // The choice is remembered.
    expect((await call('settings.get', {})).export).toMatchObject({ format: 'csv', columns: ['callId', 'title'] })
  })

  it('opens a finished export, or shows it in its folder, through the desktop shell; only a file it wrote', async () => {
    const started = await call('export.start', {
      selection: { kind: 'query', query: { text: 'iptal' } },
      format: 'json',
      columns: ['callId']
    })
    if (!started.started) throw new Error('the export did not start')
    expect((await exportEnd(started.exportId)).phase).toBe('done')
    await call('export.reveal', { exportId: started.exportId, how: 'open' })
    await call('export.reveal', { exportId: started.exportId, how: 'folder' })
    expect(app.revealed.slice(-2)).toEqual([
      { how: 'open', file: started.file },
      { how: 'folder', file: started.file }
    ])
    await expect(call('export.reveal', { exportId: 'not-an-export', how: 'open' })).rejects.toMatchObject({ code: 'NotFound' })
  })

  it('exports a hand selection sent as offset ranges over the query, walked in core', async () => {
    const query = { results: 'all' as const, text: 'iptal' }
    const page = await call('search.page', { query, offset: 0, limit: 10 })
    const want = [0, 1, 2, 7, 8].map((i) => page.rows[i]!.callId)
    const started = await call('export.start', {
      selection: {
        kind: 'ranges',
        query,
        ranges: [
          [7, 8],
          [0, 2]
        ]
      },
      format: 'csv',
      columns: ['callId'],
      analysisLayout: 'wide'
    })
    expect(started.started).toBe(true)
    if (!started.started) return
    const done = await exportEnd(started.exportId)
    expect(done).toMatchObject({ phase: 'done', written: 5 })
    const rows = parse(readFileSync(started.file, 'utf8'), { bom: true }) as string[][]
    // In the order the user saw them.
    expect(rows.slice(1).map((r) => r[0])).toEqual(want)
  })

  it('does nothing when the save dialog is cancelled', async () => {
    app.nextExportFile.value = null
    const r = await call('export.start', {
      selection: { kind: 'query', query: { results: 'all' } },
      format: 'json',
      columns: ['callId'],
      analysisLayout: 'wide'
    })
    expect(r).toEqual({ started: false })
  })

  it('keeps saved searches in settings', async () => {
    const saved = await call('savedSearches.save', { name: 'İptaller', query: { text: 'iptal' } })
    expect(saved.map((s) => s.name)).toContain('İptaller')
    const left = await call('savedSearches.remove', { id: saved[0]!.id })
    expect(left).toEqual([])
  })

  it('keeps a "last 30 days" saved search relative, with no instants stored', async () => {
    const saved = await call('savedSearches.save', {
      name: 'İptal – son 30 gün',
      query: { text: 'iptal', from: 1_700_000_000_000, to: 1_702_592_000_000 },
      relativeDays: 30
    })
    const entry = saved.find((s) => s.name === 'İptal – son 30 gün')!
    expect(entry.relativeDays).toBe(30)
    expect(entry.query.from).toBeNull()
    expect(entry.query.to).toBeNull()
    expect(app.platform.settingsStore.get().savedSearches.find((s) => s.id === entry.id)?.relativeDays).toBe(30)
    await call('savedSearches.remove', { id: entry.id })
  })

  it('only opens web links', async () => {
    await call('shell.openExternal', { url: 'https://example.com/help' })
    expect(app.opened).toEqual(['https://example.com/help'])
    await expect(call('shell.openExternal', { url: 'file:///etc/passwd' })).rejects.toMatchObject({ code: 'InvalidInput' })
  })

  it('never puts a token in any reply', async () => {
    const secrets = JSON.stringify(app.platform.secretStore.get(`tokens:demo`) ?? '')
    expect(secrets.length).toBeGreaterThan(10)
    for (const r of client.replies) {
      expect(r).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\./) // no JWT
      expect(r.toLowerCase()).not.toContain('refresh_token')
      expect(r.toLowerCase()).not.toContain('accesstoken')
    }
  })

  it('applies account edits: a new rate limit in place, a new zone with a rebuilt client, still signed in', async () => {
    const before = await call('session.get', {})
    const id = before.account!.id
    await call('settings.update', { account: { id, rateLimit: { requests: 120, perSeconds: 60 }, label: 'Demo (fast)' } })
    let state = await call('session.get', {})
    expect(state.account).toMatchObject({ label: 'Demo (fast)', rateLimit: { requests: 120, perSeconds: 60 } })
    expect(state.status).toBe('signedIn')

    await call('settings.update', { account: { id, zone: 'Europe/Berlin' } })
    state = await call('session.get', {})
    expect(state.account?.zone).toBe('Europe/Berlin')
    expect(state.status).toBe('signedIn')
    // The rebuilt client reads the service with the new zone; the cache is the same file.
    expect((await call('cache.info', {})).calls).toBe(3_000)
    const page = await call('remote.search', { query: { from: Date.now() - 7 * DAY, to: Date.now() }, skip: 0, take: 5 })
    expect(page.records.length).toBeGreaterThan(0)

    const e = await failure(call('settings.update', { account: { id: 'nobody', label: 'x' } }))
    expect(e.code).toBe('NotFound')
  })

  it('keeps searching the cache when the service is gone and signed out', async () => {
    await app.platform.demo!.stop()
    await call('session.signOut', {})
    expect((await call('session.get', {})).status).toBe('signedOut')
    const count = await call('search.count', { query: { results: 'all', text: 'sikayet' } })
    expect(count.total).toBeGreaterThan(0)
    const e = await failure(call('sync.start', { scope: { from: 0, to: DAY }, mode: 'full' }))
    expect(e.code).toBe('NotSignedIn')
  })
})

describe('signing in to a restricted tenant', () => {
  let service: RunningService
  let app2: TestApp
  beforeAll(async () => {
    service = await startService({ calls: 10, allowIps: ['203.0.113.0/24'] })
    app2 = createTestApp()
    use(app2)
  })
  afterAll(async () => {
    await app2.close()
    await service.stop()
  })

  it('explains that the workstation address must be allowed', async () => {
    const e = await failure(call('session.signIn', { baseUrl: service.url, username: 'demo', password: 'demo' }))
    expect(e.code).toBe('IpNotAllowed')
    expect(`${e.message} ${e.hint}`).toMatch(/address|range/i)
    expect(existsSync(app2.userData)).toBe(true)
  })
})

describe('application controller without a secure key store (tokens in memory only)', () => {
  let own: TestApp
  beforeAll(() => {
    own = createTestApp({ persistTokens: false })
    use(own)
  })
  afterAll(async () => {
    await own.close()
  })

  it('stays signed in when the account zone changes (the tokens move to the rebuilt client)', async () => {
    const demo = await own.platform.demo!.start()
    const state = await call('session.signIn', { baseUrl: demo.baseUrl, username: 'demo', password: 'demo' })
    expect(state.status).toBe('signedIn')
    // Nothing was written where tokens would persist.
    expect(own.platform.secretStore.get(`tokens:${state.account!.id}`)).toBeUndefined()
    await call('settings.update', { account: { id: state.account!.id, zone: 'Europe/Berlin' } })
    const after = await call('session.get', {})
    expect(after.account?.zone).toBe('Europe/Berlin')
    expect(after.status).toBe('signedIn')
    const page = await call('remote.search', { query: { from: Date.now() - 7 * DAY, to: Date.now() }, skip: 0, take: 5 })
    expect(page.records.length).toBeGreaterThan(0)
  })
})

describe('a sync started through the controller', () => {
  let own: TestApp
  beforeAll(() => {
    own = createTestApp({ demo: { calls: 300 } })
    use(own)
  })
  afterAll(async () => {
    await own.close()
  })

  it('runs under one id, and names its call types in the catalog the one way the engine does', async () => {
    await call('session.startDemo', {})
    const demoType = (await call('catalog.callTypes', {}))[0]!
    // An emptied cache has no catalog: the sync's call type is all it will know.
    await call('cache.clear', {})
    expect(await call('catalog.callTypes', {})).toEqual([])
    const now = Date.now()
    const { runId } = await call('sync.start', {
      scope: { from: now - 2 * DAY, to: now, callTypes: [demoType.value], results: 'all', includeAnalysis: false },
      mode: 'full'
    })
    const final = await until(() =>
      own.events.map((e) => e.payload as SyncProgress).find((p) => p.runId === runId && ['done', 'failed', 'cancelled'].includes(p.phase))
    )
    expect(final.error).toBeUndefined()
    expect(final.phase).toBe('done')
    // The id sync.start answered is the one the cache recorded the run under.
    const db = new Database(accountDbPath(own.userData, 'demo'), { readonly: true })
    try {
      expect(db.prepare('SELECT id FROM sync_runs').pluck().all()).toEqual([runId])
    } finally {
      db.close()
    }
    expect(await call('catalog.callTypes', {})).toEqual([{ value: demoType.value, description: '' }])
  })
})
