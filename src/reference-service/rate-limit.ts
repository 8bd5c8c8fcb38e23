/**
 * Per-tenant rate limiters, one per window shape a real service may use, so the client can be
 * tested against each (`--rate-window`). All give an exact Retry-After (whole seconds, at
 * least 1): the moment the next arrival would be admitted.
 */
import type { RateLimit, RateWindow } from './types'

export type Admission = { ok: true } | { ok: false; retryAfterSeconds: number }

export interface TenantLimiter {
  readonly limit: RateLimit
  admit(now: number): Admission
  reset(limit: RateLimit): void
}

const refuse = (ms: number): Admission => ({ ok: false, retryAfterSeconds: Math.max(1, Math.ceil(ms / 1000)) })

/**
 * At most `requests` in any `perSeconds` window (the default). A ring of the last `requests`
 * admission times: the next admission is when the oldest leaves the window.
 */
export class SlidingWindowLimiter implements TenantLimiter {
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
    return refuse(oldest + this.windowMs - now)
  }
}

/** At most `requests` per window aligned on multiples of `perSeconds` since the epoch. */
export class FixedWindowLimiter implements TenantLimiter {
  private start = Number.NEGATIVE_INFINITY
  private count = 0

  constructor(public limit: RateLimit) {}

  reset(limit: RateLimit): void {
    this.limit = limit
    this.start = Number.NEGATIVE_INFINITY
    this.count = 0
  }

  admit(now: number): Admission {
    const windowMs = this.limit.perSeconds * 1000
    const start = Math.floor(now / windowMs) * windowMs
    if (start !== this.start) {
      this.start = start
      this.count = 0
    }
    if (this.count < this.limit.requests) {
      this.count++
      return { ok: true }
    }
    return refuse(start + windowMs - now)
  }
}

/** A bucket of `burst` tokens refilled at `requests` per `perSeconds`; starts full. */
export class TokenBucketLimiter implements TenantLimiter {
  private tokens: number
  private at = Number.NEGATIVE_INFINITY

  constructor(
    public limit: RateLimit,
    private readonly burst: number
  ) {
    this.tokens = burst
  }

  reset(limit: RateLimit): void {
    this.limit = limit
    this.tokens = this.burst
    this.at = Number.NEGATIVE_INFINITY
  }

  admit(now: number): Admission {
    const perMs = this.limit.requests / (this.limit.perSeconds * 1000)
    if (this.at !== Number.NEGATIVE_INFINITY) this.tokens = Math.min(this.burst, this.tokens + (now - this.at) * perMs)
    this.at = now
    if (this.tokens >= 1) {
      this.tokens -= 1
      return { ok: true }
    }
    return refuse((1 - this.tokens) / perMs)
  }
}

/** The tenant's limiter for the configured shape; a bucket holds `burst` (default: the limit's requests). */
export function createTenantLimiter(limit: RateLimit, window: RateWindow = { kind: 'sliding' }): TenantLimiter {
  if (window.kind === 'fixed') return new FixedWindowLimiter(limit)
  if (window.kind === 'bucket') return new TokenBucketLimiter(limit, Math.max(1, window.burst ?? limit.requests))
  return new SlidingWindowLimiter(limit)
}
