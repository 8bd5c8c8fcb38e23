import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ChannelName } from '../../../src/shared/ipc/names'
import type { Request, Response } from '../../../src/shared/ipc/contract'
import type { SyncProgress } from '../../../src/shared/domain'
import { accountDbPath } from '../../../src/core/app/account-runtime'
import { createTestApp, type TestApp } from '../../support/app-fixture'
import { refusal, routerClient, type RouterClient } from '../../support/router-client'

// Review through the app's own router over real parts: the reference service on 127.0.0.1,
// the real sync engine and a real SQLite file. Annotations must outlive a full resync and a
// "clear cache" that keeps them.

let app: TestApp
let client: RouterClient
const DAY = 86_400_000
const now = Date.now()
const SCOPE = { from: now - 20 * DAY, to: now + DAY, results: 'all' as const, includeAnalysis: true }

function call<C extends ChannelName>(channel: C, request: Request<C>): Promise<Response<C>> {
  return client.call(channel, request)
}

const failure = refusal

async function sync(mode: 'full' | 'incremental'): Promise<SyncProgress> {
  const { runId } = await call('sync.start', { scope: SCOPE, mode })
  const end = Date.now() + 60_000
  for (;;) {
    const done = app.events
      .filter((e) => e.event === 'sync.progress')
      .map((e) => e.payload as SyncProgress)
      .find((p) => p.runId === runId && ['done', 'failed', 'cancelled'].includes(p.phase))
    if (done) return done
    if (Date.now() > end) throw new Error('sync timed out')
    await new Promise((r) => setTimeout(r, 25))
  }
}

const CARD = {
  name: 'Kalite formu',
  criteria: [
    { id: 'greet', name: 'Selamlama', weight: 1, scale: 'yes_no' as const, critical: false },
    { id: 'solve', name: 'Çözüm', weight: 2, scale: '1_5' as const, critical: false },
    { id: 'kvkk', name: 'KVKK uyarısı', weight: 1, scale: 'yes_no' as const, critical: true }
  ]
}

let ids: string[] = []
let cardId = ''

