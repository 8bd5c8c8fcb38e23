import { maxInWindow } from '../../../support/windows'
import { describe, it, expect } from 'vitest'
import { ManualClock } from '../../../../src/core/platform/manual-clock'
import {
  AIMD,
  RateLimiterRegistry,
  TenantRateLimiter,
  defaultBurst,
  holdCapMs,
  parseRetryAfter,
  readRateHeaders,
  retryAfterHoldMs
} from '../../../../src/core/ratelimit'
import { isAbortError } from '../../../../src/core/errors'
import { PaceControl, startupPace } from '../../../../src/core/ratelimit/pace-control'

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
  it('sends a single request at once, a small burst after an idle spell, then one per interval', async () => {
    const clock = new ManualClock()
    const limiter = new TenantRateLimiter({ requests: 60, perSeconds: 60 }, { clock, marginMs: 0 })
    expect(defaultBurst({ requests: 60, perSeconds: 60 })).toBe(3)
    const t0 = clock.now()
    await limiter.acquire()
    expect(clock.now()).toBe(t0)
    const grants = await drive(limiter, clock, 5, 1)
    // Two more went with the first (the burst of 3); each paid back a slot, so the fourth
    // request goes at 3 s, then one a second.
    expect(grants.map((t) => t - t0)).toEqual([0, 0, 3_000, 4_000, 5_000])
    // After an idle spell of two intervals, the burst is back.
    await clock.advance(10_000)
    const t1 = clock.now()
    const again = await drive(limiter, clock, 4, 1)
    expect(again.map((t) => t - t1)).toEqual([0, 0, 0, 3_000])
  })

  it('never puts more than the limit into any sliding window, and spreads it over the window', async () => {
    const clock = new ManualClock()
    const limiter = new TenantRateLimiter({ requests: 60, perSeconds: 60 }, { clock })
    const grants = await drive(limiter, clock, 400, 250)
    expect(maxInWindow(grants, 60_000)).toBeLessThanOrEqual(60)
    // Paced, not a window's worth at once: no 10 s holds more than 10 (+ the burst of 3).
    expect(maxInWindow(grants, 10_000)).toBeLessThanOrEqual(12)
    // And it does not starve: 400 requests take just over 400 intervals of 61/60 s.
    expect(grants[grants.length - 1]! - grants[0]!).toBeLessThan(400 * 1_017 + 1_000)
  })

  it('holds everyone for exactly the Retry-After of a 429, then goes slower and climbs back', async () => {
    const clock = new ManualClock()
    const limiter = new TenantRateLimiter({ requests: 10, perSeconds: 10 }, { clock, marginMs: 0, random: () => 0 })
    await limiter.acquire()
    limiter.penalize(5_000)
    // A Retry-After of half the window: twice the budget was spent; a little more comes off.
    expect(limiter.pace).toBeCloseTo(0.5 * AIMD.startupSafety)
    expect(limiter.status).toMatchObject({ throttled: true, perMinute: 0, limitPerMinute: 60 })
    const start = clock.now()
    const grants = await drive(limiter, clock, 3, 10)
    expect(grants[0]! - start).toBe(5_000)
    // Slower right after: the second request waits over two intervals, not one.
    expect(grants[1]! - grants[0]!).toBeGreaterThan(2_000)
    expect(limiter.stats.rateLimited).toBe(1)
    // Then it climbs, and once the others are gone (no 429 for a few windows) it is back.
    await clock.advance(10_000)
    expect(limiter.pace).toBeGreaterThan(0.45)
    await clock.advance(100_000)
    expect(limiter.pace).toBe(1)
  })

  it('on a window of a few seconds, ends the pause of a whole-second Retry-After half a second early', async () => {
    const clock = new ManualClock()
    const short = new TenantRateLimiter({ requests: 20, perSeconds: 2 }, { clock, random: () => 0 })
    await short.acquire()
    short.penalize(1_000)
    const start = clock.now()
    const grants = await drive(short, clock, 1, 10)
    // Rounded up to the second, the window has room again half a second early on average.
    expect(grants[0]! - start).toBe(500)
    // Not a whole second (so not rounded), or a window long enough for a second not to matter: all of it.
    const exact = new TenantRateLimiter({ requests: 20, perSeconds: 2 }, { clock, random: () => 0 })
    await exact.acquire()
    exact.penalize(1_300)
    expect(exact.delayMs()).toBe(1_300)
    const long = new TenantRateLimiter({ requests: 60, perSeconds: 12 }, { clock, random: () => 0 })
    await long.acquire()
    long.penalize(1_000)
    expect(long.delayMs()).toBe(1_000)
  })

  it('takes a lone 429 with a short Retry-After as a window finer than ours: a lower ceiling, regrowing', async () => {
    const clock = new ManualClock()
    const limiter = new TenantRateLimiter({ requests: 10, perSeconds: 10 }, { clock, marginMs: 0 })
    const start = clock.now()
    limiter.penalize(1_000)
    expect(limiter.pace).toBeCloseTo(AIMD.ceilingDecrease)
    const grants = await drive(limiter, clock, 8, 10)
    expect(grants[0]! - start).toBe(1_000)
    // Requests keep going a little slower than the configured pace: that is the learnt margin.
    const gaps = grants.slice(1).map((t, i) => t - grants[i]!)
    for (const g of gaps) expect(g).toBeGreaterThan(1_000)
    // The ceiling climbs back a point per window.
    const after = limiter.pace
    await clock.advance(10_000)
    expect(limiter.pace).toBeCloseTo(after + AIMD.ceilingGrowth)
    await clock.advance(50_000)
    expect(limiter.pace).toBe(1)
    expect(limiter.status).toEqual({ perMinute: 60, limitPerMinute: 60, throttled: false })
  })

  it("tells its own 429s from others': a full window of its own lowers the ceiling, a small share retreats", async () => {
    const limit = { requests: 10, perSeconds: 10 }
    const after429 = async (ownRequests: number): Promise<TenantRateLimiter> => {
      const clock = new ManualClock()
      const limiter = new TenantRateLimiter(limit, { clock, marginMs: 0, random: () => 0 })
      // A window and more of sending: the last window holds `ownRequests` of ours.
      await drive(limiter, clock, 10, 10)
      await clock.advance(10_000 - ownRequests * 1_000)
      await drive(limiter, clock, ownRequests, 10)
      limiter.penalize(1_000)
      return limiter
    }
    // Ours alone filled it: the service counts finer than we were told.
    expect((await after429(10)).pace).toBeCloseTo(AIMD.ceilingDecrease)
    // A small part of it was ours: another workstation spends the tenant's budget too, and the
    // pace retreats below what got through lately.
    const retreated = await after429(3)
    expect(retreated.pace).toBeLessThan(0.5)
    expect(retreated.status.throttled).toBe(true)
  })

  it('does not cut again for a retried request meeting the same full window before it climbed', async () => {
    const clock = new ManualClock()
    const limiter = new TenantRateLimiter({ requests: 10, perSeconds: 10 }, { clock, marginMs: 0, random: () => 0 })
    limiter.penalize(5_000)
    const cut = limiter.pace
    await clock.advance(5_000)
    limiter.penalize(1_000)
    expect(limiter.pace).toBe(cut)
    // Once it has climbed, a 429 cuts again.
    await clock.advance(40_000)
    expect(limiter.pace).toBeGreaterThan(cut * 1.05)
    limiter.penalize(5_000)
    expect(limiter.pace).toBeLessThan(cut)
  })

  it('sharing the tenant, a short Retry-After gives back the climb since the last 429, not a share of the pace', () => {
    const window = 10_000
    const control = new PaceControl(
      () => window,
      () => 0
    )
    // A first collision: half the window left, the pace comes down to its share.
    control.throttled(0, 5_000, 5_000, null)
    const floor = control.at(5_000)
    expect(floor).toBeCloseTo(0.5 * AIMD.startupSafety)
    // Hit again a window later (climbed a little): back to just under the last floor, where
    // a cut by a factor (the overload a 1 s Retry-After shows) would take it much lower.
    const p1 = control.at(15_000)
    expect(p1).toBeGreaterThan(floor * 1.02)
    control.throttled(15_000, 16_000, 1_000, 0.4)
    const second = control.at(16_000)
    expect(second).toBeCloseTo(floor * AIMD.takeBack)
    expect(second).toBeGreaterThan(p1 * (1 - 1_000 / window) * AIMD.overloadSafety)
    // One that climbed for long gives it all back, within the range of the pace now.
    const p2 = control.at(96_000)
    expect(p2).toBeGreaterThan(second * 1.2)
    control.throttled(96_000, 97_000, 1_000, 0.4)
    expect(control.at(97_000)).toBeCloseTo(Math.max(p2 * AIMD.takeBackRange[0], second * AIMD.takeBack))
    // Not bounded by what got through lately: that took most from the one that had sent least.
    const p3 = control.at(120_000)
    const floor3 = control.at(97_000)
    control.throttled(120_000, 121_000, 1_000, 0.3, 0.1)
    expect(control.at(121_000)).toBeCloseTo(
      Math.min(p3 * AIMD.takeBackRange[1], Math.max(p3 * AIMD.takeBackRange[0], floor3 * AIMD.takeBack))
    )
    expect(control.at(121_000)).toBeGreaterThan(0.1)
    // A longer Retry-After still cuts by the overload it shows.
    const p4 = control.at(150_000)
    control.throttled(150_000, 154_000, 4_000, 0.3)
    expect(control.at(154_000)).toBeCloseTo(p4 * Math.min(AIMD.decrease, 0.6 * AIMD.overloadSafety))
  })

  it('takes the same cut in a first collision whichever whole second its Retry-After was rounded to', () => {
    // Four workstations starting at once fill a 12 s window in about 4 s: Retry-Afters of 8 s
    // and 9 s (whole seconds) around the same collision show overloads of 2.9 and 3.8.
    const window = 12_240
    const cut = (retryAfterMs: number): number => {
      const control = new PaceControl(
        () => window,
        () => 0
      )
      control.throttled(0, retryAfterMs, retryAfterMs, null)
      return control.at(retryAfterMs)
    }
    expect(cut(8_000)).toBe(cut(9_000))
    expect(cut(8_000)).toBeCloseTo(AIMD.startupSafety / 4)
    // Two starting at once (6 s left): half each; a lone short one is no collision of others.
    expect(cut(6_000)).toBeCloseTo(AIMD.startupSafety / 2)
    expect(startupPace(1_500, window)).toBe(AIMD.decrease)
  })

  it('after a 429 of others, sends one request alone until one gets through, when told of answers', async () => {
    const clock = new ManualClock()
    const limiter = new TenantRateLimiter({ requests: 10, perSeconds: 1 }, { clock, marginMs: 0, random: () => 0 })
    await limiter.acquire()
    limiter.settle()
    await limiter.acquire()
    // Its answer: a 429 with half the window to wait, so others spend the other half.
    limiter.settle()
    limiter.penalize(500)
    let second = false
    const first = limiter.acquire()
    void limiter.acquire().then(() => (second = true))
    await clock.advance(5_000)
    await first
    // The first went after the pause; the next waits for its answer however long it takes.
    expect(second).toBe(false)
    limiter.settle() // answered, no 429
    await clock.advance(1_000)
    expect(second).toBe(true)
    // Through: the next ones go on the schedule again without waiting for answers.
    let third = false
    void limiter.acquire().then(() => (third = true))
    await clock.advance(1_000)
    expect(third).toBe(true)
  })

  it('counts the 429s of requests already under way as one signal', () => {
    const clock = new ManualClock()
    const limiter = new TenantRateLimiter({ requests: 10, perSeconds: 10 }, { clock, marginMs: 0 })
    limiter.penalize(1_000)
    const after = limiter.pace
    limiter.penalize(1_000)
    limiter.penalize(1_000)
    expect(limiter.pace).toBe(after)
    expect(limiter.stats.rateLimited).toBe(3)
  })

  it('bounds a Retry-After to a few windows', async () => {
    const clock = new ManualClock()
    const limiter = new TenantRateLimiter({ requests: 10, perSeconds: 10 }, { clock, marginMs: 0 })
    limiter.penalize(3_600_000)
    expect(limiter.delayMs()).toBe(30_000)
    limiter.hold(-5)
    expect(limiter.delayMs()).toBe(30_000)
  })

  it('holds for a 503 Retry-After without slowing down', async () => {
    const clock = new ManualClock()
    const limiter = new TenantRateLimiter({ requests: 10, perSeconds: 10 }, { clock, marginMs: 0 })
    limiter.hold(2_500)
    const start = clock.now()
    const grants = await drive(limiter, clock, 2, 10)
    expect(grants[0]! - start).toBe(2_500)
    expect(grants[1]! - grants[0]!).toBe(1_000)
    expect(limiter.pace).toBe(1)
  })

  it('waits for the reset when the service says its window is spent', async () => {
    const clock = new ManualClock()
    const limiter = new TenantRateLimiter({ requests: 10, perSeconds: 10 }, { clock, marginMs: 0 })
    limiter.learn({ remaining: 3, resetMs: 4_000 })
    expect(limiter.delayMs()).toBe(0)
    limiter.learn({ remaining: 0, resetMs: 4_000 })
    expect(limiter.delayMs()).toBe(4_000)
    expect(limiter.pace).toBe(1)
    expect(limiter.status.throttled).toBe(false)
  })

  it('cancels a waiting acquire without spending a slot', async () => {
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
  it('holds a 429 for its Retry-After, one window without one, never past the cap', () => {
    const limit = { requests: 60, perSeconds: 60 }
    expect(holdCapMs(limit)).toBe(180_000)
    expect(holdCapMs({ requests: 10, perSeconds: 1 })).toBe(5_000)
    expect(retryAfterHoldMs('7', now, limit)).toBe(7_000)
    expect(retryAfterHoldMs('Thu, 01 Jan 2026 00:00:42 GMT', now, limit)).toBe(42_000)
    expect(retryAfterHoldMs(null, now, limit)).toBe(60_000)
    expect(retryAfterHoldMs('-3', now, limit)).toBe(60_000)
    expect(retryAfterHoldMs('banana', now, limit)).toBe(60_000)
    expect(retryAfterHoldMs('86400', now, limit)).toBe(180_000)
    expect(retryAfterHoldMs('Fri, 01 Jan 2027 00:00:00 GMT', now, limit)).toBe(180_000)
  })
})

