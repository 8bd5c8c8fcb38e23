import type { ManualClock } from '../../src/core/platform/manual-clock'
import type { RequestPacer } from '../../src/core/ratelimit'
import type { ServiceWindow } from './service-windows'

export interface ClientRun {
  /** Arrival times of admitted requests. */
  admitted: number[]
  rejected: number
  /** Arrival times of refused requests. */
  refused: number[]
  /** When the client's last request was admitted. */
  finishedAt: number
}

export interface TenantRun {
  clients: ClientRun[]
  start: number
  end: number
}

/**
 * Workstations of one tenant, each with its own limiter, each sending `requests` one after
 * another (as a sync does) against one service window on a manual clock. A request takes
 * `latencyMs` to arrive; a refusal's Retry-After is rounded up to whole seconds when
 * `wholeSeconds` (as the reference service and most real ones send it) and goes to the
 * client's limiter, and the request is sent again.
 *
 * A refusal comes back as the reference service sends it (src/reference-service/context.ts,
 * `admitToTenant`, refuses before any work): after the way back (the same travel time as the
 * way there), and once the client has done with the page it is working on (one event loop).
 * `refusal: 'answer'` keeps the earlier simulator's timing, a 429 after a whole answer's time
 * (the bench shows both, so a change of yardstick stays visible).
 */
export async function simulateTenant(opts: {
  clock: ManualClock
  window: ServiceWindow
  limiters: RequestPacer[]
  requests: number
  /** Requests of each client, when they differ (else `requests` each). */
  requestsEach?: readonly number[]
  latencyMs?: number
  /** Each request's travel time varies by up to this much (seeded, so runs repeat). */
  jitterMs?: number
  /** Client i starts this many ms after the first, or each client's own start (ms). */
  staggerMs?: number | readonly number[]
  wholeSeconds?: boolean
  stepMs?: number
  /**
   * Requests each workstation keeps in flight (a sync keeps up to 3 pages going): that many
   * senders share its count, so a 429 may find others of its requests already on their way.
   */
  inFlight?: number
  /** Time from arrival until the answer is back with the client (the service's work, the way back); one per client or for all. */
  answerMs?: number | readonly number[]
  /**
   * Each client works on an answer this long before that sender goes on (parsing, writing),
   * one answer at a time per client: uneven process speeds, as CLI processes on a busy machine.
   */
  workMs?: number | readonly number[]
  /** Seeds the travel jitter (12345 by default). */
  seed?: number
  /**
   * The service works one admitted request at a time for this long, and counts an arrival
   * only when it gets to it: a busy service squeezes arrivals together (a loaded machine).
   */
  serviceBusyMs?: number
  /** When a 429 is back with the client: after the travel time (default) or a whole answer's time. */
  refusal?: 'travel' | 'answer'
}): Promise<TenantRun> {
  const { clock, window } = opts
  const start = clock.now()
  const latency = opts.latencyMs ?? 0
  const clients: ClientRun[] = opts.limiters.map(() => ({ admitted: [], rejected: 0, refused: [], finishedAt: start }))
  let seed = opts.seed ?? 12345
  const random = (): number => {
    // mulberry32: a fixed sequence, so a failing run can be replayed
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const each = (v: number | readonly number[] | undefined, i: number): number => (typeof v === 'number' ? v : (v?.[i] ?? 0))
  let busyUntil = 0
  const work = opts.limiters.map(async (limiter, i) => {
    const c = clients[i]!
    const answer = each(opts.answerMs, i)
    const workMs = each(opts.workMs, i)
    let cpuFreeAt = 0
    const startAt = typeof opts.staggerMs === 'number' ? i * opts.staggerMs : each(opts.staggerMs, i)
    if (startAt > 0) await clock.sleep(startAt)
    let started = 0
    const mine = opts.requestsEach?.[i] ?? opts.requests
    const sender = async (): Promise<void> => {
      while (started < mine) {
        started++
        for (;;) {
          await limiter.acquire()
          const travel = latency + Math.round(random() * (opts.jitterMs ?? 0))
          if (travel > 0) await clock.sleep(travel)
          if (busyUntil > clock.now()) await clock.sleep(busyUntil - clock.now())
          const retry = window.admit(clock.now())
          if (retry === null && opts.serviceBusyMs) busyUntil = Math.max(busyUntil, clock.now()) + opts.serviceBusyMs
          const arrived = clock.now()
          if (retry !== null && opts.refusal !== 'answer') {
            // Refused at once: the way back, then the client's event loop once its current page is done.
            const back = Math.max(travel, cpuFreeAt - clock.now())
            if (back > 0) await clock.sleep(back)
          } else if (answer > 0) await clock.sleep(answer)
          limiter.settle?.()
          if (retry === null) {
            c.admitted.push(arrived)
            c.finishedAt = Math.max(c.finishedAt, arrived)
            if (workMs > 0) {
              // One answer at a time through the client's own work.
              cpuFreeAt = Math.max(cpuFreeAt, clock.now()) + workMs
              await clock.sleep(cpuFreeAt - clock.now())
            }
            break
          }
          c.rejected++
          c.refused.push(arrived)
          limiter.penalize(opts.wholeSeconds ? Math.max(1, Math.ceil(retry / 1000)) * 1000 : retry)
        }
      }
    }
    await Promise.all(Array.from({ length: opts.inFlight ?? 1 }, sender))
  })
  let done = false
  const all = Promise.all(work).then(() => (done = true))
  let guard = 0
  while (!done && guard++ < 2_000_000) await clock.advance(opts.stepMs ?? 10)
  await all
  return { clients, start, end: Math.max(...clients.map((c) => c.finishedAt)) }
}

/**
 * Admitted requests per second against the ceiling's, after the first window (a window's
 * worth may go at once at the start, which would flatter a short run) up to the last arrival.
 */
export function shareOfCeiling(run: TenantRun, requests: number, perMs: number): number {
  const all = run.clients.flatMap((c) => c.admitted).sort((a, b) => a - b)
  const from = all[0]! + perMs
  const counted = all.filter((t) => t >= from).length
  return counted / ((all[all.length - 1]! - from) / perMs) / requests
}
