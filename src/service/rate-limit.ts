/**
 * Per-tenant sliding-window limiter: at most `requests` in any `perSeconds` window. A ring
 * of the last `requests` admission times gives an exact Retry-After: the moment the oldest
 * admission leaves the window.
 */
import type { RateLimit } from './types'

export type Admission = { ok: true } | { ok: false; retryAfterSeconds: number }

export class SlidingWindowLimiter {
  private ring: Float64Array
  private head = 0
  private count = 0
  private windowMs: number

  constructor(public limit: RateLimit) {
    this.ring = new Float64Array(limit.requests)
    this.windowMs = limit.perSeconds * 1000
  }

  reset(limit: RateLimit): void {
    this.limit = limit
    this.ring = new Float64Array(limit.requests)
    this.windowMs = limit.perSeconds * 1000
    this.head = 0
    this.count = 0
  }

  admit(now: number): Admission {
    const cap = this.ring.length
    if (this.count < cap) {
      this.ring[(this.head + this.count) % cap] = now
      this.count++
      return { ok: true }
    }
    const oldest = this.ring[this.head]!
    if (now - oldest >= this.windowMs) {
      this.ring[this.head] = now
      this.head = (this.head + 1) % cap
      return { ok: true }
    }
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((oldest + this.windowMs - now) / 1000)) }
  }
}
