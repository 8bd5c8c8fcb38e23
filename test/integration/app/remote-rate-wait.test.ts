import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Request, Response } from '../../../src/shared/ipc/contract'
import type { ChannelName } from '../../../src/shared/ipc/names'
import { startService, type RunningService } from '../../../src/reference-service'
import { createTestApp, type TestApp } from '../../support/app-fixture'
import { refusal, routerClient, type RouterClient } from '../../support/router-client'

// The app's live search while others spend the tenant's limit: a 429 is waited out, the
// seconds left sent to the search's status each second, and a limit that stays in use ends
// the search after two waits with an error that says so.

const GET_CALLS = '/api/app/public-calls/get-calls'
let service: RunningService
let app: TestApp
let client: RouterClient
const call = <C extends ChannelName>(channel: C, request: Request<C>): Promise<Response<C>> => client.call(channel, request)
const query = { from: Date.parse('2026-01-05T06:00:00Z'), to: Date.parse('2026-01-05T18:00:00Z'), results: 'all' as const }

beforeAll(async () => {
  service = await startService({ port: 0, calls: 200, seed: 5, from: '2026-01-05T06:00:00Z', to: '2026-01-05T18:00:00Z', quiet: true })
  app = createTestApp()
  client = routerClient(app.controller.handlers)
  const state = await call('session.signIn', { baseUrl: service.url, username: 'demo', password: 'demo' })
  // No Retry-After on these 429s: the client holds for one window of the account's limit.
  await call('settings.update', { account: { id: state.account!.id, rateLimit: { requests: 60, perSeconds: 3 } } })
}, 60_000)

afterAll(async () => {
  await app?.close()
  await service?.stop()
})

const waits = (): Array<number | null> =>
  app.events.filter((e) => e.event === 'search.rateWait').map((e) => (e.payload as { secondsLeft: number | null }).secondsLeft)

describe('the app\u2019s live search meeting the tenant\u2019s limit', () => {
  it('waits with the seconds left shown, then answers', async () => {
    service.admin.setFaults({ errorRate: 1, errorStatuses: [429], paths: [GET_CALLS] })
    service.admin.resetStats()
    const lift = setInterval(() => {
      if ((service.admin.stats().byStatus['429'] ?? 0) >= 1) service.admin.setFaults({})
    }, 20)
    try {
      const page = await call('remote.search', { query, skip: 0, take: 5 })
      expect(page.records).toHaveLength(5)
    } finally {
      clearInterval(lift)
      service.admin.setFaults({})
    }
    // The countdown starts at the window's 3 s and only goes down; a loaded machine may show a
    // second twice or skip one, so the exact ticks are not asserted.
    const shown = waits().filter((n): n is number => n !== null)
    expect(shown[0]).toBe(3)
    expect(shown).toEqual([...shown].sort((a, b) => b - a))
    expect(new Set(shown).size).toBeGreaterThanOrEqual(2)
    expect(waits().at(-1)).toBeNull()
  }, 60_000)

  it('gives up after two waits with a clear RateLimited error', async () => {
    service.admin.setFaults({ errorRate: 1, errorStatuses: [429], paths: [GET_CALLS] })
    service.admin.resetStats()
    try {
      const e = await refusal(call('remote.search', { query, skip: 0, take: 5 }))
      expect(e.code).toBe('RateLimited')
      expect(e.message).toMatch(/waited 2 time\(s\).*team worker/)
    } finally {
      service.admin.setFaults({})
    }
    expect(service.admin.stats().byStatus['429']).toBe(3)
    expect(waits().at(-1)).toBeNull()
  }, 60_000)
})
