/**
 * The retry policy: which failures are worth another try and how long to wait before it.
 * 5xx, connection resets and timeouts are transient; a 4xx other than 401 and 429 is the
 * request's own fault and would fail the same way again.
 */
export interface RetryPolicy {
  /** Further attempts after the first. */
  maxRetries: number
  baseDelayMs: number
  maxDelayMs: number
  /** [0, 1); injectable so tests can pin the jitter. */
  random: () => number
}

export const DEFAULT_RETRY: RetryPolicy = { maxRetries: 4, baseDelayMs: 500, maxDelayMs: 20_000, random: Math.random }

/**
 * Capped exponential backoff with "equal jitter": half the step is fixed, half random, so
 * clients that failed together do not come back together and no wait collapses to zero.
 */
export function backoffMs(retry: number, p: RetryPolicy): number {
  const step = Math.min(p.maxDelayMs, p.baseDelayMs * 2 ** retry)
  return Math.round(step / 2 + (step / 2) * p.random())
}

export function isRetryableStatus(status: number): boolean {
  return status >= 500 && status <= 599
}

/** Socket-level failures that a new connection may well not hit again. */
const TRANSIENT_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT'
])

/** The error code of a fetch failure, digging through `cause` (undici nests it). */
export function networkCode(e: unknown): string | null {
  let cur: unknown = e
  for (let i = 0; i < 5 && cur !== null && typeof cur === 'object'; i++) {
    const code = (cur as { code?: unknown }).code
    if (typeof code === 'string') return code
    cur = (cur as { cause?: unknown }).cause
  }
  return null
}

/**
 * Nothing listens at the address (a wrong port, a service that is down): Node says
 * ECONNREFUSED, Chromium's network stack (the app's fetch) ERR_CONNECTION_REFUSED.
 */
export function isConnectionRefused(e: unknown): boolean {
  const code = networkCode(e)
  if (code === 'ECONNREFUSED' || code === 'ERR_CONNECTION_REFUSED') return true
  let cur: unknown = e
  for (let i = 0; i < 5 && cur instanceof Error; i++, cur = cur.cause) if (cur.message.includes('ERR_CONNECTION_REFUSED')) return true
  return false
}

/** DNS misses and certificate errors are not transient; everything else at socket level is. */
export function isTransientNetworkError(e: unknown): boolean {
  const code = networkCode(e)
  if (code === null) return true
  if (TRANSIENT_CODES.has(code)) return true
  return !(code === 'ENOTFOUND' || code.startsWith('ERR_TLS') || code.includes('CERT') || code.startsWith('ERR_SSL'))
}
