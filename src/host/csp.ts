/**
 * The one Content-Security-Policy of the renderer. It is sent as a response header by the
 * session (covers the dev server), and the <meta> in src/renderer/index.html (covers
 * file://, where no headers exist) must equal META_CONTENT_SECURITY_POLICY, the same policy
 * minus what browsers ignore in a meta tag; a unit test holds the two together.
 * 'unsafe-inline' styles: PrimeVue and Vue's transitions set style attributes at run time.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'"
].join('; ')

/** Directives a <meta> policy may not carry (browsers ignore them there, with a console error). */
const HEADER_ONLY = new Set(['frame-ancestors', 'report-uri', 'sandbox'])

export const META_CONTENT_SECURITY_POLICY = CONTENT_SECURITY_POLICY.split('; ')
  .filter((d) => !HEADER_ONLY.has(d.split(' ')[0] ?? ''))
  .join('; ')

export type HeaderMap = Record<string, string | string[]>

/** Response headers with our CSP, replacing any the response carried (in any letter case). */
export function withCsp(headers: HeaderMap | undefined): HeaderMap {
  const out: HeaderMap = {}
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (name.toLowerCase() !== 'content-security-policy') out[name] = value
  }
  out['Content-Security-Policy'] = [CONTENT_SECURITY_POLICY]
  return out
}
