import { request } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import type { RunningService } from '../../../src/reference-service'
import { RETENTION_MS, TokenService } from '../../../src/reference-service/tokens'
import { getCalls, login, refresh, start } from './helpers'

let s: RunningService | undefined
afterEach(async () => {
  await s?.stop()
  s = undefined
})

/** A sign-in sent from a given loopback address (Linux routes all of 127.0.0.0/8 to lo). */
function signIn(
  url: string,
  username: string,
  password: string,
  from = '127.0.0.1'
): Promise<{ status: number; retryAfter: string | null }> {
  const target = new URL('/api/public/auth/token', url)
  return new Promise((resolve, reject) => {
    const req = request(target, { method: 'POST', localAddress: from, headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume()
      res.on('end', () => resolve({ status: res.statusCode!, retryAfter: (res.headers['retry-after'] as string | undefined) ?? null }))
    })
    req.on('error', reject)
    req.end(JSON.stringify({ username, password }))
  })
}

const config = {
  tenants: [
    {
      name: 'acme',
      users: [
        { username: 'ayse', email: 'ayse@acme.test', password: 'pw-1' },
        { username: 'mert', email: 'mert@acme.test', password: 'pw-2' }
      ],
      calls: 20
    }
  ]
}

describe('sign-in abuse does not reach the tenant', () => {
  it("60 made-up logins leave every user's sync running (the default limit is 60 a minute)", async () => {
    s = await start({ calls: 20, rateLimit: { requests: 60, perSeconds: 60 } })
    const t = await login(s.url) // 1 of the tenant's 60
    for (let i = 0; i < 60; i++) {
      const r = await signIn(s.url, `nobody-${i}@example.test`, 'guess', '127.0.0.10')
      expect([401, 429]).toContain(r.status)
    }
    expect((await getCalls(s.url, t.access_token, {})).status).toBe(200)
  })

  it("refresh tokens nobody issued do not use the tenant's limit either", async () => {
    s = await start({ calls: 20, rateLimit: { requests: 3, perSeconds: 60 } })
    const t = await login(s.url) // 1 of 3
    for (let i = 0; i < 10; i++) {
      const r = await refresh(s.url, `forged-${i}`)
      expect([400, 429]).toContain(r.status)
    }
    expect((await getCalls(s.url, t.access_token, {})).status).toBe(200)
    expect((await refresh(s.url, t.refresh_token)).status).toBe(200)
  })

  it('limits failed sign-ins per address: 30 a minute, then 429 with Retry-After, other addresses unaffected', async () => {
    s = await start({ config })
    for (let i = 0; i < 30; i++) expect((await signIn(s.url, `guess-${i}`, 'x', '127.0.0.2')).status).toBe(401)
    const blocked = await signIn(s.url, 'ayse', 'pw-1', '127.0.0.2')
    expect(blocked.status).toBe(429)
    expect(Number(blocked.retryAfter)).toBeGreaterThanOrEqual(1)
    expect(Number(blocked.retryAfter)).toBeLessThanOrEqual(60)
    expect((await signIn(s.url, 'ayse', 'pw-1', '127.0.0.3')).status).toBe(200)
  })

  it('limits failed sign-ins per user name: 10 a minute from anywhere, other users unaffected', async () => {
    s = await start({ config })
    for (let i = 0; i < 10; i++) expect((await signIn(s.url, i % 2 ? 'AYSE' : 'ayse ', 'wrong', `127.0.0.${20 + i}`)).status).toBe(401)
    expect((await signIn(s.url, 'ayse', 'pw-1', '127.0.0.40')).status).toBe(429)
    expect((await signIn(s.url, 'mert', 'pw-2', '127.0.0.40')).status).toBe(200)
  })

  it("a success clears the user name's failures", async () => {
    s = await start({ config })
    for (let i = 0; i < 9; i++) expect((await signIn(s.url, 'ayse', 'wrong')).status).toBe(401)
    expect((await signIn(s.url, 'ayse', 'pw-1')).status).toBe(200)
    for (let i = 0; i < 9; i++) expect((await signIn(s.url, 'ayse', 'wrong')).status).toBe(401)
    expect((await signIn(s.url, 'ayse', 'pw-1')).status).toBe(200)
  })
})

