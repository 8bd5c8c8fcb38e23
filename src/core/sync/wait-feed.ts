import type { WaitSource } from './ports'

/**
 * Bridges the tenant limiter's onWait callback to whichever sync run is listening, so the
 * progress can say "waiting 12 s for the rate limit" while the session holds a request.
 */
export class WaitFeed implements WaitSource {
  private readonly listeners = new Set<(waitMs: number) => void>()

  /** Pass as TenantRateLimiter's `onWait`. */
  readonly emit = (w: { ms: number }): void => {
    for (const l of this.listeners) l(w.ms)
  }

  subscribe(listener: (waitMs: number) => void): () => void {
    this.listeners.add(listener)
    return () => {
      this.listeners.delete(listener)
    }
  }
}
