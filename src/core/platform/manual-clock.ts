import { cancelled } from '../errors'
import type { Clock } from './index'

interface Sleeper {
  at: number
  seq: number
  resolve: () => void
}

/**
 * A clock that only moves when a test moves it, so waits of minutes (Retry-After, backoff,
 * token expiry) run in microseconds and deterministically.
 */
export class ManualClock implements Clock {
  private current: number
  private seq = 0
  private sleepers: Sleeper[] = []

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.current = start
  }

  now(): number {
    return this.current
  }

  /** How many sleeps are pending; lets a test wait until code under test has parked. */
  get pending(): number {
    return this.sleepers.length
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(cancelled())
      const sleeper: Sleeper = {
        at: this.current + Math.max(0, ms),
        seq: this.seq++,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort)
          resolve()
        }
      }
      const onAbort = (): void => {
        this.sleepers = this.sleepers.filter((s) => s !== sleeper)
        reject(cancelled())
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      this.sleepers.push(sleeper)
    })
  }

  /**
   * Moves time forward by ms, waking sleepers in order of their deadline and letting the
   * promise continuations of each run before the next wakes (they may schedule new sleeps).
   */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms
    for (;;) {
      await flushMicrotasks()
      const due = this.sleepers.filter((s) => s.at <= target).sort((a, b) => a.at - b.at || a.seq - b.seq)[0]
      if (!due) break
      this.sleepers = this.sleepers.filter((s) => s !== due)
      this.current = Math.max(this.current, due.at)
      due.resolve()
    }
    this.current = target
    await flushMicrotasks()
  }

  /** Advances until no sleeper is left (or the step limit is hit), in steps of `stepMs`. */
  async runAll(stepMs = 1000, maxSteps = 10_000): Promise<void> {
    for (let i = 0; i < maxSteps && this.sleepers.length > 0; i++) await this.advance(stepMs)
  }
}

async function flushMicrotasks(): Promise<void> {
  // setImmediate runs after every queued microtask, including chains several promises deep.
  await new Promise<void>((resolve) => setImmediate(resolve))
}
