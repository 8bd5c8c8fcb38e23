import { describe, expect, it } from 'vitest'
import { createGate, readCookie, type RequestFacts } from '../../../src/host/web/gate'

const PORT = 41234
const KEY = 'k'.repeat(43)
const TOKEN = 't'.repeat(43)
const gate = createGate({ port: PORT, launchKey: KEY, sessionToken: TOKEN })
const HOST = `127.0.0.1:${PORT}`
const ORIGIN = `http://${HOST}`
const COOKIE = `other=1; callsight-${PORT}=${TOKEN}`

const facts = (over: Partial<RequestFacts> = {}): RequestFacts => ({
  method: 'GET',
  url: '/',
  host: HOST,
  origin: undefined,
  secFetchSite: undefined,
  cookie: COOKIE,
  upgrade: false,
  ...over
})

describe('the browser mode gate', () => {
  it('lets the app through: its pages, its calls and its event socket', () => {
    expect(gate.check(facts({ url: '/assets/index.js', secFetchSite: 'same-origin' }))).toEqual({
      kind: 'allow',
      origin: ORIGIN,
      pathname: '/assets/index.js'
    })
    expect(gate.check(facts({ secFetchSite: 'none' }))).toMatchObject({ kind: 'allow' })
    expect(gate.check(facts({ method: 'POST', url: '/invoke/app.info', origin: ORIGIN }))).toMatchObject({
      kind: 'allow',
      pathname: '/invoke/app.info'
    })
    expect(gate.check(facts({ url: '/events', origin: ORIGIN, upgrade: true }))).toMatchObject({ kind: 'allow', pathname: '/events' })
    // localhost names the same server; the origin must then say localhost too.
    expect(gate.check(facts({ host: `localhost:${PORT}`, method: 'POST', origin: `http://localhost:${PORT}` }))).toMatchObject({
      kind: 'allow',
      origin: `http://localhost:${PORT}`
    })
  })

  it('trades the launch key for the cookie, on GET / only', () => {
    expect(gate.check(facts({ url: `/?key=${KEY}`, cookie: undefined }))).toEqual({ kind: 'exchange', origin: ORIGIN })
    // Opened from a link elsewhere (a web terminal): the key is the proof.
    expect(gate.check(facts({ url: `/?key=${KEY}`, cookie: undefined, secFetchSite: 'cross-site' }))).toEqual({
      kind: 'exchange',
      origin: ORIGIN
    })
    expect(gate.check(facts({ url: `/?key=${KEY}x`, cookie: undefined }))).toEqual({ kind: 'deny', reason: 'key' })
    expect(gate.check(facts({ url: '/?key=', cookie: undefined }))).toEqual({ kind: 'deny', reason: 'key' })
    expect(gate.check(facts({ url: `/index.html?key=${KEY}`, cookie: undefined }))).toEqual({ kind: 'deny', reason: 'cookie' })
    expect(gate.check(facts({ method: 'POST', url: `/?key=${KEY}`, cookie: undefined, origin: ORIGIN }))).toEqual({
      kind: 'deny',
      reason: 'cookie'
    })
    expect(gate.sessionCookie()).toBe(`callsight-${PORT}=${TOKEN}; HttpOnly; SameSite=Strict; Path=/`)
  })

  it.each<[string, Partial<RequestFacts>, string]>([
    ['no Host', { host: undefined }, 'host'],
    ['a rebound Host', { host: `attacker.example:${PORT}` }, 'host'],
    ['a Host on another port', { host: '127.0.0.1:1' }, 'host'],
    ['a Host without the port', { host: '127.0.0.1' }, 'host'],
    ['the key from a rebound Host', { host: 'attacker.example', url: `/?key=${KEY}` }, 'host'],
    ['a foreign Origin', { method: 'POST', origin: 'https://attacker.example' }, 'origin'],
    ['an Origin on another port', { method: 'POST', origin: 'http://127.0.0.1:1' }, 'origin'],
    ['an Origin of localhost for a 127.0.0.1 Host', { method: 'POST', origin: `http://localhost:${PORT}` }, 'origin'],
    ['a null Origin', { origin: 'null' }, 'origin'],
    ['a same-site fetch (another local port)', { secFetchSite: 'same-site' }, 'cross-site'],
    ['a cross-site fetch', { secFetchSite: 'cross-site' }, 'cross-site'],
    ['no cookie', { cookie: undefined }, 'cookie'],
    ['a wrong cookie', { cookie: `callsight-${PORT}=${'x'.repeat(43)}` }, 'cookie'],
    ['the key as the cookie', { cookie: `callsight-${PORT}=${KEY}` }, 'cookie'],
    ["another serve's cookie", { cookie: `callsight-1=${TOKEN}` }, 'cookie'],
    ['a POST without an Origin', { method: 'POST' }, 'origin-missing'],
    ['an upgrade without an Origin', { upgrade: true, url: '/events' }, 'origin-missing'],
    ['a preflight', { method: 'OPTIONS', origin: ORIGIN }, 'method'],
    ['a PUT', { method: 'PUT', origin: ORIGIN }, 'method']
  ])('refuses %s', (_what, over, reason) => {
    expect(gate.check(facts(over))).toEqual({ kind: 'deny', reason })
  })

  it('knows its own origins for the router, and nothing else', () => {
    expect(gate.isOwnOrigin(ORIGIN)).toBe(true)
    expect(gate.isOwnOrigin(`http://localhost:${PORT}/x`)).toBe(true)
    expect(gate.isOwnOrigin('http://127.0.0.1:1')).toBe(false)
    expect(gate.isOwnOrigin('not a url')).toBe(false)
  })

  it('draws a fresh key and cookie value per run', () => {
    const a = createGate({ port: PORT })
    const b = createGate({ port: PORT })
    expect(a.launchKey).toMatch(/^[\w-]{43}$/)
    expect(a.launchKey).not.toBe(b.launchKey)
    expect(a.sessionCookie()).not.toBe(b.sessionCookie())
    expect(a.sessionCookie()).not.toContain(a.launchKey)
  })

  it('reads one cookie out of a Cookie header', () => {
    expect(readCookie('a=1; b = 2 ;c=3=4', 'b')).toBe('2')
    expect(readCookie('a=1; c=3=4', 'c')).toBe('3=4')
    expect(readCookie('ab=1', 'a')).toBeUndefined()
    expect(readCookie(undefined, 'a')).toBeUndefined()
  })
})
