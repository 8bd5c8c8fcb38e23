import { describe, expect, it } from 'vitest'
import { createGate, LAUNCH_KEY_LIFETIME_MS, readCookie, tokenFromProtocols, type RequestFacts } from '../../../src/web/gate'

const PORT = 41234
const TOKEN = 't'.repeat(43)
const PAGE = 'p'.repeat(43)
const clock = 1_000_000
const gate = createGate({ port: PORT, sessionToken: TOKEN, pageToken: PAGE, now: () => clock })
// Launch keys are single-use: this one is never exchanged here, only offered in the wrong places.
const KEY = gate.issueLaunchKey()
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
  token: undefined,
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
    expect(gate.check(facts({ method: 'POST', url: '/invoke/app.info', origin: ORIGIN, token: PAGE }))).toMatchObject({
      kind: 'allow',
      pathname: '/invoke/app.info'
    })
    expect(gate.check(facts({ url: '/events', origin: ORIGIN, upgrade: true, token: PAGE }))).toMatchObject({
      kind: 'allow',
      pathname: '/events'
    })
    // localhost names the same server; the origin must then say localhost too.
    expect(gate.check(facts({ host: `localhost:${PORT}`, method: 'POST', origin: `http://localhost:${PORT}` }))).toMatchObject({
      kind: 'allow',
      origin: `http://localhost:${PORT}`
    })
  })

  it('trades a launch key for the cookie once, on GET / only', () => {
    const g = createGate({ port: PORT, now: () => clock })
    const key = g.issueLaunchKey()
    expect(g.check(facts({ url: `/?key=${key}x`, cookie: undefined }))).toEqual({ kind: 'deny', reason: 'key' })
    // Opened from a link elsewhere (a web terminal, the redirect file): the key is the proof.
    expect(g.check(facts({ url: `/?key=${key}`, cookie: undefined, secFetchSite: 'cross-site' }))).toEqual({
      kind: 'exchange',
      origin: ORIGIN
    })
    // Spent: whoever else read it (another user's view of the opener's command line) is too late.
    expect(g.check(facts({ url: `/?key=${key}`, cookie: undefined }))).toEqual({ kind: 'deny', reason: 'key-used' })
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

  it('refuses a launch key after its lifetime, and an earlier key once a new one is issued', () => {
    let t = 5_000
    const g = createGate({ port: PORT, now: () => t })
    const first = g.issueLaunchKey()
    t += LAUNCH_KEY_LIFETIME_MS
    expect(g.check(facts({ url: `/?key=${first}`, cookie: undefined }))).toEqual({ kind: 'deny', reason: 'key-expired' })
    const second = g.issueLaunchKey()
    expect(second).not.toBe(first)
    expect(g.check(facts({ url: `/?key=${first}`, cookie: undefined }))).toEqual({ kind: 'deny', reason: 'key' })
    t += LAUNCH_KEY_LIFETIME_MS - 1
    expect(g.check(facts({ url: `/?key=${second}`, cookie: undefined }))).toEqual({ kind: 'exchange', origin: ORIGIN })
    // No key issued yet: nothing to exchange.
    expect(createGate({ port: PORT }).check(facts({ url: `/?key=${first}`, cookie: undefined }))).toEqual({ kind: 'deny', reason: 'key' })
  })

  it('wants the page token besides the cookie for calls and the event socket, as a browser on another local port never has it', () => {
    // What a listener on another port of 127.0.0.1 receives and replays: the cookie, with every header forged right.
    const replay = { cookie: COOKIE, origin: ORIGIN, secFetchSite: 'same-origin' }
    expect(gate.check(facts({ ...replay, method: 'POST', url: '/invoke/accounts.list' }))).toEqual({ kind: 'deny', reason: 'token' })
    expect(gate.check(facts({ ...replay, upgrade: true, url: '/events' }))).toEqual({ kind: 'deny', reason: 'token' })
    expect(gate.check(facts({ ...replay, method: 'POST', url: '/invoke/search.page', token: 'x'.repeat(43) }))).toEqual({
      kind: 'deny',
      reason: 'token'
    })
    expect(gate.check(facts({ ...replay, upgrade: true, url: '/events', token: TOKEN }))).toEqual({ kind: 'deny', reason: 'token' })
    // The token does not stand in for the cookie.
    expect(gate.check(facts({ ...replay, cookie: undefined, method: 'POST', url: '/invoke/app.info', token: PAGE }))).toEqual({
      kind: 'deny',
      reason: 'cookie'
    })
    // The pages and scripts the cookie alone buys hold no token (the e2e suite reads them).
    expect(gate.check(facts({ ...replay, url: '/callsight-api.js' }))).toMatchObject({ kind: 'allow' })
  })

  it('finds the token among the subprotocols a socket offers', () => {
    expect(tokenFromProtocols(`callsight, callsight-token.${PAGE}`)).toBe(PAGE)
    expect(tokenFromProtocols('callsight')).toBeUndefined()
    expect(tokenFromProtocols(undefined)).toBeUndefined()
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
    const key = a.issueLaunchKey()
    expect(key).toMatch(/^[\w-]{43}$/)
    expect(a.pageToken).toMatch(/^[\w-]{43}$/)
    expect(key).not.toBe(b.issueLaunchKey())
    expect(a.pageToken).not.toBe(b.pageToken)
    expect(a.sessionCookie()).not.toBe(b.sessionCookie())
    expect(a.sessionCookie()).not.toContain(key)
    expect(a.sessionCookie()).not.toContain(a.pageToken)
  })

  it('reads one cookie out of a Cookie header', () => {
    expect(readCookie('a=1; b = 2 ;c=3=4', 'b')).toBe('2')
    expect(readCookie('a=1; c=3=4', 'c')).toBe('3=4')
    expect(readCookie('ab=1', 'a')).toBeUndefined()
    expect(readCookie(undefined, 'a')).toBeUndefined()
  })
})
