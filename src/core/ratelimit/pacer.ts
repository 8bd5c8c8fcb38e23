import type { Clock } from '../platform'
import type { RateLimit, SyncPace } from '../../shared/domain'

export interface LimiterWait {
  reason: 'limit' | 'retryAfter'
  ms: number
}

/** The pace the tenant's requests go at now, against the configured limit (the sync progress shows it). */
export type LimiterStatus = SyncPace

/** What a response's rate-limit headers said (see rate-headers.ts); null when absent. */
export interface RateHint {
  /** Requests left in the service's current window. */
  remaining: number | null
  /** Milliseconds until that window resets. */
  resetMs: number | null
}

export interface TenantRateLimiterOptions {
  clock?: Clock
  /**
   * Extra time added to the window. The service counts arrivals, we count departures; a
   * request that travels slower than the one a window later would otherwise land inside the
   * service's window and be the one too many.
   */
  marginMs?: number
  /** Requests that may go at once after an idle spell; default from the limit (1 to 3). */
  burst?: number
  onWait?: (w: LimiterWait) => void
  /** Desynchronises workstations' climbs after a 429 (tests pass a seeded one); Math.random by default. */
  random?: () => number
}

/** What the service client needs from a tenant's limiter (the current one and the legacy baseline). */
export interface RequestPacer {
  readonly limit: RateLimit
  readonly status: LimiterStatus
  /** Resolves when a request may be sent; rejects with Cancelled if the signal aborts first. */
  acquire(signal?: AbortSignal): Promise<void>
  /** A 429 came back: hold the tenant's requests this long (already bounded), then go slower. */
  penalize(retryAfterMs: number): void
  /** Hold the tenant's requests this long without changing the pace (a 503's Retry-After). */
  hold(ms: number): void
  /** A response carried rate-limit headers. */
  learn(hint: RateHint): void
  /**
   * The answer to a granted request is in (or it failed). Optional: a pacer that is told
   * keeps one request on its way at a time while it is slowed down by others' use.
   */
  settle?(): void
}
