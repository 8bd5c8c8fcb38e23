import { describe, expect, it } from 'vitest'
import {
  createTenantLimiter,
  FixedWindowLimiter,
  SlidingWindowLimiter,
  TokenBucketLimiter
} from '../../../src/reference-service/rate-limit'

const T = 1_700_000_000_000 // a multiple of 10 s, so fixed windows start here

describe('the reference service counts a tenant limit as', () => {
  it('a sliding window by default: at most N in any window, Retry-After when the oldest leaves', () => {
    const l = createTenantLimiter({ requests: 3, perSeconds: 10 })
    expect(l).toBeInstanceOf(SlidingWindowLimiter)
    expect([T, T + 1_000, T + 2_000].map((t) => l.admit(t).ok)).toEqual([true, true, true])
    expect(l.admit(T + 9_999)).toEqual({ ok: false, retryAfterSeconds: 1 })
    expect(l.admit(T + 5_000)).toEqual({ ok: false, retryAfterSeconds: 5 })
    expect(l.admit(T + 10_000).ok).toBe(true)
    expect(l.admit(T + 10_500)).toEqual({ ok: false, retryAfterSeconds: 1 })
  })

  it('a fixed window: N per aligned window, Retry-After to its end, and a burst across the edge', () => {
    const l = createTenantLimiter({ requests: 3, perSeconds: 10 }, { kind: 'fixed' })
    expect(l).toBeInstanceOf(FixedWindowLimiter)
    expect([T + 7_000, T + 8_000, T + 9_000].map((t) => l.admit(t).ok)).toEqual([true, true, true])
    expect(l.admit(T + 9_500)).toEqual({ ok: false, retryAfterSeconds: 1 })
    // The next window starts afresh: six within two seconds across the edge.
    expect([T + 10_000, T + 10_100, T + 10_200].map((t) => l.admit(t).ok)).toEqual([true, true, true])
    expect(l.admit(T + 10_300).ok).toBe(false)
  })

  it('a token bucket: the burst at once, then one per refill interval', () => {
    const l = createTenantLimiter({ requests: 10, perSeconds: 10 }, { kind: 'bucket', burst: 2 })
    expect(l).toBeInstanceOf(TokenBucketLimiter)
    expect([T, T, T].map((t) => l.admit(t).ok)).toEqual([true, true, false])
    expect(l.admit(T + 500)).toEqual({ ok: false, retryAfterSeconds: 1 })
    expect(l.admit(T + 1_000).ok).toBe(true)
    expect(l.admit(T + 1_000).ok).toBe(false)
    expect(l.admit(T + 10_000).ok).toBe(true)
    expect(l.admit(T + 10_000).ok).toBe(true) // refilled to the burst, not beyond
    expect(l.admit(T + 10_000).ok).toBe(false)
  })

  it('a bucket holds the limit by default, and a reset refills it', () => {
    const l = createTenantLimiter({ requests: 4, perSeconds: 60 }, { kind: 'bucket' })
    expect([0, 1, 2, 3, 4].map(() => l.admit(T).ok)).toEqual([true, true, true, true, false])
    l.reset({ requests: 4, perSeconds: 60 })
    expect(l.admit(T).ok).toBe(true)
  })
})
