import type { Clock } from '../../src/core/platform'
import { systemClock } from '../../src/core/platform/node'
import type { RateLimit } from '../../src/shared/domain'
import type { LimiterStatus, LimiterWait, RequestPacer, TenantRateLimiterOptions } from '../../src/core/ratelimit/pacer'
import { WaiterQueue } from '../../src/core/ratelimit/waiter-queue'

/**
 * The limiter before the tenant's limit was shared between its clients, kept as the same-run baseline of `npm run bench -- --only
 * pacing` (through the bench's own CLI entry, cli-legacy-limiter.ts) and of pacing-sim.
 *
 * One per tenant. A token bucket of `requests` tokens where each spent token comes back one
 * window (`perSeconds` plus a margin) after it was spent. That is the strict form of the
 * bucket: a plain refill-per-second bucket would allow up to twice the limit inside one
 * sliding window, and the service would answer 429.
 *
 * After a 429 (other workstations of the tenant share the same budget) every waiter pauses
 * for Retry-After and the bucket shrinks to 70% of its size; it grows back by a tenth every
 * two clean windows.
 */
export class LegacyTenantRateLimiter implements RequestPacer {
  private limitValue: RateLimit
  private readonly clock: Clock
  private readonly margin: number | undefined
  private readonly onWait: ((w: LimiterWait) => void) | undefined
  private spent: number[] = []
  private readonly queue: WaiterQueue
  private pausedUntil = 0
  private paceValue = 1
  private lastAdjustAt = 0
  private grantedCount = 0
  private penaltyCount = 0

  constructor(limit: RateLimit, opts: TenantRateLimiterOptions = {}) {
    this.limitValue = { ...limit }
    this.clock = opts.clock ?? systemClock
    this.margin = opts.marginMs
    this.onWait = opts.onWait
    this.queue = new WaiterQueue(this.clock, {
      delayMs: () => this.delayMs(),
      granted: () => this.granted(),
      waiting: (ms) => this.onWait?.({ reason: this.pausedUntil > this.clock.now() ? 'retryAfter' : 'limit', ms })
    })
  }

  get limit(): RateLimit {
    return { ...this.limitValue }
  }

  /** The share of the configured limit currently used, 1 when no 429 has been seen lately. */
  get pace(): number {
    return this.paceValue
  }

  get stats(): { granted: number; rateLimited: number; queued: number } {
    return { granted: this.grantedCount, rateLimited: this.penaltyCount, queued: this.queue.length }
  }

  get status(): LimiterStatus {
    const perMinute = (this.limitValue.requests / this.limitValue.perSeconds) * 60
    return { perMinute: perMinute * this.paceValue, limitPerMinute: perMinute, throttled: this.paceValue < 1 }
  }

  /** The old limiter knew only 429s: a 503's Retry-After and rate-limit headers are not read. */
  hold(): void {}

  learn(): void {}

  setLimit(limit: RateLimit): void {
    this.limitValue = { ...limit }
  }

  private get windowMs(): number {
    const w = this.limitValue.perSeconds * 1000
    return w + (this.margin ?? Math.min(1000, Math.max(100, w * 0.02)))
  }

  private get capacity(): number {
    return Math.max(1, Math.floor(this.limitValue.requests * this.paceValue))
  }

  /** How long from now until a request may go, 0 when one may go at once. */
  delayMs(): number {
    const now = this.clock.now()
    const window = this.windowMs
    this.spent = this.spent.filter((t) => t > now - window)
    let wait = Math.max(0, this.pausedUntil - now)
    if (this.spent.length >= this.capacity) {
      const oldestThatMustExpire = this.spent[this.spent.length - this.capacity]!
      wait = Math.max(wait, oldestThatMustExpire + window - now)
    }
    return wait
  }

  /** Resolves when a request may be sent; rejects with Cancelled if the signal aborts first. */
  acquire(signal?: AbortSignal): Promise<void> {
    return this.queue.acquire(signal)
  }

  /** A 429 was received: hold every request for Retry-After, then go slower. */
  penalize(retryAfterMs: number): void {
    const now = this.clock.now()
    this.penaltyCount++
    this.pausedUntil = Math.max(this.pausedUntil, now + Math.max(0, retryAfterMs))
    this.paceValue = Math.max(1 / this.limitValue.requests, this.paceValue * 0.7)
    this.lastAdjustAt = now
  }

  private granted(): void {
    const now = this.clock.now()
    this.spent.push(now)
    this.grantedCount++
    if (this.paceValue < 1 && now - this.lastAdjustAt >= 2 * this.windowMs) {
      this.paceValue = Math.min(1, this.paceValue + 0.1)
      this.lastAdjustAt = now
    }
  }
}
