import { randomBytes, timingSafeEqual } from 'node:crypto'

/**
 * Who may talk to `callsight serve`. The server listens on 127.0.0.1 only, but every web page
 * the user opens can send requests there, and a name the attacker controls can be made to
 * resolve to 127.0.0.1 (DNS rebinding). So every request must show, in order:
 *
 * 1. a Host header naming this server (127.0.0.1:<port> or localhost:<port>) — a rebound
 *    name carries its own Host and is refused;
 * 2. no Origin, or exactly this server's origin — pages elsewhere are refused even where the
 *    browser would attach our cookie (a page on 127.0.0.1:<another port> is same-site with
 *    us, so SameSite alone does not keep it out);
 * 3. no Sec-Fetch-Site other than same-origin or none (a typed URL, a bookmark) — covers the
 *    requests a foreign page makes without an Origin (<img>, <script>, a no-cors GET);
 * 4. the session cookie, which only a launch key buys. A launch key is good for one exchange
 *    and for LAUNCH_KEY_LIFETIME_MS after it was issued; GET /?key=… trades it for an
 *    HttpOnly, SameSite=Strict cookie and the page token, and moves on to the bare URL;
 * 5. for the app's calls (POST /invoke/…) and its event socket, also the page token: in the
 *    X-Callsight-Token header, or for the socket (a browser cannot set its headers) as the
 *    subprotocol `callsight-token.<token>` in Sec-WebSocket-Protocol. Browsers attach the
 *    cookie to every port of 127.0.0.1 — any local listener the browser is sent to receives
 *    it — but the token lives only in this origin's storage, put there by the exchange page.
 *
 * POST and WebSocket upgrades must also carry an Origin (browsers always send one there).
 * Anything that fails is answered 403 with no body: the reason goes to the log only.
 */

export interface RequestFacts {
  method: string
  /** The request target: path and query. */
  url: string
  host: string | undefined
  origin: string | undefined
  secFetchSite: string | undefined
  cookie: string | undefined
  /** X-Callsight-Token, or the token named in Sec-WebSocket-Protocol for an upgrade. */
  token: string | undefined
  /** A WebSocket upgrade. */
  upgrade: boolean
}

export type Refusal =
  'method' | 'host' | 'origin' | 'cross-site' | 'key' | 'key-used' | 'key-expired' | 'cookie' | 'token' | 'origin-missing'

export type Verdict =
  /** An authenticated request; `origin` is this server's origin as the request named it. */
  | { kind: 'allow'; origin: string; pathname: string }
  /** A valid launch key, now spent: set the cookie, hand over the page token, move on to /. */
  | { kind: 'exchange'; origin: string }
  | { kind: 'deny'; reason: Refusal }

export interface Gate {
  readonly cookieName: string
  /** The per-run secret the page sends with its calls; handed over by the exchange page only. */
  readonly pageToken: string
  /**
   * A new launch key, the only one valid from now on: one exchange, within
   * LAUNCH_KEY_LIFETIME_MS. For the address the server prints and opens. Never log it.
   */
  issueLaunchKey(): string
  check(facts: RequestFacts): Verdict
  /** The Set-Cookie header an exchange answers with. */
  sessionCookie(): string
  /** True for this server's own origins (http://127.0.0.1:<port>, http://localhost:<port>). */
  isOwnOrigin(url: string): boolean
}

/** The header that carries the page token on POST /invoke. */
export const TOKEN_HEADER = 'x-callsight-token'
/** The socket's subprotocol the server answers with; the token rides in a second one. */
export const WS_PROTOCOL = 'callsight'
export const WS_TOKEN_PREFIX = 'callsight-token.'
/** Long enough to click the printed address or for the opened browser to start. */
export const LAUNCH_KEY_LIFETIME_MS = 2 * 60_000

const METHODS = new Set(['GET', 'HEAD', 'POST'])
const SAME_ORIGIN_FETCH = new Set(['same-origin', 'none'])

export interface GateOptions {
  port: number
  sessionToken?: string
  pageToken?: string
  /** Milliseconds since the epoch; the tests move it to expire a key. */
  now?: () => number
}

