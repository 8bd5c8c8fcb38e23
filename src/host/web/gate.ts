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
 * 4. the session cookie, which only the launch key buys. The launch key travels once, in the
 *    URL the server prints and opens; GET /?key=… trades it for an HttpOnly, SameSite=Strict
 *    cookie and moves on to the bare URL so the key does not stay in the address bar.
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
  /** A WebSocket upgrade. */
  upgrade: boolean
}

export type Refusal = 'method' | 'host' | 'origin' | 'cross-site' | 'key' | 'cookie' | 'origin-missing'

export type Verdict =
  /** An authenticated request; `origin` is this server's origin as the request named it. */
  | { kind: 'allow'; origin: string; pathname: string }
  /** A valid launch key: set the cookie, move on to the bare URL. */
  | { kind: 'exchange'; origin: string }
  | { kind: 'deny'; reason: Refusal }

export interface Gate {
  readonly cookieName: string
  /** The launch key, for the URL the server prints and opens. Never log it. */
  readonly launchKey: string
  check(facts: RequestFacts): Verdict
  /** The Set-Cookie header an exchange answers with. */
  sessionCookie(): string
  /** True for this server's own origins (http://127.0.0.1:<port>, http://localhost:<port>). */
  isOwnOrigin(url: string): boolean
}

const METHODS = new Set(['GET', 'HEAD', 'POST'])
const SAME_ORIGIN_FETCH = new Set(['same-origin', 'none'])

export function createGate(opts: { port: number; launchKey?: string; sessionToken?: string }): Gate {
  const launchKey = opts.launchKey ?? randomBytes(32).toString('base64url')
  const sessionToken = opts.sessionToken ?? randomBytes(32).toString('base64url')
  // Cookies ignore ports: another serve on another port must not overwrite ours.
  const cookieName = `callsight-${opts.port}`
  const hosts = new Set([`127.0.0.1:${opts.port}`, `localhost:${opts.port}`])
  const origins = new Set([...hosts].map((h) => `http://${h}`))

  return {
    cookieName,
    launchKey,
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
      // (a link in a web terminal). The key is the proof here, not where the click came from.
      if (facts.method === 'GET' && !facts.upgrade && target.pathname === '/' && target.searchParams.has('key')) {
        return same(target.searchParams.get('key'), launchKey) ? { kind: 'exchange', origin: self } : { kind: 'deny', reason: 'key' }
      }
      if (facts.secFetchSite !== undefined && !SAME_ORIGIN_FETCH.has(facts.secFetchSite)) return { kind: 'deny', reason: 'cross-site' }
      if (!same(readCookie(facts.cookie, cookieName), sessionToken)) return { kind: 'deny', reason: 'cookie' }
      if ((facts.upgrade || facts.method === 'POST') && facts.origin === undefined) return { kind: 'deny', reason: 'origin-missing' }
      return { kind: 'allow', origin: self, pathname: target.pathname }
    }
  }
}

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
