import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decodeProtectedHeader, decodeJwt } from 'jose'
import type { RunningService } from '../../../src/reference-service'
import { hashPassword, verifyPassword } from '../../../src/reference-service/passwords'
import { login, start } from './helpers'

const post = (url: string, body: string, type = 'application/json'): Promise<Response> =>
  fetch(`${url}/api/public/auth/token`, { method: 'POST', headers: { 'content-type': type }, body })

describe('endpoint 1: POST /api/public/auth/token', () => {
  let s: RunningService
  beforeAll(async () => {
    s = await start({ calls: 100 })
  })
  afterAll(() => s.stop())

  it('returns the token response exactly as specified, never cached', async () => {
    const res = await post(s.url, JSON.stringify({ username: 'demo', password: 'demo' }))
    expect(res.status).toBe(200)
    expect(res.headers.get('cache-control')).toBe('no-store')
    const body = (await res.json()) as Record<string, unknown>
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'refresh_token', 'scope', 'token_type'])
    expect(body.token_type).toBe('Bearer')
    expect(body.expires_in).toBe(604800)
    expect(body.scope).toBe('Service.Public offline_access')
    expect(typeof body.refresh_token).toBe('string')
    expect(body.refresh_token).not.toContain('.')
  })

  it('issues HS256 JWT access tokens whose lifetime is expires_in', async () => {
    const t = await login(s.url)
    expect(decodeProtectedHeader(t.access_token).alg).toBe('HS256')
    const claims = decodeJwt(t.access_token)
    expect(claims.exp! - claims.iat!).toBe(604800)
    expect(claims.sub).toBe('demo')
    expect(claims.tenant).toBe('demo')
  })

  it('accepts the e-mail address as the user name, case-insensitively', async () => {
    const res = await post(s.url, JSON.stringify({ username: 'Demo@Callsight.local', password: 'demo' }))
    expect(res.status).toBe(200)
  })

  it('answers 401 {"error":"invalid_grant"} for a wrong password or an unknown user', async () => {
    for (const creds of [
      { username: 'demo', password: 'nope' },
      { username: 'ghost', password: 'demo' }
    ]) {
      const res = await post(s.url, JSON.stringify(creds))
      expect(res.status).toBe(401)
      expect(await res.json()).toEqual({ error: 'invalid_grant' })
    }
  })

  it('answers 400 invalid_request for a malformed body', async () => {
    for (const body of ['', 'not json', '[]', '{"username":"demo"}', '{"username":5,"password":"demo"}']) {
      const res = await post(s.url, body)
      expect(res.status, body).toBe(400)
      expect(((await res.json()) as { error: string }).error).toBe('invalid_request')
    }
  })
})

describe('password storage', () => {
  it('keeps scrypt hashes, salted, and verifies only the right password', async () => {
    const a = await hashPassword('demo')
    const b = await hashPassword('demo')
    expect(a).toMatch(/^scrypt\$\d+\$/)
    expect(a).not.toBe(b)
    expect(a).not.toContain('demo')
    expect(await verifyPassword('demo', a)).toBe(true)
    expect(await verifyPassword('Demo', a)).toBe(false)
  })
})
