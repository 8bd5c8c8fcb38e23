import { afterEach, describe, it, expect } from 'vitest'
import type { RunningService } from '../../../src/reference-service'
import { ManualClock } from '../../../src/core/platform/manual-clock'
import { DEMO, failure, params, rig, service, sleep } from './harness'
import type { SessionStatus } from '../../../src/shared/domain'

let svc: RunningService | undefined
afterEach(async () => {
  await svc?.stop()
  svc = undefined
})

const REFRESH_PATH = '/connect/token'
const CALLS_PATH = '/api/app/public-calls/get-calls'

describe('Session against the reference service', () => {
  it('signs in by user name or e-mail, keeps only ciphertext, and restores in a new session', async () => {
    svc = await service()
    const a = rig(svc)
    const states: SessionStatus[] = []
    a.session.on('state', (s) => states.push(s))
    await a.session.login(DEMO.email, DEMO.password)
    const page = await a.session.getCalls(params())
    expect(page.records.length).toBe(50)
    expect(states).toEqual(['signedIn'])

    const saved = JSON.stringify(a.store.get('tokens:acct'))
    const tokens = await a.vault.load()
    expect(tokens).not.toBeNull()
    expect(saved).not.toContain(tokens!.accessToken)
    expect(saved).not.toContain(tokens!.refreshToken)
    expect(saved).not.toContain(DEMO.password)

    // Same store, same key, fresh process state.
    const b = rig(svc, { store: a.store, key: undefined })
    expect(await b.session.restore()).toBe(false) // another key cannot read it, and drops it
    const c = rig(svc)
    await c.session.login(DEMO.username, DEMO.password)
    await c.session.signOut()
    expect(c.session.status).toBe('signedOut')
    expect(await c.vault.load()).toBeNull()
    expect((await failure(c.session.getCalls(params()))).message).toBe('Sign in to the service first.')
  })

  it('restores saved tokens with the same key and needs no new sign-in', async () => {
    svc = await service()
    const key = Buffer.alloc(32, 7)
    const a = rig(svc, { key })
    await a.session.login(DEMO.username, DEMO.password)
    const b = rig(svc, { key, store: a.store })
    expect(await b.session.restore()).toBe(true)
    expect(b.session.status).toBe('signedIn')
    expect((await b.session.getCalls(params({ take: 5 }))).records).toHaveLength(5)
    expect(svc.admin.stats().byPath['/api/public/auth/token']).toBe(1)
  })

  it('rejects wrong credentials with a sentence a person can read, and logs no secret', async () => {
    svc = await service()
    const r = rig(svc)
    const e = await failure(r.session.login(DEMO.username, 'not-the-password'))
    expect(e.toInfo()).toEqual({ code: 'InvalidCredentials', message: 'The user name or password is not correct.', status: 401 })
    await r.session.login(DEMO.username, DEMO.password)
    await r.session.getCalls(params())
    const tokens = (await r.vault.load())!
    const log = r.logger.lines.join('\n')
    expect(r.logger.lines.length).toBeGreaterThan(0)
    for (const secret of ['not-the-password', tokens.accessToken, tokens.refreshToken, 'Bearer ey']) expect(log).not.toContain(secret)
  })

  it('survives token expiry mid-run: a 401 triggers one refresh, then the call is retried', async () => {
    // The service's token clock moves only when the test moves it, so the token expires
    // exactly here and the refreshed one is good however slow the machine is.
    const serviceClock = new ManualClock(Date.now())
    svc = await service({ tokenTtlSeconds: 60, tokenClock: () => serviceClock.now() })
    // The session's clock stands still, so it never refreshes early: the service's 401 must do it.
    const clock = new ManualClock(Date.now())
    const r = rig(svc, { clock })
    await r.session.login(DEMO.username, DEMO.password)
    const first = await r.session.getCalls(params({ take: 10 }))
    const before = (await r.vault.load())!
    await serviceClock.advance(61_000)
    const second = await r.session.getCalls(params({ take: 10, skip: 10 }))
    expect(first.records).toHaveLength(10)
    expect(second.records).toHaveLength(10)
    expect(r.session.refreshes).toBe(1)
    const stats = svc.admin.stats()
    expect(stats.byStatus['401']).toBe(1)
    // The rotated refresh token was saved.
    const after = (await r.vault.load())!
    expect(after.refreshToken).not.toBe(before.refreshToken)
    expect(after.accessToken).not.toBe(before.accessToken)
  })

  it('shares ONE refresh among many concurrent requests after expiry (single flight)', async () => {
    // Expired on the service's clock, which the test moves; the refreshed token then lives
    // 60 s there, so the 20 retries cannot race its expiry on a loaded machine.
    const serviceClock = new ManualClock(Date.now())
    svc = await service({ tokenTtlSeconds: 60, refreshLeewaySeconds: 0, tokenClock: () => serviceClock.now() })
    const clock = new ManualClock(Date.now())
    const r = rig(svc, { clock })
    await r.session.login(DEMO.username, DEMO.password)
    await serviceClock.advance(61_000)
    const states: SessionStatus[] = []
    r.session.on('state', (s) => states.push(s))
    const pages = await Promise.all(Array.from({ length: 20 }, (_, i) => r.session.getCalls(params({ skip: i * 5, take: 5 }))))
    expect(pages.every((p) => p.records.length === 5)).toBe(true)
    const stats = svc.admin.stats()
    expect(stats.byPath[REFRESH_PATH]).toBe(1)
    expect(r.session.refreshes).toBe(1)
    expect(stats.byStatus['401']).toBe(20)
    expect(stats.byPath[CALLS_PATH]).toBe(40)
    expect(states).toEqual(['refreshing', 'signedIn'])
  })

  it('refreshes proactively shortly before expiry, with no 401 at all', async () => {
    svc = await service()
    // The session's clock runs ahead of the service's: the token is still good there.
    const clock = new ManualClock(Date.now())
    const r = rig(svc, { clock, client: { maxRetries: 0 } })
    await r.session.login(DEMO.username, DEMO.password)
    await r.session.getCalls(params({ take: 5 }))
    expect(r.session.refreshes).toBe(0)
    // Four minutes before the 7-day expiry: inside the 5-minute leeway.
    await clock.advance(604_800_000 - 240_000)
    // The early refresh hits a passing outage: the still-valid token carries the call.
    svc.admin.setFaults({ errorRate: 1, errorStatuses: [503], paths: [REFRESH_PATH] })
    expect((await r.session.getCalls(params({ take: 5 }))).records).toHaveLength(5)
    expect(r.session.status).toBe('signedIn')
    expect(r.session.refreshes).toBe(1)
    svc.admin.clearFaults()
    const before = (await r.vault.load())!
    await r.session.getCalls(params({ take: 5 }))
    expect(r.session.refreshes).toBe(2)
    const after = (await r.vault.load())!
    expect(after.accessToken).not.toBe(before.accessToken)
    expect(after.expiresAt).toBe(clock.now() + 604_800_000)
    expect(svc.admin.stats().byStatus['401']).toBeUndefined()
    // Past expiry a failed refresh is not papered over.
    await clock.advance(604_800_000 + 1_000)
    svc.admin.setFaults({ errorRate: 1, errorStatuses: [503], paths: [REFRESH_PATH] })
    expect((await failure(r.session.getCalls(params({ take: 5 })))).code).toBe('ServerError')
  })

  it('shows why parallel refreshes are fatal: reusing a rotated refresh token revokes the family', async () => {
    svc = await service({ refreshLeewaySeconds: 0 })
    const r = rig(svc)
    const t0 = await r.client.login(DEMO.username, DEMO.password)
    const t1 = await r.client.refresh(t0.refreshToken)
    expect(t1.refreshToken).not.toBe(t0.refreshToken)
    expect(t1.scope).toBe('Service.Public offline_access')
    const reuse = await failure(r.client.refresh(t0.refreshToken))
    expect(reuse.toInfo()).toEqual({
      code: 'ReloginRequired',
      message: 'Your session with the service has ended; please sign in again.',
      status: 400
    })
    // The whole family is gone, the legitimately rotated token included.
    expect((await failure(r.client.refresh(t1.refreshToken))).code).toBe('ReloginRequired')
  })

  it('reports ReloginRequired, clears the vault and emits the state when refresh is refused', async () => {
    svc = await service({ tokenTtlSeconds: 1, refreshLeewaySeconds: 0 })
    const clock = new ManualClock(Date.now())
    const r = rig(svc, { clock })
    await r.session.login(DEMO.username, DEMO.password)
    const stolen = (await r.vault.load())!
    // Someone else redeems the refresh token twice: the service revokes the family.
    await r.client.refresh(stolen.refreshToken)
    await failure(r.client.refresh(stolen.refreshToken))
    await sleep(1_200)
    const states: SessionStatus[] = []
    r.session.on('state', (s) => states.push(s))
    const results = await Promise.allSettled([r.session.getCalls(params()), r.session.getCalls(params())])
    for (const res of results) {
      expect(res.status).toBe('rejected')
      if (res.status === 'rejected')
        expect(res.reason).toMatchObject({
          code: 'ReloginRequired',
          message: 'Your session with the service has ended; please sign in again.'
        })
    }
    expect(states).toEqual(['refreshing', 'reloginRequired'])
    expect(r.session.notice).toEqual({
      notice: 'Your session with the service has ended; please sign in again.',
      noticeCode: 'reloginRequired'
    })
    expect(r.store.get('tokens:acct')).toBeUndefined()
    expect(r.session.refreshes).toBe(1)
    expect((await failure(r.session.getCalls(params()))).code).toBe('ReloginRequired')
  })
})
