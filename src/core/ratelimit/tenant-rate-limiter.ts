import type { Clock } from '../platform'
import { systemClock } from '../platform/node'
import type { RateLimit } from '../../shared/domain'
import { PaceControl } from './pace-control'
import type { LimiterStatus, LimiterWait, RateHint, RequestPacer, TenantRateLimiterOptions } from './pacer'
import { holdCapMs } from './retry-after'
import { SlotSchedule } from './slot-schedule'
import { WaiterQueue } from './waiter-queue'

/** Waits shorter than this are the schedule's ordinary spacing, not news for the progress. */
const REPORTED_WAIT_MS = 1_000

/**
 * Three requests at once (a sign-in and the first page or two), never more than the limit:
 * burst × interval stays within the configured window (3 s of it at 60 per 60 s), so the
 * schedule is safe against any window that long or longer.
 */
export function defaultBurst(limit: RateLimit): number {
  return Math.max(1, Math.min(3, Math.floor(limit.requests)))
}

/**
 * How long a 429 holds the tenant's requests. A Retry-After in whole seconds (as most services
 * send it) is rounded up: the window has room again somewhere in its last second, half a second
 * early on average. Where that second is a quarter of the window or more (a window of a few
 * seconds), waiting all of it leaves the tenant idle for a good part of every window that meets
 * a 429, so the pause ends half a second early; a request that still meets the full window is
 * told to wait again, and the pace's cut reads the header as sent. Longer windows wait it all.
 */
export function roundedPauseMs(retryAfterMs: number, windowMs: number): number {
  const wholeSeconds = retryAfterMs >= 1_000 && retryAfterMs % 1_000 === 0
  return wholeSeconds && 4 * 1_000 >= windowMs ? retryAfterMs - 500 : retryAfterMs
}

/**
 * One per tenant: the requests of the app's sync, remote search and export (or of one CLI
 * run) spend one budget.
 *
 * Requests are spread evenly over the window (SlotSchedule): one every (window + margin) /
 * requests, a small burst after an idle spell, so a single interactive request goes at once.
 * A 429 holds every request of the tenant for its Retry-After (bounded by holdCapMs), then
 * the pace drops and climbs back (PaceControl). A 503's Retry-After and a response saying
 * the service's window is spent (rate-limit headers) hold the requests without a slower pace.
 * docs/client.md explains the schedule and why.
 */
export class TenantRateLimiter implements RequestPacer {
  private limitValue: RateLimit
  private readonly clock: Clock
  private readonly margin: number | undefined
  private readonly burstOption: number | undefined
  private readonly onWait: ((w: LimiterWait) => void) | undefined
  private readonly schedule = new SlotSchedule()
  private readonly control: PaceControl
  private readonly queue: WaiterQueue
  private pausedUntil = 0
  private pauseIsRetryAfter = false
  private grantedCount = 0
  private penaltyCount = 0
  /** Grant times over the last window, oldest first, and the 429s among them (see ownShare). */
  private recentGrants: number[] = []
  private recentRefusals: number[] = []
  private firstGrantAt: number | null = null
  /** Granted requests whose answer is not in yet (settle). */
  private outstanding = 0
  private wakeOnSettle: (() => void) | null = null
  /** Set by the first settle(): the caller reports answers, so requests in flight can be counted. */
  private tracksAnswers = false
  /** After a 429 of others' making, until a request is answered without one (see oneAtATime). */
  private probing = false

  constructor(limit: RateLimit, opts: TenantRateLimiterOptions = {}) {
    this.limitValue = { ...limit }
    this.clock = opts.clock ?? systemClock
    this.margin = opts.marginMs
    this.burstOption = opts.burst
    this.onWait = opts.onWait
    this.control = new PaceControl(() => this.windowMs, opts.random)
    this.queue = new WaiterQueue(this.clock, {
      delayMs: () => this.delayMs(),
      blocked: () => (this.oneAtATime() ? new Promise<void>((resolve) => (this.wakeOnSettle = resolve)) : null),
      granted: () => this.granted(),
      waiting: (ms) => {
        const retryAfter = this.pauseIsRetryAfter && this.pausedUntil > this.clock.now()
        if (retryAfter || ms >= REPORTED_WAIT_MS) this.onWait?.({ reason: retryAfter ? 'retryAfter' : 'limit', ms })
      }
    })
  }

  get limit(): RateLimit {
    return { ...this.limitValue }
  }

  /** The share of the configured limit used now: 1, or less for a while after a 429. */
  get pace(): number {
    return this.control.at(this.clock.now())
  }

  get status(): LimiterStatus {
    const limitPerMinute = (this.limitValue.requests / this.limitValue.perSeconds) * 60
    const pace = this.pace
    const held = this.pauseIsRetryAfter && this.pausedUntil > this.clock.now()
    return { perMinute: held ? 0 : limitPerMinute * pace, limitPerMinute, throttled: held || pace < 1 }
  }

  get stats(): { granted: number; rateLimited: number; queued: number } {
    return { granted: this.grantedCount, rateLimited: this.penaltyCount, queued: this.queue.length }
  }

  setLimit(limit: RateLimit): void {
    this.limitValue = { ...limit }
  }

  private get marginMs(): number {
    return this.margin ?? Math.min(1000, Math.max(100, this.limitValue.perSeconds * 1000 * 0.02))
  }

  /** The configured window plus the margin for travel time. */
  private get windowMs(): number {
    return this.limitValue.perSeconds * 1000 + this.marginMs
  }

  /** Milliseconds between requests at the current pace. */
  private interval(now: number): number {
    return this.windowMs / (this.limitValue.requests * this.control.at(now))
  }

  private burst(now: number): number {
    if (this.control.at(now) < 1) return 1
    return Math.max(1, Math.floor(this.burstOption ?? defaultBurst(this.limitValue)))
  }

