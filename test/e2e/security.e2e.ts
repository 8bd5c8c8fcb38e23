import { request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { openBrowser, watchErrors } from './support/harness'
import { readCookie } from '../../src/web/gate'
import { serveForeignPage } from './support/foreign-page'
import { startServeProcess, type ServeProcess } from './support/serve-process'

// The browser mode's door, tried from outside the way an attacker would: every request and
// WebSocket upgrade must name this server as Host (DNS rebinding), come from its origin, and
// carry the cookie only a single-use launch key buys; the app's calls and its socket also the
// page token, which the browser does not attach by itself (it sends the cookie to every port
// of 127.0.0.1). Everything else is 403 with no body, and the key, the cookie and the token
// never reach the log. Against `callsight serve` started as a user does.

interface Reply {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

function raw(port: number, opts: { method?: string; path?: string; headers?: Record<string, string>; body?: string }): Promise<Reply> {
  return new Promise((resolve, reject) => {
    // node:http, not fetch: fetch will not send a Host of our choosing.
    const req = request(
      { host: '127.0.0.1', port, method: opts.method ?? 'GET', path: opts.path ?? '/', headers: opts.headers ?? {} },
      (res) => {
        let body = ''
        res.setEncoding('utf8').on('data', (d: string) => (body += d))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
      }
    )
    req.on('error', reject)
    req.end(opts.body)
  })
}

/** The status of a WebSocket upgrade: 101 when it opened. */
function upgrade(port: number, headers: Record<string, string>, origin?: string, protocols: string[] = []): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/events`, protocols, { headers, ...(origin ? { origin } : {}) })
    ws.once('open', () => {
      ws.close()
      resolve(101)
    })
    ws.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0)
      res.resume()
    })
    ws.once('error', () => resolve(0))
  })
}

describe('browser mode security', () => {
  let serve: ServeProcess
  let host = ''
  let origin = ''
  let cookie = ''
  let token = ''
  const withToken = (): string[] => ['callsight', `callsight-token.${token}`]

  beforeAll(async () => {
    serve = await startServeProcess()
    host = `127.0.0.1:${serve.port}`
    origin = serve.origin
  })
  afterAll(async () => {
    await serve?.stop()
  })

  const invoke = (headers: Record<string, string>, hostHeader = host): Promise<Reply> =>
    raw(serve.port, {
      method: 'POST',
      path: '/invoke/app.info',
      headers: { Host: hostHeader, 'Content-Type': 'application/json', 'X-Callsight-Token': token, ...headers },
      body: '{}'
    })

  it('trades the launch key, once, for an HttpOnly, SameSite=Strict cookie and the page token, and moves on to the bare URL', async () => {
    const reply = await raw(serve.port, { path: `/?key=${serve.launchKey}`, headers: { Host: host } })
    expect(reply.status).toBe(200)
    expect(reply.body).toContain('<meta http-equiv="refresh" content="0; url=/">')
    token = /<meta name="callsight-token" content="([\w-]{43})">/.exec(reply.body)?.[1] ?? ''
    expect(token).not.toBe('')
    // Single-use: whoever reads the key later (the opener's command line, the terminal) gets nothing.
    const again = await raw(serve.port, { path: `/?key=${serve.launchKey}`, headers: { Host: host } })
    expect([again.status, again.headers['set-cookie']]).toEqual([403, undefined])
    // A spent key opened by hand gets a page saying how to get in, with no secret and no app in it.
    expect(again.body).toContain('press Enter')
    expect(again.body).not.toContain(serve.launchKey)
    expect(again.body).not.toMatch(/<script|callsight-token/)
    expect(again.headers['content-security-policy']).toContain("default-src 'none'")
    const setCookie = String(reply.headers['set-cookie'])
    expect(setCookie).toMatch(new RegExp(`^callsight-${serve.port}=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=/$`))
    cookie = setCookie.split(';')[0] ?? ''
    expect(cookie).not.toContain(serve.launchKey)

    const page = await raw(serve.port, { headers: { Host: host, Cookie: cookie } })
    expect(page.status).toBe(200)
    expect(page.headers['content-security-policy']).toContain("default-src 'self'")
    expect(page.body).toContain('<script src="/callsight-api.js"></script>')
    // The control for every refusal below: the same call, done right, is answered.
    const ok = await invoke({ Cookie: cookie, Origin: origin })
    expect(ok.status).toBe(200)
    expect(JSON.parse(ok.body)).toMatchObject({ ok: true, value: { electron: null } })
    expect(await upgrade(serve.port, { Cookie: cookie }, origin, withToken())).toBe(101)
  })

  it('refuses the cookie alone, everything else right, for calls and the event socket: the page token is wanted too', async () => {
    const calls = await Promise.all([
      invoke({ Cookie: cookie, Origin: origin, 'X-Callsight-Token': '' }),
      invoke({ Cookie: cookie, Origin: origin, 'X-Callsight-Token': 'A'.repeat(43) })
    ])
    expect(calls.map((r) => [r.status, r.body])).toEqual([
      [403, ''],
      [403, '']
    ])
    expect(await upgrade(serve.port, { Cookie: cookie }, origin)).toBe(403)
    expect(await upgrade(serve.port, { Cookie: cookie }, origin, ['callsight', 'callsight-token.wrong'])).toBe(403)
    expect(await upgrade(serve.port, { Cookie: cookie }, origin, ['callsight', `callsight-token.${cookie.split('=')[1]}`])).toBe(403)
    // The token alone buys nothing either.
    expect((await invoke({ Origin: origin })).status).toBe(403)
    // What the cookie alone can fetch holds no token.
    for (const path of ['/', '/callsight-api.js', '/callsight-exchange.js']) {
      const r = await raw(serve.port, { path, headers: { Host: host, Cookie: cookie } })
      expect([path, r.status]).toEqual([path, 200])
      expect(r.body).not.toContain(token)
    }
    await expect.poll(() => serve.log().match(/"request refused".*"reason":"token"/g)?.length ?? 0).toBeGreaterThanOrEqual(5)
  })

  it.each([
    ['a rebound name', 'callsight.attacker.example'],
    ['a rebound name with our port', 'attacker.example:PORT'],
    ['another port', '127.0.0.1:1'],
    ['no port', '127.0.0.1']
  ])('refuses a wrong Host (%s), even with the cookie', async (_what, wrongHost) => {
    const h = wrongHost.replace('PORT', String(serve.port))
    const page = await raw(serve.port, { headers: { Host: h, Cookie: cookie } })
    const call = await invoke({ Cookie: cookie, Origin: `http://${h}` }, h)
    const key = await raw(serve.port, { path: `/?key=${serve.launchKey}`, headers: { Host: h } })
    const socket = await upgrade(serve.port, { Host: h, Cookie: cookie }, `http://${h}`)
    expect([page.status, call.status, key.status, socket]).toEqual([403, 403, 403, 403])
    expect(page.body + call.body + key.body).toBe('')
  })

  it.each([
    ['another site', 'https://attacker.example'],
    ['another port on this computer (same-site for cookies)', 'http://127.0.0.1:1'],
    ['a sandboxed frame', 'null']
  ])('refuses a foreign Origin (%s), even with the cookie', async (_what, foreign) => {
    const call = await invoke({ Cookie: cookie, Origin: foreign })
    const page = await raw(serve.port, { headers: { Host: host, Cookie: cookie, Origin: foreign } })
    expect([call.status, page.status]).toEqual([403, 403])
    expect(call.body).toBe('')
  })

  it('refuses a WebSocket from another origin, or with no origin', async () => {
    expect(await upgrade(serve.port, { Cookie: cookie }, 'http://127.0.0.1:1', withToken())).toBe(403)
    expect(await upgrade(serve.port, { Cookie: cookie }, 'https://attacker.example', withToken())).toBe(403)
    expect(await upgrade(serve.port, { Cookie: cookie }, undefined, withToken())).toBe(403)
  })

  it('refuses a missing or wrong cookie, and a wrong key', async () => {
    const wrong = `callsight-${serve.port}=${'A'.repeat(43)}`
    const replies = await Promise.all([
      raw(serve.port, { headers: { Host: host } }),
      raw(serve.port, { path: '/callsight-api.js', headers: { Host: host } }),
      invoke({ Origin: origin }),
      invoke({ Origin: origin, Cookie: wrong }),
      // The launch key is not a cookie, and a cookie of another serve's port is not ours.
      invoke({ Origin: origin, Cookie: `callsight-${serve.port}=${serve.launchKey}` }),
      invoke({ Origin: origin, Cookie: cookie.replace(`callsight-${serve.port}`, 'callsight-1') }),
      raw(serve.port, { path: '/?key=guess', headers: { Host: host } }),
      raw(serve.port, { path: `/?key=${serve.launchKey.slice(0, -1)}`, headers: { Host: host } })
    ])
    expect(replies.map((r) => r.status)).toEqual([403, 403, 403, 403, 403, 403, 403, 403])
    expect(replies.every((r) => r.headers['set-cookie'] === undefined)).toBe(true)
    // The start page, typed without a key or with a wrong one, says how to get in; nothing else has a body.
    const helped = [0, 6, 7]
    replies.forEach((r, i) => {
      if (helped.includes(i)) expect([i, r.body.includes('press Enter'), r.body.includes(serve.launchKey)]).toEqual([i, true, false])
      else expect([i, r.body]).toEqual([i, ''])
    })
    expect(await upgrade(serve.port, {}, origin, withToken())).toBe(403)
    expect(await upgrade(serve.port, { Cookie: wrong }, origin, withToken())).toBe(403)
  })

  it('refuses calls without an Origin, cross-site fetches, preflights and other methods', async () => {
    const replies = await Promise.all([
      invoke({ Cookie: cookie }),
      raw(serve.port, { path: '/callsight-api.js', headers: { Host: host, Cookie: cookie, 'Sec-Fetch-Site': 'same-site' } }),
      raw(serve.port, { path: '/callsight-api.js', headers: { Host: host, Cookie: cookie, 'Sec-Fetch-Site': 'cross-site' } }),
      raw(serve.port, {
        method: 'OPTIONS',
        path: '/invoke/app.info',
        headers: { Host: host, Origin: 'https://attacker.example', 'Access-Control-Request-Method': 'POST' }
      }),
      raw(serve.port, { method: 'PUT', path: '/invoke/app.info', headers: { Host: host, Cookie: cookie, Origin: origin } })
    ])
    expect(replies.map((r) => r.status)).toEqual([403, 403, 403, 403, 403])
    expect(replies.every((r) => r.headers['access-control-allow-origin'] === undefined)).toBe(true)
    // A simple (no-preflight) cross-origin POST is refused for its Origin, and for its type.
    const textPlain = await raw(serve.port, {
      method: 'POST',
      path: '/invoke/app.info',
      headers: { Host: host, Cookie: cookie, Origin: origin, 'X-Callsight-Token': token, 'Content-Type': 'text/plain' },
      body: '{}'
    })
    expect(textPlain.status).toBe(415)
  })

  it('opens from a link elsewhere, and keeps a page on another 127.0.0.1 port out though the browser holds our cookie', async () => {
    const browser = await openBrowser()
    // The first address was spent above: Enter in serve's terminal prints a new one.
    const launchUrl = await serve.newLaunchUrl()
    expect(launchUrl).not.toBe(serve.launchUrl)
    expect(new URL(launchUrl).origin).toBe(serve.origin)
    const foreign = await serveForeignPage(`<a id="open" href="${launchUrl}">Callsight</a>`)
    try {
      const page = browser.context.pages()[0] ?? (await browser.context.newPage())
      const errors = watchErrors(page)
      // The printed address, followed from a link on another site (a web terminal): it still opens.
      await page.goto(foreign.url)
      await page.click('#open')
      await page.waitForURL(`${serve.origin}/#/signin`)
      await page.getByTestId('signin-form').waitFor({ timeout: 20_000 })
      expect((await browser.context.cookies(serve.origin)).map((c) => [c.name, c.httpOnly, c.sameSite])).toEqual([
        [`callsight-${serve.port}`, true, 'Strict']
      ])
      expect(errors).toEqual([])
      // The real page works with the token the exchange left it.
      expect(
        await page.evaluate(() => (window as unknown as { api: { invoke(c: string): Promise<unknown> } }).api.invoke('app.info'))
      ).toMatchObject({
        ok: true
      })

      await page.goto(foreign.url)
      // Cookies ignore ports: the listener on the other port got ours. Replayed from plain
      // Node with every other header right, it buys neither a call nor the event socket.
      const leaked = foreign.cookies.map((c) => readCookie(c, `callsight-${serve.port}`)).find((c) => c !== undefined)
      expect(leaked).toBe(cookie.split('=')[1])
      const stolen = `callsight-${serve.port}=${leaked}`
      const replays = await Promise.all(
        ['app.info', 'accounts.list', 'search.page'].map((channel) =>
          raw(serve.port, {
            method: 'POST',
            path: `/invoke/${channel}`,
            headers: { Host: host, Origin: origin, 'Sec-Fetch-Site': 'same-origin', 'Content-Type': 'application/json', Cookie: stolen },
            body: '{}'
          })
        )
      )
      expect(replays.map((r) => r.status)).toEqual([403, 403, 403])
      expect(await upgrade(serve.port, { Cookie: stolen }, origin, ['callsight'])).toBe(403)
      const attempts = await page.evaluate(async (target) => {
        const tries: string[] = []
        const note = (what: string, p: Promise<unknown>): Promise<void> =>
          p.then(
            (v) => void tries.push(`${what}: ${String(v)}`),
            () => void tries.push(`${what}: failed`)
          )
        await note(
          'fetch',
          fetch(`${target}/invoke/app.info`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: '{}',
            credentials: 'include'
          }).then((r) => r.status)
        )
        await note(
          'no-cors',
          fetch(`${target}/invoke/app.info`, { method: 'POST', mode: 'no-cors', body: '{}', credentials: 'include' }).then((r) => r.type)
        )
        await note(
          'socket',
          new Promise((resolve, reject) => {
            const ws = new WebSocket(`${target.replace('http', 'ws')}/events`)
            ws.onopen = () => resolve('open')
            ws.onerror = () => reject(new Error('refused'))
          })
        )
        return tries
      }, serve.origin)
      // The no-cors POST leaves with an opaque answer either way; the server's log shows it was refused.
      expect(attempts).toEqual(['fetch: failed', 'no-cors: opaque', 'socket: failed'])
      await expect.poll(() => serve.log().match(/"request refused".*"reason":"origin"/g)?.length ?? 0).toBeGreaterThanOrEqual(3)
    } finally {
      await browser.close()
      await foreign.close()
    }
  })

  it('refuses an address once a newer one was printed', async () => {
    const older = await serve.newLaunchUrl()
    const newer = await serve.newLaunchUrl()
    const path = (u: string): string => new URL(u).pathname + new URL(u).search
    expect((await raw(serve.port, { path: path(older), headers: { Host: host } })).status).toBe(403)
    expect((await raw(serve.port, { path: path(newer), headers: { Host: host } })).status).toBe(200)
  })

  it('never writes a launch key, the cookie or the page token to the log or stderr; stdout has each key once, line one the first', () => {
    const secret = cookie.split('=')[1] ?? ''
    expect(secret.length).toBeGreaterThan(30)
    expect(token.length).toBeGreaterThan(30)
    const log = serve.log()
    expect(log).toContain('request refused')
    const keys = serve
      .stdout()
      .trim()
      .split('\n')
      .map((line) => new URL(line).searchParams.get('key') ?? '')
    expect(keys.length).toBeGreaterThanOrEqual(4)
    for (const k of [...keys, secret, token]) {
      expect(log).not.toContain(k)
      expect(serve.stderr()).not.toContain(k)
    }
    expect(serve.stdout().split('\n')[0]).toBe(serve.launchUrl)
    expect(serve.stdout().split(serve.launchKey)).toHaveLength(2)
  })
})
