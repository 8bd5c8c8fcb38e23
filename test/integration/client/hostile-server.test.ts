import { afterEach, describe, expect, it } from 'vitest'
import { createServiceClient, type ServiceClientOptions } from '../../../src/core/client'
import { BODY_LIMITS, PATHS, pageBodyLimit } from '../../../src/core/client/service-client'
import { TenantRateLimiter } from '../../../src/core/ratelimit'
import { failure, params, ZONE } from './harness'
import { hostileServer, streamFiller, type Hostile, type HostileHandler } from './hostile'

const servers: Hostile[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()))
})

async function serve(handler: HostileHandler): Promise<Hostile> {
  const s = await hostileServer(handler)
  servers.push(s)
  return s
}

function clientFor(url: string, over: Partial<ServiceClientOptions> = {}) {
  return createServiceClient({
    baseUrl: url,
    zone: ZONE,
    fetch: globalThis.fetch,
    limiter: new TenantRateLimiter({ requests: 1000, perSeconds: 1 }),
    retry: { baseDelayMs: 5, maxDelayMs: 20 },
    ...over
  })
}

const TOKEN_JSON = {
  token_type: 'Bearer',
  access_token: 'access-1',
  expires_in: 3600,
  refresh_token: 'refresh-1',
  scope: 'Service.Public offline_access'
}

/** Calls a client method for one endpoint, with secrets that must never leave for another host. */
const ENDPOINTS = {
  login: (c: ReturnType<typeof clientFor>) => c.login('ayse', 'pässwörd-S3cret'),
  refresh: (c: ReturnType<typeof clientFor>) => c.refresh('refresh-S3cret'),
  calls: (c: ReturnType<typeof clientFor>) => c.getCalls(params({ take: 5 }), 'access-S3cret')
} as const

describe('redirects are never followed', () => {
  const cases = (['login', 'refresh', 'calls'] as const).flatMap((endpoint) =>
    [301, 302, 303, 307, 308].map((status) => [endpoint, status] as const)
  )

  it.each(cases)('%s answered with %i to another host: nothing reaches it, and the error names the target', async (endpoint, status) => {
    const thief = await serve((_req, res) => res.end(JSON.stringify(TOKEN_JSON)))
    const service = await serve((_req, res) => {
      res.writeHead(status, { location: `${thief.url}/steal?from=callsight` })
      res.end()
    })
    const e = await failure(ENDPOINTS[endpoint](clientFor(service.url)))
    expect(thief.requests).toEqual([])
    expect(service.requests).toHaveLength(1) // not retried
    expect(e.code).toBe('ServerError')
    expect(e.status).toBe(status)
    expect(e.message).toBe(
      `The service answered with a redirect (HTTP ${status}) to ${thief.url}/steal. Callsight does not follow redirects, so your password and tokens go only to the address you entered.`
    )
    expect(e.hint).toContain('service address')
    expect(JSON.stringify(e.toInfo())).not.toContain('S3cret')
  })

  it('does not follow a redirect on the same host either, and says so', async () => {
    const service = await serve((req, res) => {
      if (req.path === PATHS.login) {
        res.writeHead(307, { location: '/v2/token' })
        return res.end()
      }
      res.end(JSON.stringify(TOKEN_JSON))
    })
    const e = await failure(clientFor(service.url).login('ayse', 'pw'))
    expect(service.requests.map((r) => r.path)).toEqual([PATHS.login])
    expect(e.message).toContain(`to ${service.url}/v2/token.`)
  })

  it('keeps control characters of a hostile Location out of the message', async () => {
    const service = await serve((_req, res) => {
      // Node refuses raw control characters in a header value; a percent-encoded path is what reaches us.
      res.writeHead(302, { location: 'https://evil.test/%1B]0;pwned%07' })
      res.end()
    })
    const e = await failure(clientFor(service.url).login('ayse', 'pw'))
    expect(e.message).toContain('to https://evil.test/%1B]0;pwned%07.')
    expect(e.message).not.toMatch(/[\u0000-\u001f]/)
  })
})

describe('response bodies are bounded', () => {
  it('a token response past 64 KB fails at once as malformed and is not retried', async () => {
    const service = await serve((_req, res) => {
      // A valid token response, padded: without a bound the client would accept it.
      res.writeHead(200, { 'content-type': 'application/json' })
      void streamFiller(res, 4 * 1024 * 1024, JSON.stringify(TOKEN_JSON).slice(0, -1), '}')
    })
    const e = await failure(clientFor(service.url).login('ayse', 'pw'))
    expect(e.code).toBe('MalformedResponse')
    expect(e.message).toBe('The service sent a response larger than 64 KB, more than this request can need; it was not read.')
    expect(service.requests).toHaveLength(1)
  })

  it('a declared Content-Length past the bound fails before the body is read, without waiting for it', async () => {
    let offered = 0
    const service = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(400 * 1024 * 1024) })
      // Trickles the body: a client that reads it waits for the timeout and retries, five times.
      const timer = setInterval(() => {
        offered += 1024
        res.write(Buffer.alloc(1024, 0x20))
      }, 20)
      res.on('close', () => clearInterval(timer))
    })
    const e = await failure(clientFor(service.url, { timeoutMs: 1_500 }).refresh('r'))
    expect(e.code).toBe('MalformedResponse')
    expect(service.requests).toHaveLength(1)
    expect(offered).toBeLessThan(64 * 1024)
  })

  it('bounds a page of calls by its take: the same 3 MB page is refused for take 10 and read for take 100', async () => {
    const item = (i: number) => ({
      callId: `c${i}`,
      callDate: '2026-01-02T10:00:00+03:00',
      title: 't',
      summary: 's'.repeat(30_000),
      analysis: []
    })
    const page = JSON.stringify({ totalCount: 100, items: Array.from({ length: 100 }, (_, i) => item(i)) })
    expect(page.length).toBeGreaterThan(pageBodyLimit(10).okBytes)
    expect(page.length).toBeLessThan(pageBodyLimit(100).okBytes)
    const service = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(page)
    })
    const client = clientFor(service.url)
    const e = await failure(client.getCalls(params({ take: 10 }), 'access'))
    expect(e.code).toBe('MalformedResponse')
    expect(e.message).toContain(`larger than ${Math.round(pageBodyLimit(10).okBytes / 104857.6) / 10} MB`)
    expect(service.requests).toHaveLength(1)
    const ok = await client.getCalls(params({ take: 100 }), 'access')
    expect(ok.records).toHaveLength(100)
    expect(BODY_LIMITS.perRecordBytes).toBe(64 * 1024)
  })

  it('reads only the start of a huge error body, and still maps the status', async () => {
    let written: Promise<number> = Promise.resolve(0)
    const service = await serve((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' })
      written = streamFiller(
        res,
        200 * 1024 * 1024,
        '{"error":{"message":"Bad request","validationErrors":[{"message":"take is too large","members":["take"]}]',
        '}'
      )
    })
    const e = await failure(clientFor(service.url, { timeoutMs: 10_000 }).getCalls(params(), 'access'))
    expect(e.code).toBe('Validation')
    expect(service.requests).toHaveLength(1)
    // The client hung up after 64 KB; what the socket took beyond that is kernel buffering.
    expect(await written).toBeLessThan(32 * 1024 * 1024)
  })
})
