/**
 * The window shapes a service may count a rate limit with, for deterministic tests of the
 * client's limiter: each admits or refuses an arrival at `now` and says when to retry.
 */
export interface ServiceWindow {
  /** Null when admitted; else the exact milliseconds until an arrival would be admitted. */
  admit(now: number): number | null
}

/** At most `requests` per window aligned on multiples of `ms`. */
export function fixedWindow(requests: number, ms: number): ServiceWindow {
  let start = Number.NEGATIVE_INFINITY
  let count = 0
  return {
    admit(now) {
      const s = Math.floor(now / ms) * ms
      if (s !== start) {
        start = s
        count = 0
      }
      if (count < requests) {
        count++
        return null
      }
      return start + ms - now
    }
  }
}

/** At most `requests` in any `ms` (the reference service's default). */
export function slidingWindow(requests: number, ms: number): ServiceWindow {
  const admitted: number[] = []
  return {
    admit(now) {
      while (admitted.length > 0 && now - admitted[0]! >= ms) admitted.shift()
      if (admitted.length < requests) {
        admitted.push(now)
        return null
      }
      return admitted[0]! + ms - now
    }
  }
}

/** A token bucket of `capacity` refilled at `requests` per `ms`. */
export function tokenBucket(requests: number, ms: number, capacity: number): ServiceWindow {
  let tokens = capacity
  let at = Number.NEGATIVE_INFINITY
  const perMs = requests / ms
  return {
    admit(now) {
      tokens = at === Number.NEGATIVE_INFINITY ? capacity : Math.min(capacity, tokens + (now - at) * perMs)
      at = now
      if (tokens >= 1 - 1e-9) {
        tokens -= 1
        return null
      }
      return Math.ceil((1 - tokens) / perMs)
    }
  }
}
