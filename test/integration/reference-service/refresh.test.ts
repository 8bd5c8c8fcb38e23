import { afterEach, describe, expect, it } from 'vitest'
import type { RunningService } from '../../../src/reference-service'
import { TokenService } from '../../../src/reference-service/tokens'
import { getCalls, login, refresh, start, type TokenBody } from './helpers'

let s: RunningService | undefined
afterEach(async () => {
  await s?.stop()
  s = undefined
})

async function expectInvalidGrant(res: Response): Promise<void> {
  expect(res.status).toBe(400)
  const body = (await res.json()) as { error: string; error_description?: string }
  expect(body.error).toBe('invalid_grant')
  expect(body.error_description).toBeTruthy()
}

describe('endpoint 2: POST /connect/token', () => {
  it('returns a new access token and a rotated refresh token', async () => {
    s = await start({ calls: 50 })
    const first = await login(s.url)
    const res = await refresh(s.url, first.refresh_token)
    expect(res.status).toBe(200)
    expect(res.headers.get('cache-control')).toBe('no-store')
    const next = (await res.json()) as TokenBody
    expect(next.token_type).toBe('Bearer')
    expect(next.expires_in).toBe(604800)
    expect(next.scope).toBe('Service.Public offline_access')
    expect(next.refresh_token).not.toBe(first.refresh_token)
    expect(next.access_token).not.toBe(first.access_token)
    expect((await getCalls(s.url, next.access_token, {})).status).toBe(200)
  })

  it('lets a redeemed token be reused within the leeway', async () => {
    s = await start({ calls: 50 })
    const first = await login(s.url)
    expect((await refresh(s.url, first.refresh_token)).status).toBe(200)
    expect((await refresh(s.url, first.refresh_token)).status).toBe(200)
  })

  it('revokes the whole family when a redeemed token is reused after the leeway', async () => {
    s = await start({ calls: 50, refreshLeewaySeconds: 0 })
    const first = await login(s.url)
    const second = (await (await refresh(s.url, first.refresh_token)).json()) as TokenBody
    await new Promise((r) => setTimeout(r, 5))
    await expectInvalidGrant(await refresh(s.url, first.refresh_token))
    // The legitimate newest token of the family is revoked too.
    await expectInvalidGrant(await refresh(s.url, second.refresh_token))
    // Other families are untouched.
    const other = await login(s.url)
    expect((await refresh(s.url, other.refresh_token)).status).toBe(200)
  })

  it('answers invalid_grant for unknown and expired tokens', async () => {
    s = await start({ calls: 50, refreshTtlSeconds: 0 })
    await expectInvalidGrant(await refresh(s.url, 'no-such-token'))
    const t = await login(s.url)
    await expectInvalidGrant(await refresh(s.url, t.refresh_token))
  })

  it('answers invalid_request, unsupported_grant_type and invalid_client as OpenIddict does', async () => {
    s = await start({ calls: 50 })
    const t = await login(s.url)
    const form = (fields: Record<string, string>, type = 'application/x-www-form-urlencoded') =>
      fetch(`${s!.url}/connect/token`, { method: 'POST', headers: { 'content-type': type }, body: new URLSearchParams(fields).toString() })
    const cases: Array<[Response, number, string]> = [
      [await form({ client_id: 'ServicePublic_App', refresh_token: t.refresh_token }), 400, 'invalid_request'],
      [await form({ grant_type: 'refresh_token', refresh_token: t.refresh_token }), 400, 'invalid_request'],
      [await form({ grant_type: 'refresh_token', client_id: 'ServicePublic_App' }), 400, 'invalid_request'],
      [
        await form({ grant_type: 'password', client_id: 'ServicePublic_App', username: 'demo', password: 'demo' }),
        400,
        'unsupported_grant_type'
      ],
      [await form({ grant_type: 'refresh_token', client_id: 'Other_App', refresh_token: t.refresh_token }), 401, 'invalid_client'],
      [
        await form({ grant_type: 'refresh_token', client_id: 'ServicePublic_App', refresh_token: t.refresh_token }, 'application/json'),
        400,
        'invalid_request'
      ]
    ]
    for (const [res, status, error] of cases) {
      expect(res.status).toBe(status)
      expect(((await res.json()) as { error: string }).error).toBe(error)
    }
    // None of the refused requests redeemed the token.
    expect((await refresh(s.url, t.refresh_token)).status).toBe(200)
  })
})

describe('refresh token lifetime', () => {
  it('defaults to 14 days, counted from each rotation', () => {
    let now = 1_700_000_000_000
    const tokens = new TokenService(604800, 14 * 86400, 30, () => now)
    const p = { tenant: 'demo', username: 'demo', email: 'demo@callsight.local' }
    const a = tokens.issueRefresh(p)
    now += 14 * 86400 * 1000 - 1000
    const r = tokens.redeem(a)
    expect(r.ok).toBe(true)
    const b = tokens.issueRefresh(p, r.ok ? r.family : undefined)
    now += 14 * 86400 * 1000 - 1000
    expect(tokens.redeem(b).ok).toBe(true)
    const c = tokens.issueRefresh(p)
    now += 14 * 86400 * 1000
    expect(tokens.redeem(c)).toMatchObject({ ok: false, description: expect.stringContaining('expired') })
  })
})
