import { CallsightError } from '../errors'

/** How long a person's request waits for the tenant's limit before it gives up. */
export interface RateWaitBudget {
  /** 429 answers waited out; the next one ends the request. */
  maxWaits: number
  /** Waiting in all, in milliseconds. */
  maxWaitMs: number
}

/** A live search: two waits, two minutes at most. */
export const INTERACTIVE_RATE_WAITS: RateWaitBudget = { maxWaits: 2, maxWaitMs: 120_000 }

/**
 * A person's request (a live search) while others spend the tenant's limit (the team worker,
 * other workstations): the service client already waits a 429's Retry-After and tries again.
 * This guard makes that wait visible and bounded. It is told each 429 (`rateLimited`) and each
 * hold of the limiter (`waiting`); it tells `onWaiting` the whole seconds left, once a second,
 * and null when the wait is over; and it gives up — aborting `signal` — at the 429 past
 * `maxWaits` or once the waits would pass `maxWaitMs`, so `failure` turns the abort into an
 * error that says why.
 */
export class RateWaitGuard {
  private readonly abort = new AbortController()
  readonly signal: AbortSignal
  private waits = 0
  private waitedMs = 0
  private until = 0
  private timer: ReturnType<typeof setInterval> | null = null
  private gaveUp: CallsightError | null = null

  constructor(
    private readonly onWaiting: (secondsLeft: number | null) => void,
    private readonly budget: RateWaitBudget = INTERACTIVE_RATE_WAITS,
    outer?: AbortSignal,
    private readonly now: () => number = Date.now
  ) {
    this.signal = outer ? AbortSignal.any([outer, this.abort.signal]) : this.abort.signal
  }

  /** The service answered 429 and asked for `ms`. */
  rateLimited(ms: number): void {
    this.waits++
    this.waitedMs += ms
    if (this.waits > this.budget.maxWaits || this.waitedMs > this.budget.maxWaitMs) {
      const seconds = Math.max(1, Math.ceil(ms / 1000))
      this.gaveUp = new CallsightError(
        'RateLimited',
        `The service's rate limit stayed in use: waited ${this.waits - 1} time(s), ${Math.round((this.waitedMs - ms) / 1000)} s in all; others (the team worker, other workstations) are using the tenant's requests. Try again in ${seconds} s.`,
        { retryAfterSeconds: seconds, status: 429 }
      )
      this.stop()
      this.abort.abort(this.gaveUp)
      return
    }
    // A new wait: the countdown starts again from it (a line of its own where lines are kept).
    this.stop()
    this.until = 0
    this.hold(ms)
  }

  /** The limiter holds the request this long (after a 429, or its own pace). */
  waiting(ms: number): void {
    if (this.waits === 0 || this.gaveUp) return
    this.hold(ms)
  }

  /** The error to report for `e`: the guard's own when it gave up. */
  failure(e: unknown): unknown {
    return this.gaveUp ?? e
  }

  /** The request ended: no more countdown. */
  dispose(): void {
    this.stop()
  }

  private hold(ms: number): void {
    const until = this.now() + ms
    if (until <= this.until) return
    this.until = until
    this.tick()
    if (this.timer === null) {
      this.timer = setInterval(() => this.tick(), 1000)
      this.timer.unref?.()
    }
  }

  private tick(): void {
    const left = Math.ceil((this.until - this.now()) / 1000)
    if (left > 0) {
      this.onWaiting(left)
      return
    }
    this.stop()
  }

  private stop(): void {
    if (this.timer === null) return
    clearInterval(this.timer)
    this.timer = null
    this.onWaiting(null)
  }
}
