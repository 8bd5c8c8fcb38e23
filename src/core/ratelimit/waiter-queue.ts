import { cancelled } from '../errors'
import type { Clock } from '../platform'

/** What decides when the head of a limiter's queue may go. */
export interface QueueGate {
  /** Milliseconds until a request may go by the clock; 0 when one may go now. */
  delayMs(): number
  /** When one may go by the clock but must wait for something else: resolves when that is done. */
  blocked?(): Promise<void> | null
  /** The head of the queue goes now. */
  granted(): void
  /** The queue sleeps `ms` before the next request may go. */
  waiting?(ms: number): void
}

interface Waiter {
  resolve: () => void
  reject: (e: unknown) => void
  signal: AbortSignal | undefined
  onAbort: () => void
}

/**
 * The requests waiting on a tenant's limiter, first come first served. A cancelled waiter
 * leaves the queue without spending a slot. One pump at a time grants the head whenever the
 * gate allows, sleeping on the clock in between (a manual clock in the tests).
 */
export class WaiterQueue {
  private waiters: Waiter[] = []
  private pumping = false

  constructor(
    private readonly clock: Clock,
    private readonly gate: QueueGate
  ) {}

  get length(): number {
    return this.waiters.length
  }

  /** Resolves when the request may be sent; rejects with Cancelled if the signal aborts first. */
  acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(cancelled('The request'))
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        signal,
        onAbort: () => {
          this.waiters = this.waiters.filter((w) => w !== waiter)
          reject(cancelled('The request'))
        }
      }
      signal?.addEventListener('abort', waiter.onAbort, { once: true })
      this.waiters.push(waiter)
      void this.pump()
    })
  }

  private async pump(): Promise<void> {
    if (this.pumping) return
    this.pumping = true
    try {
      while (this.waiters.length > 0) {
        const wait = this.gate.delayMs()
        if (wait > 0) {
          this.gate.waiting?.(wait)
          await this.clock.sleep(wait)
          continue
        }
        const blocked = this.gate.blocked?.()
        if (blocked) {
          await blocked
          continue
        }
        const w = this.waiters.shift()!
        this.gate.granted()
        w.signal?.removeEventListener('abort', w.onAbort)
        w.resolve()
      }
    } finally {
      this.pumping = false
    }
  }
}
