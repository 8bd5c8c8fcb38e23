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