describe('readRateHeaders', () => {
  const now = Date.parse('2026-01-01T00:00:00Z')
  const h = (o: Record<string, string>): Headers => new Headers(o)
  it('reads RateLimit-* and X-RateLimit-* (delta seconds or epoch seconds)', () => {
    expect(readRateHeaders(h({ 'RateLimit-Remaining': '0', 'RateLimit-Reset': '12' }), now)).toEqual({ remaining: 0, resetMs: 12_000 })
    expect(readRateHeaders(h({ 'X-RateLimit-Remaining': '5', 'X-RateLimit-Reset': String(now / 1000 + 30) }), now)).toEqual({
      remaining: 5,
      resetMs: 30_000
    })
    expect(readRateHeaders(h({ RateLimit: '"default";r=0;t=7' }), now)).toEqual({ remaining: 0, resetMs: 7_000 })
    expect(readRateHeaders(h({ RateLimit: 'limit=60, remaining=2, reset=9' }), now)).toEqual({ remaining: 2, resetMs: 9_000 })
  })
  it('ignores absent and unreadable values', () => {
    expect(readRateHeaders(h({}), now)).toBeNull()
    expect(readRateHeaders(h({ 'RateLimit-Remaining': 'many', 'RateLimit-Reset': '-4' }), now)).toBeNull()
    expect(readRateHeaders(h({ 'RateLimit-Remaining': '3' }), now)).toEqual({ remaining: 3, resetMs: null })
  })
})
