/**
 * Where the time of a set of membership passes goes. Every get-calls request is traced from
 * the moment the engine asks for it (queued at the limiter), through its send and the
 * service's answer (headers), to the parsed page handed back. The trace then tells, moment
 * by moment, whether the limiter had a free slot while no request was waiting for one (the
 * client left the limit idle), and why: a page of the same window was still on its way (the
 * pipeline is too shallow for the service's latency), the next window or pass could not be
 * planned until the last page was in, or nothing was in flight (the engine was busy).
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import type { CallsPage, GetCallsParams } from '../src/core/client'
import type { FetchLike } from '../src/core/platform'
import type { SyncSource } from '../src/core/sync'
import { median, percentile } from './types'

export interface RequestTrace {
  pass: string
  /** The window the page belongs to: its end newest first, its start oldest first. */
  window: string
  queued: number
  sent: number | null
  answered: number | null
  returned: number | null
  /** Rejected: dropped by the engine (a guessed page not needed) or failed. */
  aborted: boolean
}

export type IdleCause = 'sameWindow' | 'windowMove' | 'passMove' | 'nothingInFlight'

export interface Profile {
  requests: number
  seconds: number
  /** Milliseconds the limiter had a free slot and no request waited, by cause. */
  idleMs: Record<IdleCause, number>
  /** Send to answer (headers), ms. */
  latency: { median: number; p90: number }
  /** Answer to parsed page, ms. */
  parse: { median: number; p90: number }
  /** Requests sent whose page the engine did not use (guessed past the end, aborted). */
  wasted: number
  /** Send to next send while a request waited at the limiter, ms: the limiter's own spacing as kept. */
  spacing: { median: number; mean: number; late: number }
}

const passOf = (p: GetCallsParams): string =>
  JSON.stringify([p.callTypes ?? [], p.direction ?? null, p.results ?? null, p.hasNewRequest ?? null])

const windowOf = (p: GetCallsParams): string => (p.ascending === false ? `to ${p.to}` : `from ${p.from}`)

/** Wraps the fetch and the source so that each request of the passes leaves its trace. */
export class PassTracer {
  readonly traces: RequestTrace[] = []
  private readonly current = new AsyncLocalStorage<RequestTrace>()

  fetch(inner: FetchLike): FetchLike {
    return async (input, init) => {
      const t = this.current.getStore()
      if (t) t.sent = performance.now()
      const res = await inner(input, init)
      if (t) t.answered = performance.now()
      return res
    }
  }

  source(inner: (p: GetCallsParams, signal?: AbortSignal) => Promise<CallsPage>): SyncSource {
    return {
      getCalls: (p, signal) => {
        const t: RequestTrace = {
          pass: passOf(p),
          window: windowOf(p),
          queued: performance.now(),
          sent: null,
          answered: null,
          returned: null,
          aborted: false
        }
        this.traces.push(t)
        return this.current.run(t, async () => {
          try {
            return await inner(p, signal)
          } catch (e) {
            t.aborted = true
            throw e
          } finally {
            t.returned = performance.now()
          }
        })
      }
    }
  }

  reset(): void {
    this.traces.length = 0
  }

  /**
   * Steps through the run in `stepMs` steps. A slot is free when fewer than `perWindow`
   * requests were sent over the last `windowMs` and none was sent in the last `spacingMs`
   * (the limiter spreads its requests evenly), and idle when no request waits at the limiter.
   */
  profile(perWindow: number, windowMs: number, lateMs: number, stepMs = 5): Profile {
    const ts = this.traces.filter((t) => t.sent !== null)
    const sends = ts.map((t) => t.sent!).sort((a, b) => a - b)
    const start = Math.min(...this.traces.map((t) => t.queued))
    const end = Math.max(...this.traces.map((t) => t.returned ?? t.answered ?? t.queued))
    const spacingMs = windowMs / perWindow
    const idleMs: Record<IdleCause, number> = { sameWindow: 0, windowMove: 0, passMove: 0, nothingInFlight: 0 }
    const byQueue = [...this.traces].sort((a, b) => a.queued - b.queued)
    let lo = 0
    let hi = 0
    let q = 0
    for (let t = start; t < end; t += stepMs) {
      while (hi < sends.length && sends[hi]! <= t) hi++
      while (lo < hi && sends[lo]! <= t - windowMs) lo++
      const slotFree = hi - lo < perWindow && (hi === 0 || t - sends[hi - 1]! >= spacingMs)
      if (!slotFree) continue
      const waiting = this.traces.some((r) => r.queued <= t && (r.sent ?? r.returned ?? Infinity) > t)
      if (waiting) continue
      while (q < byQueue.length && byQueue[q]!.queued <= t) q++
      const before = byQueue[q - 1]
      const after = byQueue[q]
      const inFlight = ts.some((r) => r.sent! <= t && (r.answered ?? Infinity) > t)
      let cause: IdleCause
      if (!inFlight) cause = 'nothingInFlight'
      else if (before && after && before.pass !== after.pass) cause = 'passMove'
      else if (before && after && before.window !== after.window) cause = 'windowMove'
      else cause = 'sameWindow'
      idleMs[cause] += stepMs
    }
    const lat = ts.filter((r) => r.answered !== null).map((r) => r.answered! - r.sent!)
    const parse = ts.filter((r) => r.answered !== null && r.returned !== null).map((r) => r.returned! - r.answered!)
    const busyGaps: number[] = []
    for (let i = 1; i < sends.length; i++) {
      const a = sends[i - 1]!
      if (this.traces.some((r) => r.queued <= a && (r.sent ?? r.returned ?? Infinity) > a)) busyGaps.push(sends[i]! - a)
    }
    return {
      wasted: ts.filter((r) => r.aborted).length,
      spacing: {
        median: median(busyGaps),
        mean: busyGaps.reduce((x, y) => x + y, 0) / Math.max(1, busyGaps.length),
        // Past the limiter's tolerance for a late timer (a tenth of the margin): the slot is lost.
        late: busyGaps.filter((g) => g > spacingMs + lateMs).length / Math.max(1, busyGaps.length)
      },
      requests: ts.length,
      seconds: (end - start) / 1000,
      idleMs,
      latency: { median: median(lat), p90: percentile(lat, 90) },
      parse: { median: median(parse), p90: percentile(parse, 90) }
    }
  }
}

export function describeProfile(label: string, p: Profile): string {
  const idle = Object.entries(p.idleMs)
    .map(([k, v]) => `${k} ${(v / 1000).toFixed(1)} s`)
    .join(', ')
  return (
    `${label}: ${p.requests} requests in ${p.seconds.toFixed(1)} s; limiter idle with a free slot: ${idle}; ` +
    `service latency median ${p.latency.median.toFixed(0)} ms (p90 ${p.latency.p90.toFixed(0)}), ` +
    `parse median ${p.parse.median.toFixed(0)} ms (p90 ${p.parse.p90.toFixed(0)}); ${p.wasted} sent and not used; ` +
    `send-to-send while a request waited: median ${p.spacing.median.toFixed(0)} ms, mean ${p.spacing.mean.toFixed(0)} ms, ` +
    `${(p.spacing.late * 100).toFixed(1)} % later than the limiter's tolerance`
  )
}