describe('review through the router', () => {
  beforeAll(async () => {
    app = createTestApp()
    client = routerClient(app.controller.handlers)
    await call('session.startDemo', {})
    const p = await sync('full')
    expect(p.phase).toBe('done')
    ids = (await call('search.page', { query: { results: 'all' }, offset: 0, limit: 50 })).rows.map((r) => r.callId)
    expect(ids.length).toBe(50)
  }, 120_000)
  afterAll(async () => {
    await app.close()
  })

  it('saves status, tags, a note masked for PII, and a score computed with its scorecard version', async () => {
    const card = await call('scorecards.save', { definition: CARD })
    cardId = card.id
    expect(card.version).toBe(1)
    const a = await call('annotations.save', {
      callId: ids[0]!,
      status: 'in_review',
      tags: ['iade', ' iade ', 'şikayet'],
      note: 'Müşteri 0532 123 45 67 numarasından aradı',
      score: { scorecardId: cardId, answers: { greet: 1, solve: 4, kvkk: 1 } }
    })
    expect(a.status).toBe('in_review')
    expect(a.tags).toEqual(['iade', 'şikayet'])
    expect(a.note).toBe('Müşteri [MASKED] numarasından aradı')
    expect(a.author).toBe('demo')
    expect(a.callMissing).toBe(false)
    // (1×1 + 2×0.75 + 1×1) / 4 = 87.5
    expect(a.score).toMatchObject({ scorecardId: cardId, version: 1, total: 87.5, failed: false })
    expect(a.statusAt).toBeGreaterThan(0)
    expect((await call('annotations.get', { callId: ids[0]! }))?.note).toBe(a.note)

    // A failed critical criterion fails the call.
    const failed = await call('annotations.save', {
      callId: ids[1]!,
      score: { scorecardId: cardId, answers: { greet: 1, solve: 5, kvkk: 0 } }
    })
    expect(failed.score).toMatchObject({ total: 0, failed: true })

    // An answer off the scale is refused by the core with the taxonomy's InvalidInput.
    expect((await failure(call('annotations.save', { callId: ids[2]!, score: { scorecardId: cardId, answers: { solve: 7 } } }))).code).toBe(
      'InvalidInput'
    )
    // An unknown status never reaches the handler.
    expect((await failure(call('annotations.save', { callId: ids[2]!, status: 'done' as never }))).code).toBe('InvalidInput')
  })

  it('versions a changed scorecard; old scores keep their version; JSON export/import round-trips', async () => {
    const v2 = await call('scorecards.save', {
      id: cardId,
      definition: { ...CARD, criteria: [...CARD.criteria, { id: 'close', name: 'Kapanış', weight: 1, scale: '0_10', critical: false }] }
    })
    expect(v2.version).toBe(2)
    const same = await call('scorecards.save', { id: cardId, definition: v2 })
    expect(same.version).toBe(2)
    expect((await call('annotations.get', { callId: ids[0]! }))?.score?.version).toBe(1)
    const scored = await call('annotations.save', { callId: ids[3]!, score: { scorecardId: cardId, answers: { close: 10, greet: 0 } } })
    expect(scored.score).toMatchObject({ version: 2, total: 50 })

    const { json } = await call('scorecards.export', { ids: [cardId] })
    const imported = await call('scorecards.import', { json: json.replace('Kalite formu', 'Kalite formu (kopya)') })
    expect(imported[0]).toMatchObject({ id: cardId, version: 3, name: 'Kalite formu (kopya)' })
    expect((await failure(call('scorecards.import', { json: '{"format":"x"}' }))).code).toBe('InvalidInput')
    expect((await call('scorecards.list', {})).map((s) => [s.id, s.version])).toEqual([[cardId, 3]])
  })

  it('undoes the latest change of a call, one at a time', async () => {
    await call('annotations.save', { callId: ids[4]!, status: 'reviewed' })
    await call('annotations.save', { callId: ids[4]!, tags: ['x'] })
    expect((await call('annotations.undo', { callId: ids[4]! }))?.tags).toEqual([])
    const back = await call('annotations.undo', { callId: ids[4]! })
    expect(back?.status).toBe('new')
    expect(await call('annotations.undo', { callId: ids[4]! })).toBeNull()
    expect((await call('annotations.tags', {})).find((t) => t.tag === 'iade')?.count).toBe(1)
  })

  it('builds review lists from ids, a search, and a seeded sample, with progress and next unreviewed', async () => {
    const manual = await call('reviewLists.create', { name: 'Elle', source: { kind: 'ids', ids: ids.slice(0, 5) } })
    expect(manual).toMatchObject({ size: 5, reviewed: 0 })
    // From before the start (opening a list): the first call itself when it is not reviewed.
    expect((await call('reviewLists.nextUnreviewed', { id: manual.id, index: -1 }))?.callId).toBe(ids[0])
    await call('annotations.save', { callId: ids[0]!, status: 'reviewed' })
    await call('annotations.save', { callId: ids[2]!, status: 'follow_up' })
    const progress = (await call('reviewLists.list', {})).find((l) => l.id === manual.id)!
    expect(progress).toMatchObject({ size: 5, reviewed: 2 })
    expect((await call('reviewLists.nextUnreviewed', { id: manual.id, index: 0 }))?.callId).toBe(ids[1])
    expect((await call('reviewLists.nextUnreviewed', { id: manual.id, index: 1 }))?.callId).toBe(ids[3])
    const added = await call('reviewLists.add', { id: manual.id, callIds: [ids[0]!, ids[9]!] })
    expect(added.size).toBe(6)
    // Each item carries its call's title and time, as calls.get has them: a list of the
    // list's calls needs no read per call.
    const slice = (await call('reviewLists.items', { id: manual.id, offset: 4, limit: 2 })).items
    const rec = await call('calls.get', { callId: ids[9]! })
    expect(slice.map((i) => [i.position, i.callId, i.status])).toEqual([
      [4, ids[4], 'new'],
      [5, ids[9], 'new']
    ])
    expect(slice[1]).toMatchObject({ title: rec!.title, callAt: rec!.callAt, callMissing: false })

    const total = (await call('search.count', { query: { results: 'all' } })).total
    const sampled = await call('reviewLists.create', {
      name: '%5',
      source: { kind: 'query', query: { results: 'all' }, sample: { kind: 'percent', percent: 5, seed: 7 } }
    })
    expect(sampled.size).toBe(Math.round(total * 0.05))
    const again = await call('reviewLists.create', {
      name: '%5 again',
      source: { kind: 'query', query: { results: 'all' }, sample: { kind: 'percent', percent: 5, seed: 7 } }
    })
    const items = async (id: string) => (await call('reviewLists.items', { id, offset: 0, limit: 1000 })).items.map((i) => i.callId)
    expect(await items(again.id)).toEqual(await items(sampled.id))

    const perDay = await call('reviewLists.create', {
      name: '2/day',
      source: { kind: 'query', query: { results: 'all' }, sample: { kind: 'perDay', perDay: 2, zone: 'Europe/Istanbul', seed: 1 } }
    })
    expect(perDay.size).toBeGreaterThan(10)
    expect(perDay.size).toBeLessThanOrEqual(2 * 22)
    // A search that finds nothing makes no list (review mode would open on nothing), and says why.
    const before = (await call('reviewLists.list', {})).length
    const nothing = { kind: 'query' as const, query: { text: 'zzqqxxnotaword', results: 'all' as const }, sample: null }
    const empty = await failure(call('reviewLists.create', { name: 'Boş', source: nothing }))
    expect([empty.code, empty.message]).toEqual(['InvalidInput', expect.stringMatching(/finds no calls/)])
    expect((await call('reviewLists.list', {})).length).toBe(before)
    expect((await failure(call('reviewLists.items', { id: 'nope', offset: 0, limit: 10 }))).code).toBe('NotFound')

    const stats = await call('review.stats', { zone: 'Europe/Istanbul' })
    expect(stats.lists.find((l) => l.id === manual.id)).toMatchObject({ size: 6, reviewed: 2 })
    // Totals 87.5, 0 and 50 (v2): one call each in the 80s, the 0s and the 50s.
    expect(stats.scoreBuckets.filter((b) => b.count > 0).map((b) => [b.from, b.count])).toEqual([
      [0, 1],
      [50, 1],
      [80, 1]
    ])
    expect(stats.scoreByDay.reduce((n, d) => n + d.count, 0)).toBe(3)
    expect(stats.tags.find((t) => t.tag === 'şikayet')?.count).toBe(1)
    expect(stats.statuses.find((s) => s.status === 'reviewed')?.count).toBe(1)
  })

  it('keeps annotations and lists through a full resync and a clear that keeps them; marks calls gone', async () => {
    const before = await call('annotations.get', { callId: ids[0]! })
    expect((await sync('full')).phase).toBe('done')
    expect(await call('annotations.get', { callId: ids[0]! })).toEqual(before)

    await call('cache.clear', {})
    expect((await call('cache.info', {})).calls).toBe(0)
    const kept = await call('annotations.get', { callId: ids[0]! })
    expect(kept).toEqual({ ...before, callMissing: true })
    expect((await call('reviewLists.list', {})).length).toBe(4)
    const elle = (await call('reviewLists.list', {})).find((l) => l.name === 'Elle')!
    const gone = (await call('reviewLists.items', { id: elle.id, offset: 0, limit: 1 })).items[0]
    expect(gone).toMatchObject({ callId: ids[0], callMissing: true, title: null, callAt: null })

    expect((await sync('full')).phase).toBe('done')
    expect((await call('annotations.get', { callId: ids[0]! }))?.callMissing).toBe(false)

    // The rows are in the account's file, apart from the calls.
    const file = (await call('cache.info', {})).path!
    expect(file).toBe(accountDbPath(app.userData, (await call('session.get', {})).account!.id))
    const raw = new Database(file, { readonly: true })
    expect(raw.prepare('SELECT count(*) FROM annotations').pluck().get()).toBeGreaterThanOrEqual(5)
    raw.close()

    await call('cache.clear', { keepAnnotations: false })
    expect(await call('annotations.get', { callId: ids[0]! })).toBeNull()
    expect(await call('reviewLists.list', {})).toEqual([])
    expect(await call('annotations.tags', {})).toEqual([])
  }, 120_000)
})
