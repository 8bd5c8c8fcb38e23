import type { RateHint } from './pacer'

interface HeaderGetter {
  get(name: string): string | null
}

const NUMBER = /^\s*(\d+(?:\.\d+)?)\s*$/
/** Above this a reset is an epoch time in seconds (GitHub's X-RateLimit-Reset), not a delta. */
const EPOCH_SECONDS = 1_000_000_000

function num(v: string | null | undefined): number | null {
  if (v === null || v === undefined) return null
  const m = NUMBER.exec(v)
  return m ? Number(m[1]) : null
}

function resetMs(v: number | null, now: number): number | null {
  if (v === null) return null
  return v > EPOCH_SECONDS ? Math.max(0, v * 1000 - now) : Math.round(v * 1000)
}

/** `r=` / `t=` (IETF draft 7 and later) or `remaining=` / `reset=` (earlier drafts) in one RateLimit field. */
function fromCombined(v: string): { remaining: number | null; reset: number | null } {
  const param = (names: string[]): number | null => {
    for (const n of names) {
      const m = new RegExp(`(?:^|[;,\\s])${n}=(\\d+(?:\\.\\d+)?)`, 'i').exec(v)
      if (m) return Number(m[1])
    }
    return null
  }
  return { remaining: param(['r', 'remaining']), reset: param(['t', 'reset']) }
}

/**
 * The rate-limit headers a response may carry (the spec names none; docs/spec-readings.md):
 * `RateLimit-Remaining` / `RateLimit-Reset`, the combined `RateLimit` field, and the common
 * `X-RateLimit-Remaining` / `X-RateLimit-Reset` (a reset above 10^9 is epoch seconds).
 * Unreadable values count as absent. Null when the response says nothing usable.
 */
export function readRateHeaders(headers: HeaderGetter, now: number): RateHint | null {
  let remaining = num(headers.get('ratelimit-remaining')) ?? num(headers.get('x-ratelimit-remaining'))
  let reset = num(headers.get('ratelimit-reset')) ?? num(headers.get('x-ratelimit-reset'))
  const combined = headers.get('ratelimit')
  if (combined && (remaining === null || reset === null)) {
    const c = fromCombined(combined)
    remaining ??= c.remaining
    reset ??= c.reset
  }
  if (remaining === null && reset === null) return null
  return { remaining: remaining === null ? null : Math.floor(remaining), resetMs: resetMs(reset, now) }
}