  /** How long from now until a request may go, 0 when one may go at once. */
  delayMs(): number {
    const now = this.clock.now()
    return Math.max(this.pausedUntil - now, this.schedule.delay(now), 0)
  }

  acquire(signal?: AbortSignal): Promise<void> {
    return this.queue.acquire(signal)
  }

  penalize(retryAfterMs: number): void {
    const now = this.clock.now()
    const ms = Math.min(Math.max(0, retryAfterMs), holdCapMs(this.limitValue))
    this.penaltyCount++
    this.recentRefusals.push(now)
    // The 429s of requests already on their way when the first came are one signal, not several.
    const fresh = !(this.pauseIsRetryAfter && this.pausedUntil > now)
    this.pause(now + roundedPauseMs(ms, this.windowMs), true)
    if (fresh) {
      this.control.throttled(now, this.pausedUntil, ms, this.ownShare(now), this.admittedPace(now))
      this.probing = this.control.retreating(now)
    }
  }

  /** A granted request's answer (or failure) is in. */
  settle(): void {
    this.tracksAnswers = true
    this.outstanding = Math.max(0, this.outstanding - 1)
    // The client reports a 429 right after its settle, in the same turn: if none came, this
    // answer got through, and the probe after the last 429 is done.
    const penalties = this.penaltyCount
    queueMicrotask(() => {
      if (this.penaltyCount === penalties) this.probing = false
    })
    const wake = this.wakeOnSettle
    this.wakeOnSettle = null
    wake?.()
  }

  /**
   * The share of the configured limit our own admitted requests took in the last window, or
   * null before we have sent for a whole window (too early to tell ours from others').
   */
  private ownShare(now: number): number | null {
    if (this.firstGrantAt === null || now - this.firstGrantAt < this.windowMs) return null
    const since = now - this.windowMs
    this.recentGrants = this.recentGrants.filter((t) => t > since)
    this.recentRefusals = this.recentRefusals.filter((t) => t > since)
    return Math.max(0, this.recentGrants.length - this.recentRefusals.length) / this.limitValue.requests
  }

  /**
   * The pace our admitted requests came at over the last window (or since the first, once a
   * quarter of a window has passed), against the configured limit; null before.
   */
  private admittedPace(now: number): number | null {
    if (this.firstGrantAt === null) return null
    const span = Math.min(this.windowMs, now - this.firstGrantAt)
    if (span < this.windowMs / 4) return null
    const since = now - span
    const admitted = this.recentGrants.filter((t) => t > since).length - this.recentRefusals.filter((t) => t > since).length
    return (Math.max(0, admitted) / span) * (this.windowMs / this.limitValue.requests)
  }

  hold(ms: number): void {
    const now = this.clock.now()
    this.pause(now + Math.min(Math.max(0, ms), holdCapMs(this.limitValue)), true)
  }

  learn(hint: RateHint): void {
    if (hint.remaining === null) return
    if (hint.remaining <= 1) this.schedule.dropBurst()
    if (hint.remaining === 0 && hint.resetMs !== null && hint.resetMs > 0) {
      const now = this.clock.now()
      this.pause(now + Math.min(hint.resetMs, holdCapMs(this.limitValue)), false)
    }
  }

  private pause(until: number, retryAfter: boolean): void {
    if (until > this.pausedUntil) {
      this.pausedUntil = until
      this.pauseIsRetryAfter = retryAfter
    }
    this.schedule.holdUntil(this.pausedUntil)
  }

  /**
   * After a 429 of others' making the first request after the pause goes alone, and the next
   * waits for its answer: a sync keeps several pages in flight, and those sent into a window
   * that is still full would meet 429s of their own. Only until one gets through: a slow
   * answer must not cap the pace for long.
   */
  private oneAtATime(): boolean {
    return this.tracksAnswers && this.probing && this.outstanding > 0
  }

  private granted(): void {
    const now = this.clock.now()
    // A late grant (a timer firing late) keeps the grid up to a tenth of the margin: a window a
    // sixth of ours (10 of our 60 requests) still has 60 % of its share of the margin left.
    this.schedule.take(now, this.interval(now), this.burst(now), this.marginMs / 10)
    this.grantedCount++
    this.outstanding++
    this.firstGrantAt ??= now
    this.recentGrants.push(now)
    // Bounded: only the last window's grants are ever counted.
    if (this.recentGrants.length > 4 * this.limitValue.requests) this.ownShare(now)
  }
}

function tenantKey(baseUrl: string): string {
  try {
    const u = new URL(baseUrl)
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`.toLowerCase()
  } catch {
    return baseUrl.trim().replace(/\/+$/, '').toLowerCase()
  }
}

/** Limiters keyed by the tenant's base URL, so every part of the app shares one budget. */
export class RateLimiterRegistry {
  private readonly limiters = new Map<string, TenantRateLimiter>()

  constructor(private readonly defaults: TenantRateLimiterOptions = {}) {}

  /** The tenant's limiter, created on first use; a changed limit is applied to the existing one. */
  forTenant(baseUrl: string, limit: RateLimit): TenantRateLimiter {
    const key = tenantKey(baseUrl)
    let l = this.limiters.get(key)
    if (!l) {
      l = new TenantRateLimiter(limit, this.defaults)
      this.limiters.set(key, l)
    } else if (l.limit.requests !== limit.requests || l.limit.perSeconds !== limit.perSeconds) {
      l.setLimit(limit)
    }
    return l
  }

  forget(baseUrl: string): void {
    this.limiters.delete(tenantKey(baseUrl))
  }
}

/** The process-wide registry the app and CLI use. */
export const tenantLimiters = new RateLimiterRegistry()
