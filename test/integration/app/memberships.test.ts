import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ChannelName } from '../../../src/shared/ipc/names'
import type { Request, Response } from '../../../src/shared/ipc/contract'
import type { MembershipProgress, SyncProgress } from '../../../src/shared/domain'
import { createTestApp, type TestApp } from '../../support/app-fixture'
import { routerClient, type RouterClient } from '../../support/router-client'
import { until } from '../../support/until'

// Membership passes through the app's own router: after a sync of everything the controller
// estimates the passes from the cache's counts, runs them as one run the sync screen follows,
// and filters by call type, direction and answered only are then covered.

let app: TestApp
let client: RouterClient
const DAY = 86_400_000

function call<C extends ChannelName>(channel: C, request: Request<C>): Promise<Response<C>> {
  return client.call(channel, request)
}

function ended(runId: string): Promise<SyncProgress> {
  return until(() =>
    app.events
      .filter((e) => e.event === 'sync.progress')
      .map((e) => e.payload as SyncProgress)
      .find((p) => p.runId === runId && ['done', 'failed', 'cancelled'].includes(p.phase))
  )
}

beforeAll(() => {
  app = createTestApp()
  client = routerClient(app.controller.handlers)
})
afterAll(async () => {
  await app.close()
})

describe('membership passes through the controller', () => {
  it('are offered with an estimate after a sync of everything, run as one run, and cover every filter', async () => {
    await call('session.startDemo', {})
    const now = Date.now()
    const range = { from: now - 95 * DAY, to: now }
    // Nothing cached yet: the passes are not what fills the range.
    expect((await call('sync.membershipEstimate', range)).cached).toBe(false)
    const { runId } = await call('sync.start', { scope: { ...range, results: 'all', includeAnalysis: true }, mode: 'full' })
    expect((await ended(runId)).phase).toBe('done')
    const types = await call('catalog.callTypes', {})
    const before = await call('search.count', { query: { callTypes: [types[0]!.value], direction: 1 } })
    expect(before.coverage.complete).toBe(false)

    const { estimate, cached } = await call('sync.membershipEstimate', range)
    expect(cached).toBe(true)
    // 3,000 calls: every group reads them about once, 500 a request, plus a page per pass.
    expect(estimate.passes).toBe(types.length + 4)
    expect(estimate.requests).toBeGreaterThanOrEqual(estimate.passes)
    expect(estimate.requests).toBeLessThan(estimate.fullSyncRequests + estimate.passes)

    const passes = await call('sync.memberships', range)
    const final = await ended(passes.runId)
    expect(final).toMatchObject({ phase: 'done' })
    // The sync screen followed one run: no pass ended it early.
    const shown = app.events.filter((e) => e.event === 'sync.progress').map((e) => e.payload as SyncProgress)
    expect(shown.filter((p) => p.runId === passes.runId && p.phase === 'done')).toHaveLength(1)
    const set = app.events.filter((e) => e.event === 'sync.membershipProgress').map((e) => e.payload as MembershipProgress)
    expect(set.at(-1)).toMatchObject({ phase: 'done', pass: estimate.passes, passes: estimate.passes })
    expect(final.requests).toBe(set.at(-1)!.requests)
    // The sync form starts from the latest run the user chose: the sync of everything, not a pass.
    expect((await call('sync.scopes', {})).lastScope).toMatchObject({
      from: range.from,
      filters: { callTypes: [], direction: null, results: 'all', hasNewRequest: null }
    })

    for (const query of [
      { callTypes: [types[0]!.value], direction: 1 },
      { direction: 2, results: 'all' as const },
      {},
      { hasNewRequest: true }
    ]) {
      const r = await call('search.count', { query: { ...query, from: range.from, to: range.to } })
      expect({ query, coverage: r.coverage }).toMatchObject({ query, coverage: { complete: true, missing: [] } })
    }
  }, 120_000)
})
