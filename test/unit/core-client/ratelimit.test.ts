import { maxInWindow } from '../../support/windows'
import { describe, it, expect } from 'vitest'
import { ManualClock } from '../../../src/core/platform/manual-clock'
import { RateLimiterRegistry, TenantRateLimiter, parseRetryAfter } from '../../../src/core/ratelimit'
import { isAbortError } from '../../../src/core/errors'

/** Acquires `n` slots as fast as the limiter allows, recording the clock at each grant. */
async function drive(limiter: TenantRateLimiter, clock: ManualClock, n: number, stepMs: number): Promise<number[]> {
  const grants: number[] = []
  const all = Array.from({ length: n }, () => limiter.acquire().then(() => grants.push(clock.now())))
  let guard = 0
  while (grants.length < n && guard++ < 100_000) await clock.advance(stepMs)
  await Promise.all(all)
  return grants
}


describe('TenantRateLimiter', () => {
  it('lets a full bucket through at once, then holds the next until a token comes back', async () => {
    const clock = new ManualClock()
    const limiter = new TenantRateLimiter({ requests: 5, perSeconds: 10 }, { clock, marginMs: 200 })
    const t0 = clock.now()
    for (let i = 0; i < 5; i++) await limiter.acquire()
    let sixth = false
    const p = limiter.acquire().then(() => (sixth = true))
    await clock.advance(10_100)
    expect(sixth).toBe(false)
    await clock.advance(100)
    await p
    expect(sixth).toBe(true)
    expect(clock.now() - t0).toBe(10_200)
  })

  it('never puts more than the limit into any sliding window, under sustained demand', async () => {
    const clock = new ManualClock()
    const limiter = new TenantRateLimiter({ requests: 60, perSeconds: 60 }, { clock })
    const grants = await drive(limiter, clock, 400, 250)
    expect(maxInWindow(grants, 60_000)).toBe(60)
    // And it does not starve: 400 requests take just over 6 windows.
    expect(grants[grants.length - 1]! - grants[0]!).toBeLessThan(7 * 61_000)
  })

  it('on a 429 holds everyone for Retry-After, then runs slower, and recovers later', async () => {
    const clock = new ManualClock()
    const limiter = new TenantRateLimiter({ requests: 10, perSeconds: 10 }, { clock, marginMs: 0 })
    await limiter.acquire()
    limiter.penalize(5_000)
    expect(limiter.pace).toBeCloseTo(0.7)
    const start = clock.now()
    const grants = await drive(limiter, clock, 14, 100)
    expect(grants[0]! - start).toBe(5_000)
    // 7 tokens (70% of 10) per window while the pace is lowered.
    expect(maxInWindow(grants.slice(0, 14), 10_000)).toBeLessThanOrEqual(7)
    await clock.advance(30_000)
    await drive(limiter, clock, 3, 100)
    expect(limiter.pace).toBeGreaterThan(0.7)
    expect(limiter.stats.rateLimited).toBe(1)
  })

  it('cancels a waiting acquire without spending a token', async () => {
    const clock = new ManualClock()
    const limiter = new TenantRateLimiter({ requests: 1, perSeconds: 60 }, { clock, marginMs: 0 })
    await limiter.acquire()
    const ac = new AbortController()
    const waiting = limiter.acquire(ac.signal)
    await clock.advance(1_000)
    ac.abort()
    await expect(waiting).rejects.toSatisfy(isAbortError)
    const next = limiter.acquire()
    await clock.advance(59_000)
    await next
    expect(limiter.stats.granted).toBe(2)
    await expect(limiter.acquire(AbortSignal.abort())).rejects.toSatisfy(isAbortError)
  })

  it('is shared per tenant base URL through the registry', () => {
    const reg = new RateLimiterRegistry()
    const a = reg.forTenant('https://calls.example.com/', { requests: 60, perSeconds: 60 })
    const b = reg.forTenant('https://CALLS.example.com', { requests: 120, perSeconds: 60 })
    const c = reg.forTenant('https://other.example.com', { requests: 60, perSeconds: 60 })
    expect(b).toBe(a)
    expect(a.limit).toEqual({ requests: 120, perSeconds: 60 })
    expect(c).not.toBe(a)
  })
})

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-01-01T00:00:00Z')
  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000)
    expect(parseRetryAfter(' 1.5 ', now)).toBe(1_500)
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30_000)
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0)
  })
  it('gives null for absent or unreadable values', () => {
    expect(parseRetryAfter(null, now)).toBeNull()
    expect(parseRetryAfter('', now)).toBeNull()
    expect(parseRetryAfter('soon', now)).toBeNull()
    expect(parseRetryAfter('-5', now)).toBeNull()
  })
})
