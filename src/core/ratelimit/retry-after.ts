import type { RateLimit } from '../../shared/domain'

/**
 * Retry-After in milliseconds from now: delta-seconds ("120", "1.5") or an HTTP date
 * ("Wed, 21 Oct 2026 07:28:00 GMT"). Null when absent or unreadable; never negative.
 */
export function parseRetryAfter(header: string | null | undefined, now: number): number | null {
  if (header === null || header === undefined) return null
  const v = header.trim()
  if (v === '') return null
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000)
  // An HTTP date names its month; bare numbers like "-5" are not dates (Date.parse says they are).
  if (!/[a-z]{3}/i.test(v)) return null
  const at = Date.parse(v)
  if (Number.isNaN(at)) return null
  return Math.max(0, at - now)
}

/**
 * The longest the tenant's requests are held on the service's word: three windows of the
 * configured limit (at least 5 s). Any window shape of that mean has room again by then; a
 * far larger value is more likely a mistake (a clock off by hours, a misconfigured proxy)
 * than a plan, and the next 429 says so again anyway.
 */
export function holdCapMs(limit: RateLimit): number {
  return Math.max(5_000, 3 * limit.perSeconds * 1000)
}

/** How long a 429 holds the tenant: its Retry-After, bounded; one window when it gave none. */
export function retryAfterHoldMs(header: string | null | undefined, now: number, limit: RateLimit): number {
  const parsed = parseRetryAfter(header, now)
  return Math.min(parsed ?? limit.perSeconds * 1000, holdCapMs(limit))
}