describe('user names cannot be told apart by timing', () => {
  it('an unknown user costs about what a known one does (one password hash each)', async () => {
    s = await start({
      config,
      loginLimits: { perUser: { requests: 1000, perSeconds: 60 }, perAddress: { requests: 1000, perSeconds: 60 } }
    })
    const time = async (username: string): Promise<number> => {
      const t = performance.now()
      expect((await signIn(s!.url, username, 'wrong')).status).toBe(401)
      return performance.now() - t
    }
    const known: number[] = []
    const unknown: number[] = []
    // Interleaved, so machine load falls on both alike.
    for (let i = 0; i < 12; i++) {
      known.push(await time('ayse'))
      unknown.push(await time(`ghost-${i}`))
    }
    const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!
    // Before: 2.7 ms against 35 ms (a ratio of 0.08). One scrypt each makes it about 1.
    expect(median(unknown) / median(known)).toBeGreaterThan(0.5)
  })
})

describe('refresh tokens are pruned', () => {
  const p = { tenant: 'demo', username: 'demo', email: 'demo@callsight.local' }

  it('forgets redeemed tokens a day after use, expired ones a day after expiry, and keeps live ones working', () => {
    let now = 1_700_000_000_000
    const tokens = new TokenService(604800, 14 * 86400, 30, () => now)
    let live: string[] = []
    for (let f = 0; f < 100; f++) {
      let token = tokens.issueRefresh(p)
      for (let r = 0; r < 5; r++) {
        const redeemed = tokens.redeem(token)
        if (!redeemed.ok) throw new Error('redeem failed')
        token = tokens.issueRefresh(p, redeemed.family)
      }
      live.push(token)
    }
    expect(tokens.held.tokens).toBe(600)
    now += RETENTION_MS + 1
    tokens.sweep()
    expect(tokens.held.tokens).toBe(100)
    // The live tokens still work, and rotate.
    live = live.map((t) => {
      const r = tokens.redeem(t)
      if (!r.ok) throw new Error(r.description)
      return tokens.issueRefresh(p, r.family)
    })
    now += 14 * 86400 * 1000
    expect(tokens.redeem(live[0]!)).toMatchObject({ ok: false, description: expect.stringContaining('expired') })
    now += RETENTION_MS
    tokens.sweep()
    expect(tokens.held.tokens).toBe(0)
  })

  it('still revokes a family on late reuse, and forgets the family once none of its tokens can be valid', () => {
    let now = 1_700_000_000_000
    const tokens = new TokenService(604800, 14 * 86400, 30, () => now)
    const first = tokens.issueRefresh(p)
    const r = tokens.redeem(first)
    if (!r.ok) throw new Error('redeem failed')
    const second = tokens.issueRefresh(p, r.family)
    now += 31_000
    expect(tokens.redeem(first)).toMatchObject({ ok: false, description: expect.stringContaining('already been redeemed') })
    expect(tokens.redeem(second)).toMatchObject({ ok: false, description: expect.stringContaining('revoked') })
    expect(tokens.held.revokedFamilies).toBe(1)
    now += 15 * 86400 * 1000 + RETENTION_MS
    tokens.sweep()
    expect(tokens.held).toEqual({ tokens: 0, revokedFamilies: 0 })
  })

  it('sweeps on its own as tokens are issued', () => {
    let now = 1_700_000_000_000
    const tokens = new TokenService(604800, 60, 30, () => now)
    for (let i = 0; i < 500; i++) tokens.issueRefresh(p)
    now += 60_000 + RETENTION_MS
    tokens.issueRefresh(p)
    expect(tokens.held.tokens).toBe(1)
  })
})
