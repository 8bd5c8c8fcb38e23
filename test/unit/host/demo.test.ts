import { describe, expect, it } from 'vitest'
import { createDemoProvider, DEMO_OPTIONS } from '../../../src/host/demo'
import { startService } from '../../../src/reference-service'

const signIn = (baseUrl: string, username: string, password: string) =>
  fetch(`${baseUrl}/api/public/auth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username, password })
  })

describe('demo provider', () => {
  it('asks for about 50,000 calls on 127.0.0.1', () => {
    expect(DEMO_OPTIONS).toMatchObject({ host: '127.0.0.1', port: 0, calls: 50_000 })
  })

  it('starts one reference service on loopback whose demo user can sign in, and stops it', async () => {
    let starts = 0
    const demo = createDemoProvider({
      options: { calls: 300 },
      start: (o) => (starts++, startService(o))
    })
    const [a, b] = await Promise.all([demo.start(), demo.start()])
    try {
      expect(starts).toBe(1)
      expect(a).toEqual(b)
      expect(a.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      expect(a.zone).toBe('Europe/Istanbul')
      expect(a.callTypes.length).toBeGreaterThan(0)
      expect(a.callTypes[0]).toEqual({ value: expect.any(String), description: expect.any(String) })
      const res = await signIn(a.baseUrl, a.username, a.password)
      expect(res.status).toBe(200)
      expect(await res.json()).toMatchObject({ token_type: 'Bearer' })
    } finally {
      await demo.stop()
    }
    await expect(signIn(a.baseUrl, a.username, a.password)).rejects.toThrow()
  })

  it('can be started again after a failed start', async () => {
    let attempt = 0
    const demo = createDemoProvider({
      options: { calls: 100 },
      start: async (o) => {
        attempt++
        if (attempt === 1) throw new Error('port in use')
        return startService(o)
      }
    })
    await expect(demo.start()).rejects.toThrow('port in use')
    const tenant = await demo.start()
    expect(tenant.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:/)
    await demo.stop()
  })
})
