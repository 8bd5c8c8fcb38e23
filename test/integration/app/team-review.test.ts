import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ChannelName } from '../../../src/shared/ipc/names'
import type { Request, Response } from '../../../src/shared/ipc/contract'
import type { SyncProgress } from '../../../src/shared/domain'
import { createTestApp, type TestApp } from '../../support/app-fixture'
import { refusal, routerClient, type RouterClient } from '../../support/router-client'

// Assignments, calibration and the lead's view through the app's router, over the reference
// service on 127.0.0.1 and a real SQLite file: one local account shared by a lead and two
// reviewers, who switch the reviewer name in Settings.

let app: TestApp
let client: RouterClient
const DAY = 86_400_000
const now = Date.now()
const SCOPE = { from: now - 20 * DAY, to: now + DAY, results: 'all' as const, includeAnalysis: true }

function call<C extends ChannelName>(channel: C, request: Request<C>): Promise<Response<C>> {
  return client.call(channel, request)
}
const as = (reviewer: string | null) => call('settings.update', { review: { reviewer } })

async function sync(): Promise<SyncProgress> {
  const { runId } = await call('sync.start', { scope: SCOPE, mode: 'full' })
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
  name: 'Kalite',
  criteria: [
    { id: 'greet', name: 'Selamlama', weight: 1, scale: 'yes_no' as const, critical: true },
    { id: 'solve', name: 'Çözüm', weight: 2, scale: '1_5' as const, critical: false }
  ]
}

describe('team review through the router', () => {
  beforeAll(async () => {
    app = createTestApp()
    client = routerClient(app.controller.handlers)
    await call('session.startDemo', {})
    expect((await sync()).phase).toBe('done')
  }, 120_000)
  afterAll(async () => {
    await app.close()
  })

  it('lets a lead sample, spread and follow a list, and each reviewer work their own next-unreviewed first', async () => {
    expect(await call('review.reviewer', {})).toEqual({ reviewer: 'demo' })
    await as('lead')
    const card = await call('scorecards.save', { definition: CARD })
    const list = await call('reviewLists.create', {
      name: 'Örnek',
      source: { kind: 'query', query: { results: 'all' }, sample: { kind: 'percent', percent: 2, seed: 7 } }
    })
    expect(list.size).toBeGreaterThanOrEqual(4)
    const counts = await call('assignments.spread', { listId: list.id, reviewers: ['ayse', 'mehmet'] })
    expect(counts.map((c) => c.reviewer)).toEqual(['ayse', 'mehmet'])
    expect(Math.abs(counts[0]!.count - counts[1]!.count)).toBeLessThanOrEqual(1)

    await as('ayse')
    const mine = await call('assignments.mine', {})
    expect(mine).toMatchObject({ reviewer: 'ayse', assigned: counts[0]!.count, reviewed: 0 })
    const [first, second] = mine.items
    const saved = await call('annotations.save', {
      callId: first!.callId,
      status: 'reviewed',
      score: { scorecardId: card.id, answers: { greet: 1, solve: 5 } }
    })
    expect(saved.updatedBy).toBe('ayse')
    expect((await call('assignments.mine', {})).items[0]!.callId).toBe(second!.callId)

    await as('mehmet')
    const his = await call('assignments.mine', {})
    expect(his.items.every((i) => i.reviewer === 'mehmet')).toBe(true)
    await call('annotations.save', {
      callId: his.items[0]!.callId,
      status: 'reviewed',
      score: { scorecardId: card.id, answers: { greet: 0 } }
    })
    await expect(refusal(call('assignments.spread', { listId: 'nope', reviewers: ['x'] }))).resolves.toMatchObject({ code: 'NotFound' })

    await as('lead')
    const stats = await call('review.leadStats', { zone: 'Europe/Istanbul' })
    expect(stats.progress.byReviewer).toEqual([
      { reviewer: 'ayse', assigned: counts[0]!.count, reviewed: 1 },
      { reviewer: 'mehmet', assigned: counts[1]!.count, reviewed: 1 }
    ])
    expect(stats.perReviewer.map((g) => [g.name, g.count, g.mean])).toEqual([
      ['ayse', 1, 100],
      ['mehmet', 1, 0]
    ])
    // The reference service sends the agent as the extra field agentName.
    expect(stats.agentField).toEqual({ kind: 'field', name: 'agentName' })
    expect(stats.perAgent.reduce((n, g) => n + g.count, 0)).toBe(2)
    expect(stats.perAgent.every((g) => g.name.length > 0)).toBe(true)
    expect(stats.failedCritical).toEqual([{ scorecardId: card.id, criterionId: 'greet', name: 'Selamlama', count: 1 }])
    expect(stats.weeks.reduce((n, w) => n + w.failed, 0)).toBe(1)

    // Drilling down to an agent's calls with the field filter finds the scored call.
    const agent = stats.perAgent[0]!
    const page = await call('search.page', {
      query: { results: 'all', fields: [{ kind: 'equals', field: 'agentName', value: agent.name }], review: { scoreMin: 0 } },
      offset: 0,
      limit: 10
    })
    expect(page.rows.length).toBe(agent.count)
  })

  it('runs a blind calibration session apart from the calls’ scores', async () => {
    await as('lead')
    const card = (await call('scorecards.list', {}))[0]!
    const ids = (await call('search.page', { query: { results: 'all' }, offset: 0, limit: 5 })).rows.map((r) => r.callId)
    const before = await call('annotations.get', { callId: ids[4]! })
    const s = await call('calibration.create', {
      name: 'Kasım',
      scorecardId: card.id,
      calls: { kind: 'ids', ids },
      reviewers: ['ayse', 'mehmet']
    })
    for (const [who, solve] of [
      ['ayse', 4],
      ['mehmet', 3]
    ] as const) {
      await as(who)
      for (const id of ids) await call('calibration.answer', { id: s.id, callId: id, answers: { greet: 1, solve } })
    }
    await as('ayse')
    expect(await call('calibration.get', { id: s.id })).toMatchObject({ blind: true, others: [], result: null })
    const seen = await call('calibration.submit', { id: s.id })
    expect(seen.blind).toBe(false)
    expect(seen.result!.criteria.find((c) => c.criterionId === 'solve')).toMatchObject({ percent: 0, widest: 1 })
    await as('lead')
    const lead = await call('calibration.get', { id: s.id })
    expect(lead.others.map((o) => o.reviewer)).toEqual(['ayse', 'mehmet'])
    expect(await call('annotations.get', { callId: ids[4]! })).toEqual(before)
    expect((await call('calibration.list', {})).map((x) => x.id)).toContain(s.id)
  })
})
