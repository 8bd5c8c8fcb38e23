import { afterEach, describe, expect, it } from 'vitest'
import type { RunningService } from '../../../src/reference-service'
import { DEMO, params, rig, service } from './harness'

let svc: RunningService | null = null
afterEach(async () => {
  await svc?.stop()
  svc = null
})

describe('an access token and the rate limiter', () => {
  it('takes the token after the limiter admits the request, so a long wait cannot send a stale one', async () => {
    // Tokens live 2 s; the tenant admits one request every 3 s. A token taken before the
    // wait would expire in the queue, and again after the refresh: the call would fail.
    // (2 s, not 1: on a loaded machine a refreshed token of 1 s could lapse before it is sent.)
    svc = await service({ tokenTtlSeconds: 2 })
    const r = rig(svc, { limit: { requests: 1, perSeconds: 3 } })
    await r.session.login(DEMO.username, DEMO.password)
    const page = await r.session.getCalls(params({ take: 5 }))
    expect(page.records.length).toBe(5)
    expect(r.session.refreshes).toBe(1)
    expect(svc.admin.stats().byStatus['401'] ?? 0).toBe(0)
  }, 20_000)
})
