import { afterEach, describe, expect, it } from 'vitest'
import { request } from 'node:http'
import type { RunningService } from '../../../src/reference-service'
import { isLoopback } from '../../../src/reference-service/routes/admin'
import { getCalls, login, start } from './helpers'

let s: RunningService | undefined
afterEach(async () => {
  await s?.stop()
  s = undefined
})

const admin = (svc: RunningService, method: string, path: string, body?: unknown, key: string | null = svc.adminKey): Promise<Response> =>
  fetch(`${svc.url}/__admin/${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(key === null ? {} : { 'x-admin-key': key }) },
    body: body === undefined ? undefined : JSON.stringify(body)
  })

/** Raw HTTP, to see what fetch hides: premature closes and declared lengths. */
function rawPost(
  url: string,
  path: string,
  token: string,
  body: string
): Promise<{ status?: number; length?: string; received: string; error?: string }> {
  return new Promise((resolve) => {
    const u = new URL(url)
    let received = ''
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path,
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }
      },
      (res) => {
        res.setEncoding('utf8')
        res.on('data', (c: string) => (received += c))
        res.on('end', () => resolve({ status: res.statusCode, length: res.headers['content-length'], received }))
        res.on('error', (e) => resolve({ status: res.statusCode, length: res.headers['content-length'], received, error: e.message }))
        res.on('aborted', () => resolve({ status: res.statusCode, length: res.headers['content-length'], received, error: 'aborted' }))
      }
    )
    req.on('error', (e) => resolve({ received, error: e.message }))
    req.end(body)
  })
}

const CALLS = '/api/app/public-calls/get-calls'

describe('faults on demand', () => {
  it('adds latency', async () => {
    s = await start({ calls: 50 })
    const token = (await login(s.url)).access_token
    s.admin.setFaults({ latencyMs: 150 })
    const t0 = performance.now()
    expect((await getCalls(s.url, token, {})).status).toBe(200)
    expect(performance.now() - t0).toBeGreaterThanOrEqual(140)
  })

  it('answers a share of requests with 500, 502 or 503', async () => {
    s = await start({ calls: 50 })
    const token = (await login(s.url)).access_token
    s.admin.setFaults({ errorRate: 1 })
    const statuses = new Set<number>()
    for (let i = 0; i < 30; i++) statuses.add((await getCalls(s.url, token, {})).status)
    expect(statuses).toEqual(new Set([500, 502, 503]))
    s.admin.setFaults({ errorRate: 0.5, errorStatuses: [503] })
    const mixed = new Set<number>()
    for (let i = 0; i < 30; i++) mixed.add((await getCalls(s.url, token, {})).status)
    expect(mixed).toEqual(new Set([200, 503]))
    s.admin.clearFaults()
    expect((await getCalls(s.url, token, {})).status).toBe(200)
  })

  it('drops connections', async () => {
    s = await start({ calls: 50 })
    const token = (await login(s.url)).access_token
    s.admin.setFaults({ dropRate: 1 })
    await expect(getCalls(s.url, token, {})).rejects.toThrow()
    expect(s.admin.stats().byStatus.dropped).toBe(1)
  })

  it('sends malformed JSON in a complete response, or truncates the body and closes', async () => {
    s = await start({ calls: 50 })
    const token = (await login(s.url)).access_token
    s.admin.setFaults({ malformedRate: 1 })
    const malformed = await rawPost(s.url, CALLS, token, '{"take":20,"results":null}')
    expect(malformed.status).toBe(200)
    expect(malformed.error).toBeUndefined()
    expect(Number(malformed.length)).toBe(Buffer.byteLength(malformed.received))
    expect(() => JSON.parse(malformed.received)).toThrow()
    s.admin.setFaults({ truncateRate: 1 })
    const truncated = await rawPost(s.url, CALLS, token, '{"take":20,"results":null}')
    expect(truncated.status).toBe(200)
    expect(Buffer.byteLength(truncated.received)).toBeLessThan(Number(truncated.length))
    await expect(getCalls(s.url, token, { take: 20, results: null }).then((r) => r.json())).rejects.toThrow()
  })

  it('limits faults to the given paths', async () => {
    s = await start({ calls: 50, faults: { errorRate: 1, paths: ['/connect/token'] } })
    const t = await login(s.url)
    expect((await getCalls(s.url, t.access_token, {})).status).toBe(200)
  })
})

describe('the admin endpoint', () => {
  it('is open to loopback peers only', () => {
    for (const a of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1']) expect(isLoopback(a), a).toBe(true)
    for (const a of ['10.0.0.1', '192.168.1.5', '::2', '2001:db8::1', '::ffff:10.0.0.1', undefined])
      expect(isLoopback(a), String(a)).toBe(false)
  })

  it('needs the key printed at start', async () => {
    s = await start({ calls: 50 })
    expect((await admin(s, 'GET', 'stats', undefined, null)).status).toBe(401)
    expect((await admin(s, 'GET', 'stats', undefined, 'wrong')).status).toBe(401)
    expect((await admin(s, 'GET', 'stats')).status).toBe(200)
  })

  it('changes faults, limits, allow lists, token lifetime and data over HTTP', async () => {
    s = await start({ calls: 100 })
    const t = await login(s.url)
    expect((await admin(s, 'POST', 'faults', { errorRate: 1, errorStatuses: [502] })).status).toBe(200)
    expect((await getCalls(s.url, t.access_token, {})).status).toBe(502)
    expect((await admin(s, 'DELETE', 'faults')).status).toBe(200)
    expect((await admin(s, 'POST', 'faults', { errorRate: 2 })).status).toBe(400)

    expect((await admin(s, 'POST', 'allow-list', { list: ['10.0.0.0/8'] })).status).toBe(200)
    expect((await getCalls(s.url, t.access_token, {})).status).toBe(403)
    expect((await admin(s, 'POST', 'allow-list', { list: ['bogus'] })).status).toBe(400)
    expect((await admin(s, 'POST', 'allow-list', { list: null })).status).toBe(200)

    expect((await admin(s, 'POST', 'rate-limit', { requests: 1, perSeconds: 60 })).status).toBe(200)
    expect((await getCalls(s.url, t.access_token, {})).status).toBe(200)
    expect((await getCalls(s.url, t.access_token, {})).status).toBe(429)
    expect((await admin(s, 'POST', 'rate-limit', { requests: 1000, perSeconds: 60 })).status).toBe(200)

    expect((await admin(s, 'POST', 'token-ttl', { seconds: 0 })).status).toBe(200)
    const short = await login(s.url)
    expect((await getCalls(s.url, short.access_token, {})).status).toBe(401)

    const added = (await (await admin(s, 'POST', 'calls', { count: 40 })).json()) as { total: number }
    expect(added.total).toBe(140)
    const updated = (await (await admin(s, 'POST', 'calls/update', { count: 3 })).json()) as { callIds: string[] }
    expect(updated.callIds).toHaveLength(3)
    const dump = await (await admin(s, 'GET', 'dump')).text()
    const lines = dump
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { callId: string; type: string })
    expect(lines).toHaveLength(140)
    expect(lines.map((l) => l.callId)).toEqual(expect.arrayContaining(updated.callIds))
  })

  it('counts requests by status and path', async () => {
    s = await start({ calls: 50 })
    const t = await login(s.url)
    await getCalls(s.url, t.access_token, {})
    await getCalls(s.url, 'bad', {})
    const stats = (await (await admin(s, 'GET', 'stats')).json()) as {
      requests: number
      byStatus: Record<string, number>
      byPath: Record<string, number>
    }
    expect(stats.requests).toBe(3)
    expect(stats.byStatus).toEqual({ '200': 2, '401': 1 })
    expect(stats.byPath['/api/app/public-calls/get-calls']).toBe(2)
    s.admin.resetStats()
    expect(s.admin.stats().requests).toBe(0)
  })
})
