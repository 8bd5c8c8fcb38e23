import { EventEmitter } from 'node:events'
import { request as httpRequest } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import {
  createServiceFetch,
  type NetClientRequest,
  type NetRequest,
  type NetRequestOptions
} from '../../../src/main/adapters/service-fetch'
import { createServiceClient } from '../../../src/core/client'
import { TenantRateLimiter } from '../../../src/core/ratelimit'
import { failure } from '../../integration/client/harness'
import { hostileServer, streamFiller, type Hostile, type HostileHandler } from '../../integration/client/hostile'

/**
 * Electron's net.request, played by node:http against real local servers, with Electron's
 * documented redirect rule: in 'manual' mode a 3xx emits 'redirect', and unless
 * followRedirect() is called synchronously the request is cancelled ("Redirect was cancelled").
 * Electron cannot run on the build machine; this keeps the adapter honest against real HTTP.
 */
function nodeNetRequest(seen: NetRequestOptions[]): NetRequest {
  return (options) => {
    seen.push(options)
    const emitter = new EventEmitter()
    const req = httpRequest(options.url, { method: options.method })
    let aborted = false
    req.on('response', (res) => {
      const location = res.headers.location
      if (res.statusCode! >= 300 && res.statusCode! < 400 && location !== undefined) {
        if (options.redirect !== 'manual') throw new Error('this fake plays manual redirects only')
        let followed = false
        emitter.emit('redirect', res.statusCode, options.method, new URL(location, options.url).href, res.headers, () => (followed = true))
        res.resume()
        if (!followed && !aborted) emitter.emit('error', new Error('Redirect was cancelled'))
        return
      }
      res.on('aborted', () => emitter.emit('aborted'))
      emitter.emit('response', res)
    })
    req.on('error', (e) => {
      if (!aborted) emitter.emit('error', e)
    })
    const fake = {
      setHeader: (name: string, value: string) => req.setHeader(name, value),
      on(event: string, listener: (...args: unknown[]) => void) {
        emitter.on(event, listener)
        return fake
      },
      abort() {
        aborted = true
        req.destroy()
      },
      end: (chunk?: string) => req.end(chunk)
    }
    return fake as unknown as NetClientRequest
  }
}

const servers: Hostile[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()))
})
async function serve(handler: HostileHandler): Promise<Hostile> {
  const s = await hostileServer(handler)
  servers.push(s)
  return s
}

describe('the app transport (net.request as FetchLike)', () => {
  it('sends method, headers and body, and returns status, headers and body', async () => {
    const s = await serve((req, res) => {
      res.writeHead(201, { 'content-type': 'application/json', 'x-echo': req.headers['x-test'] as string })
      res.end(JSON.stringify({ method: req.method, body: req.body }))
    })
    const seen: NetRequestOptions[] = []
    const res = await createServiceFetch(nodeNetRequest(seen))(`${s.url}/p`, {
      method: 'post',
      headers: { 'x-test': 'yes' },
      body: 'hello'
    })
    expect(res.status).toBe(201)
    expect(res.headers.get('x-echo')).toBe('yes')
    expect(await res.json()).toEqual({ method: 'POST', body: 'hello' })
    expect(seen).toEqual([
      { url: `${s.url}/p`, method: 'POST', redirect: 'manual', credentials: 'omit', useSessionCookies: false, cache: 'no-store' }
    ])
  })

  it('answers a redirect as a 3xx with its Location and never sends anything to the target', async () => {
    const thief = await serve((_req, res) => res.end('{}'))
    const s = await serve((_req, res) => {
      res.writeHead(307, { location: `${thief.url}/steal` })
      res.end()
    })
    const res = await createServiceFetch(nodeNetRequest([]))(`${s.url}/api/public/auth/token`, {
      method: 'POST',
      body: '{"password":"pw"}'
    })
    expect(res.status).toBe(307)
    expect(res.headers.get('location')).toBe(`${thief.url}/steal`)
    expect(thief.requests).toEqual([])
  })

  it('through the service client: the redirect error names the target, and the password stays home', async () => {
    const thief = await serve((_req, res) => res.end('{}'))
    const s = await serve((_req, res) => {
      res.writeHead(308, { location: `${thief.url}/collect` })
      res.end()
    })
    const client = createServiceClient({
      baseUrl: s.url,
      zone: 'UTC',
      fetch: createServiceFetch(nodeNetRequest([])),
      limiter: new TenantRateLimiter({ requests: 100, perSeconds: 1 })
    })
    const e = await failure(client.login('ayse', 'S3cret'))
    expect(e.message).toContain(`redirect (HTTP 308) to ${thief.url}/collect.`)
    expect(thief.requests).toEqual([])
    expect(s.requests).toHaveLength(1)
  })

  it('through the service client: an over-size body is cut off and the download stopped', async () => {
    let written: Promise<number> = Promise.resolve(0)
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      written = streamFiller(res, 200 * 1024 * 1024, '{"access_token":"a","refresh_token":"r"', '}')
    })
    const client = createServiceClient({
      baseUrl: s.url,
      zone: 'UTC',
      fetch: createServiceFetch(nodeNetRequest([])),
      limiter: new TenantRateLimiter({ requests: 100, perSeconds: 1 })
    })
    const e = await failure(client.login('ayse', 'pw'))
    expect(e.code).toBe('MalformedResponse')
    expect(s.requests).toHaveLength(1)
    expect(await written).toBeLessThan(32 * 1024 * 1024)
  })

  it('a cancel during the body rejects the read and closes the connection', async () => {
    let written: Promise<number> = Promise.resolve(0)
    const s = await serve((_req, res) => {
      res.writeHead(200)
      written = streamFiller(res, 200 * 1024 * 1024)
    })
    const ac = new AbortController()
    const res = await createServiceFetch(nodeNetRequest([]))(s.url, { signal: ac.signal })
    const reader = res.body!.getReader()
    await reader.read()
    ac.abort()
    await expect(reader.read()).rejects.toMatchObject({ name: 'AbortError' })
    expect(await written).toBeLessThan(32 * 1024 * 1024)
  })

  it('refuses bodies that are not text, and a signal that already aborted', async () => {
    const f = createServiceFetch(nodeNetRequest([]))
    await expect(f('http://127.0.0.1:9/', { method: 'POST', body: new URLSearchParams({ a: '1' }) })).rejects.toThrow(/text bodies/)
    const ac = new AbortController()
    ac.abort()
    await expect(f('http://127.0.0.1:9/', { signal: ac.signal })).rejects.toMatchObject({ name: 'AbortError' })
  })
})
