import type { RateLimit } from '../../shared/domain'

/**
 * Rates and the ETA of one run. The ETA is remaining pages times the slower of the
 * tenant's allowed pace and the pace seen so far; remaining pages come from the envelope's
 * totalCount when it has one, else from the density of calls seen so far.
 */
export class ProgressMeter {
  private readonly startedAt: number
  private stored = 0
  private requests = 0
  private seenSpanMs = 0
  private seenRecords = 0

  constructor(
    private readonly now: () => number,
    private readonly rateLimit: RateLimit,
    private readonly pageSize: number
  ) {
    this.startedAt = now()
  }

  get counts(): { stored: number; requests: number } {
    return { stored: this.stored, requests: this.requests }
  }

  addRequest(): void {
    this.requests++
  }

  addStored(n: number): void {
    this.stored += n
  }

  /** Records seen across a span of the range: the density used when no totalCount exists. */
  observe(records: number, spanMs: number): void {
    this.seenRecords += records
    this.seenSpanMs = Math.max(this.seenSpanMs, spanMs)
  }

  get elapsedSeconds(): number {
    return Math.max(0.001, (this.now() - this.startedAt) / 1000)
  }

  get requestsPerMinute(): number {
    return (this.requests / this.elapsedSeconds) * 60
  }

  get recordsPerSecond(): number {
    return this.stored / this.elapsedSeconds
  }

  /**
   * What is left: calls and the requests to fetch them, null until it can be estimated.
   * @param remainingInWindow records the envelope says are left from the current position
   * @param remainingSpanMs the part of the range not yet reached
   */
  remaining(remainingInWindow: number | null, remainingSpanMs: number): { calls: number; requests: number } | null {
    let records: number
    if (remainingInWindow !== null) records = remainingInWindow
    else if (this.seenSpanMs > 0 && this.seenRecords > 0) records = (this.seenRecords / this.seenSpanMs) * remainingSpanMs
    else return null
    const calls = Math.max(0, Math.round(records))
    return { calls, requests: Math.ceil(calls / this.pageSize) }
  }

  /** The time the remaining requests take at the slower of the allowed and the observed pace. */
  etaSeconds(remainingInWindow: number | null, remainingSpanMs: number): number | null {
    const left = this.remaining(remainingInWindow, remainingSpanMs)
    if (left === null) return null
    const allowed = this.rateLimit.perSeconds / this.rateLimit.requests
    const observed = this.requests >= 5 ? this.elapsedSeconds / this.requests : 0
    return left.requests * Math.max(allowed, observed)
  }
}
