import { afterEach, describe, expect, it } from 'vitest'
import type { RunningService } from '../../../src/reference-service'
import { compileAllowList } from '../../../src/reference-service/ip-allow'
import { getCalls, login, refresh, start } from './helpers'

let s: RunningService | undefined
afterEach(async () => {
  await s?.stop()
  s = undefined
})

async function expectUnauthorized(res: Response): Promise<void> {
  expect(res.status).toBe(401)
  expect(res.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"')
  expect(await res.text()).toBe('')
}

describe('Bearer authentication on get-calls', () => {
  it('answers 401 with an empty body for a missing or invalid token', async () => {
    s = await start({ calls: 50 })
    await expectUnauthorized(
      await fetch(`${s.url}/api/app/public-calls/get-calls`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}'
      })
    )
    await expectUnauthorized(await getCalls(s.url, 'not-a-jwt', {}))
    const t = await login(s.url)
    const forged = t.access_token.slice(0, -4) + (t.access_token.endsWith('AAAA') ? 'BBBB' : 'AAAA')
    await expectUnauthorized(await getCalls(s.url, forged, {}))
    expect((await getCalls(s.url, t.access_token, {})).status).toBe(200)
  })

  it('answers 401 for an expired token; the lifetime is set by option and by admin', async () => {
    s = await start({ calls: 50, tokenTtlSeconds: 0 })
    const expired = await login(s.url)
    expect(expired.expires_in).toBe(0)
    await expectUnauthorized(await getCalls(s.url, expired.access_token, {}))
    s.admin.setTokenTtl(120)
    const fresh = await login(s.url)
    expect(fresh.expires_in).toBe(120)
    expect((await getCalls(s.url, fresh.access_token, {})).status).toBe(200)
  })
})

describe('per-tenant IP allow list', () => {
  it('matches single addresses and CIDR ranges, IPv4 and IPv6', () => {
    const check = compileAllowList(['10.0.0.0/8', '192.168.1.7', '2001:db8::/32', '::1'])!
    expect(check('10.200.3.4')).toBe(true)
    expect(check('11.0.0.1')).toBe(false)
    expect(check('192.168.1.7')).toBe(true)
    expect(check('192.168.1.8')).toBe(false)
    expect(check('2001:db8:1::5')).toBe(true)
    expect(check('2001:db9::5')).toBe(false)
    expect(check('::1')).toBe(true)
    expect(check('::ffff:10.1.1.1')).toBe(true)
    expect(compileAllowList(null)).toBeNull()
    expect(() => compileAllowList(['10.0.0.0/33'])).toThrow()
    expect(() => compileAllowList(['not-an-ip'])).toThrow()
  })

  it('answers 403 to callers outside the list on every public endpoint', async () => {
    s = await start({ calls: 50 })
    const t = await login(s.url)
    s.admin.setAllowList(['10.0.0.0/8', '2001:db8::/32'])
    const denied = await getCalls(s.url, t.access_token, {})
    expect(denied.status).toBe(403)
    expect(denied.headers.get('_abperrorformat')).toBe('true')
    expect(((await denied.json()) as { error: { code: string } }).error.code).toBe('Service:IpNotAllowed')
    expect((await refresh(s.url, t.refresh_token)).status).toBe(403)
    const tokenRes = await fetch(`${s.url}/api/public/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'demo', password: 'demo' })
    })
    expect(tokenRes.status).toBe(403)
    s.admin.setAllowList(['127.0.0.0/8'])
    expect((await getCalls(s.url, t.access_token, {})).status).toBe(200)
    s.admin.setAllowList(['127.0.0.1'])
    expect((await getCalls(s.url, t.access_token, {})).status).toBe(200)
    s.admin.setAllowList(null)
    expect((await getCalls(s.url, t.access_token, {})).status).toBe(200)
  })

  it('takes the allow list from the options', async () => {
    s = await start({ calls: 50, allowIps: ['203.0.113.0/24'] })
    const res = await fetch(`${s.url}/api/public/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'demo', password: 'demo' })
    })
    expect(res.status).toBe(403)
  })
})

describe('per-tenant rate limit', () => {
  const config = {
    tenants: [
      {
        name: 'acme',
        users: [
          { username: 'ayse', email: 'ayse@acme.test', password: 'pw-1' },
          { username: 'mert', email: 'mert@acme.test', password: 'pw-2', zone: 'UTC' }
        ],
        rateLimit: { requests: 5, perSeconds: 30 },
        calls: 20
      },
      { name: 'other', users: [{ username: 'olga', email: 'olga@other.test', password: 'pw-3' }], calls: 20 }
    ]
  }

  it('is shared by all users of a tenant, answers 429 with whole-second Retry-After, and spares other tenants', async () => {
    s = await start({ config, rateLimit: { requests: 50, perSeconds: 30 } })
    const a = await login(s.url, 'ayse', 'pw-1') // 1
    const m = await login(s.url, 'mert', 'pw-2') // 2
    expect((await getCalls(s.url, a.access_token, {})).status).toBe(200) // 3
    expect((await getCalls(s.url, m.access_token, {})).status).toBe(200) // 4
    expect((await getCalls(s.url, a.access_token, {})).status).toBe(200) // 5
    const limited = await getCalls(s.url, m.access_token, {})
    expect(limited.status).toBe(429)
    const retry = limited.headers.get('retry-after')!
    expect(retry).toMatch(/^\d+$/)
    expect(Number(retry)).toBeGreaterThanOrEqual(1)
    expect(Number(retry)).toBeLessThanOrEqual(30)
    // The token endpoints count against the same limit.
    expect((await refresh(s.url, a.refresh_token)).status).toBe(429)
    const o = await login(s.url, 'olga', 'pw-3')
    expect((await getCalls(s.url, o.access_token, {})).status).toBe(200)
  })

  it('counts as a token bucket with --rate-window bucket: the burst at once, then the refill rate', async () => {
    s = await start({ calls: 20, rateLimit: { requests: 2, perSeconds: 60 }, rateWindow: 'bucket', rateBurst: 2 })
    const t = await login(s.url) // 1
    expect((await getCalls(s.url, t.access_token, {})).status).toBe(200) // 2
    const limited = await getCalls(s.url, t.access_token, {})
    expect(limited.status).toBe(429)
    // One token comes back every 30 s.
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(29)
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(30)
  })

  it("counts as fixed windows with --rate-window fixed: Retry-After runs to the window's end", async () => {
    s = await start({ calls: 20, rateLimit: { requests: 2, perSeconds: 3600 }, rateWindow: 'fixed' })
    const t = await login(s.url)
    expect((await getCalls(s.url, t.access_token, {})).status).toBe(200)
    const limited = await getCalls(s.url, t.access_token, {})
    expect(limited.status).toBe(429)
    const toEnd = Math.ceil((3_600_000 - (Date.now() % 3_600_000)) / 1000)
    expect(Math.abs(Number(limited.headers.get('retry-after')) - toEnd)).toBeLessThanOrEqual(2)
  })

  it('defaults to 60 per 60 s and can be changed while running', async () => {
    s = await start({ calls: 20, rateLimit: undefined })
    const t = await login(s.url)
    let ok = 1
    while ((await getCalls(s.url, t.access_token, {})).status === 200) ok++
    expect(ok).toBe(60)
    s.admin.setRateLimit({ requests: 1000, perSeconds: 1 })
    expect((await getCalls(s.url, t.access_token, {})).status).toBe(200)
  })
})