export function createGate(opts: GateOptions): Gate {
  const now = opts.now ?? Date.now
  const sessionToken = opts.sessionToken ?? secret()
  const pageToken = opts.pageToken ?? secret()
  // Cookies ignore ports: another serve on another port must not overwrite ours.
  const cookieName = `callsight-${opts.port}`
  const hosts = new Set([`127.0.0.1:${opts.port}`, `localhost:${opts.port}`])
  const origins = new Set([...hosts].map((h) => `http://${h}`))
  let launch: { key: string; expires: number; spent: boolean } | null = null

  /** Spends the launch key if `given` is it and it is still good; otherwise why not. */
  const spend = (given: string | null): Refusal | null => {
    if (launch === null || !same(given, launch.key)) return 'key'
    if (launch.spent) return 'key-used'
    if (now() >= launch.expires) return 'key-expired'
    launch.spent = true
    return null
  }

  return {
    cookieName,
    pageToken,
    issueLaunchKey() {
      launch = { key: secret(), expires: now() + LAUNCH_KEY_LIFETIME_MS, spent: false }
      return launch.key
    },
    sessionCookie: () => `${cookieName}=${sessionToken}; HttpOnly; SameSite=Strict; Path=/`,
    isOwnOrigin(url) {
      try {
        return origins.has(new URL(url).origin)
      } catch {
        return false
      }
    },
    check(facts) {
      if (!METHODS.has(facts.method)) return { kind: 'deny', reason: 'method' }
      const host = facts.host?.toLowerCase()
      if (host === undefined || !hosts.has(host)) return { kind: 'deny', reason: 'host' }
      const self = `http://${host}`
      if (facts.origin !== undefined && facts.origin !== self) return { kind: 'deny', reason: 'origin' }

      let target: URL
      try {
        target = new URL(facts.url, self)
      } catch {
        return { kind: 'deny', reason: 'cookie' }
      }
      // The exchange: a top-level GET of / with the key, possibly opened from another site
      // (a link in a web terminal, the redirect file). The key is the proof here, not where
      // the click came from; that is why it is good for one exchange and a short while only.
      if (facts.method === 'GET' && !facts.upgrade && target.pathname === '/' && target.searchParams.has('key')) {
        const refusal = spend(target.searchParams.get('key'))
        return refusal === null ? { kind: 'exchange', origin: self } : { kind: 'deny', reason: refusal }
      }
      if (facts.secFetchSite !== undefined && !SAME_ORIGIN_FETCH.has(facts.secFetchSite)) return { kind: 'deny', reason: 'cross-site' }
      if (!same(readCookie(facts.cookie, cookieName), sessionToken)) return { kind: 'deny', reason: 'cookie' }
      if ((facts.upgrade || facts.method === 'POST') && facts.origin === undefined) return { kind: 'deny', reason: 'origin-missing' }
      const needsToken = facts.upgrade || (facts.method === 'POST' && target.pathname.startsWith('/invoke/'))
      if (needsToken && !same(facts.token, pageToken)) return { kind: 'deny', reason: 'token' }
      return { kind: 'allow', origin: self, pathname: target.pathname }
    }
  }
}

/** The page token offered in a Sec-WebSocket-Protocol header, if any. */
export function tokenFromProtocols(header: string | undefined): string | undefined {
  for (const p of (header ?? '').split(',')) {
    const name = p.trim()
    if (name.startsWith(WS_TOKEN_PREFIX)) return name.slice(WS_TOKEN_PREFIX.length)
  }
  return undefined
}

/** 256 random bits, base64url: valid in a URL, a cookie and a subprotocol name alike. */
const secret = (): string => randomBytes(32).toString('base64url')

/** Constant-time comparison, so the answer time does not tell how much of a guess was right. */
function same(given: string | null | undefined, expected: string): boolean {
  if (typeof given !== 'string') return false
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

/** The value of one cookie in a Cookie header, or undefined. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq < 0) continue
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return undefined
}
