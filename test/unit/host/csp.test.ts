import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { CONTENT_SECURITY_POLICY, META_CONTENT_SECURITY_POLICY, withCsp } from '../../../src/host/csp'
import { hardenSession, type SessionLike } from '../../../src/main/security/harden'
import { APP_URL, isTrusted } from '../main/fakes'

function metaCsp(html: string): string[] {
  const tags = html.match(/<meta\b[^>]*>/gis) ?? []
  return tags
    .filter((t) => /http-equiv\s*=\s*"Content-Security-Policy"/i.test(t))
    .map((t) => /content\s*=\s*"([^"]*)"/is.exec(t)?.[1] ?? '')
}

type HeadersListener = Parameters<SessionLike['webRequest']['onHeadersReceived']>[0]
type RequestHandler = Parameters<SessionLike['setPermissionRequestHandler']>[0]
type CheckHandler = Parameters<SessionLike['setPermissionCheckHandler']>[0]

function fakeSession() {
  const got: { headers?: HeadersListener; request?: RequestHandler; check?: CheckHandler } = {}
  const session: SessionLike = {
    webRequest: { onHeadersReceived: (l) => (got.headers = l) },
    setPermissionRequestHandler: (h) => (got.request = h),
    setPermissionCheckHandler: (h) => (got.check = h)
  }
  return { session, got }
}

describe('Content-Security-Policy', () => {
  it('is the same policy in the renderer meta tag as in the response header, less header-only directives', () => {
    const html = readFileSync(join(process.cwd(), 'src/renderer/index.html'), 'utf8')
    expect(metaCsp(html)).toEqual([META_CONTENT_SECURITY_POLICY])
    expect(META_CONTENT_SECURITY_POLICY).toBe(CONTENT_SECURITY_POLICY.replace("; frame-ancestors 'none'", ''))
  })

  it('is strict: no inline or eval script, no plugins, no framing, no foreign connections', () => {
    const directives = new Map(
      CONTENT_SECURITY_POLICY.split(';').map((d) => {
        const [name, ...values] = d.trim().split(/\s+/)
        return [name, values] as const
      })
    )
    expect(directives.get('default-src')).toEqual(["'self'"])
    expect(directives.get('script-src')).toEqual(["'self'"])
    expect(directives.get('connect-src')).toEqual(["'self'"])
    expect(directives.get('object-src')).toEqual(["'none'"])
    expect(directives.get('frame-ancestors')).toEqual(["'none'"])
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-eval|\*/)
  })

  it('replaces whatever policy a response carried, in any letter case, and keeps other headers', () => {
    const out = withCsp({ 'content-security-policy': ['default-src *'], 'Content-Type': ['text/html'] })
    expect(out).toEqual({ 'Content-Type': ['text/html'], 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] })
    expect(withCsp(undefined)).toEqual({ 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] })
  })

  it('is added by the hardened session to every response', () => {
    const { session, got } = fakeSession()
    hardenSession(session, isTrusted)
    let sent: unknown = null
    got.headers?.({ responseHeaders: { 'X-Test': ['1'] } }, (r) => (sent = r))
    expect(sent).toEqual({ responseHeaders: { 'X-Test': ['1'], 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] } })
  })
})

describe('permissions', () => {
  const ask = (handler: RequestHandler | undefined, permission: string, requestingUrl: string, isMainFrame = true): boolean | null => {
    let granted: boolean | null = null
    handler?.({}, permission, (g) => (granted = g), { requestingUrl, isMainFrame })
    return granted
  }

  it.each(['media', 'geolocation', 'notifications', 'clipboard-read', 'openExternal', 'hid', 'fullscreen'])(
    'denies %s, even to the app',
    (permission) => {
      const { session, got } = fakeSession()
      hardenSession(session, isTrusted)
      expect(ask(got.request, permission, APP_URL)).toBe(false)
      expect(got.check?.({}, permission, 'file://', { requestingUrl: APP_URL, isMainFrame: true })).toBe(false)
    }
  )

  it('allows a sanitized clipboard write only to the app main frame', () => {
    const { session, got } = fakeSession()
    hardenSession(session, isTrusted)
    expect(ask(got.request, 'clipboard-sanitized-write', APP_URL)).toBe(true)
    expect(ask(got.request, 'clipboard-sanitized-write', 'https://evil.example.com/')).toBe(false)
    expect(ask(got.request, 'clipboard-sanitized-write', APP_URL, false)).toBe(false)
    expect(got.check?.({}, 'clipboard-sanitized-write', 'file://', { requestingUrl: APP_URL, isMainFrame: true })).toBe(true)
    expect(got.check?.({}, 'clipboard-sanitized-write', 'file://', { requestingUrl: APP_URL, isMainFrame: false })).toBe(false)
  })
})
