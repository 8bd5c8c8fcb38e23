import { SERVICE_WINDOW } from '../../shared/service-limits'
import type { PagerState } from './checkpoint'
import type { SyncPage, SyncPageRequest, SyncSource } from './ports'
import type { ScopeFilters } from './scope-key'
import { nextSlice } from './window-pager'

/** Pages in flight at once: enough to hide the service's latency behind parsing and writing. */
export const PIPELINE_DEPTH = 3

/** A page of one window: where the window starts (and ends, newest first), and the page's position in it. */
export interface Slice {
  from: number
  /** Newest first: the window's end; oldest first every window ends at the range's end. */
  to?: number
  skip: number
  take: number
}

interface Flight {
  params: SyncPageRequest
  ac: AbortController
  promise: Promise<SyncPage>
  /** The answer (or failure) is in. */
  settled: boolean
}

/** The page after `p` in the same window, if the window has room for one. */
export function following(p: Slice, pageSize: number): Slice | null {
  const skip = p.skip + p.take
  if (skip >= SERVICE_WINDOW) return null
  const next: Slice = { from: p.from, skip, take: Math.min(pageSize, SERVICE_WINDOW - skip) }
  return p.to === undefined ? next : { ...next, to: p.to }
}

/**
 * The get-calls request for one slice of a pass: by start time, ascending oldest first and
 * descending newest first (a slice with its own end), the scope's filters.
 */
export function pageRequest(slice: Slice, rangeTo: number, filters: ScopeFilters): SyncPageRequest {
  return {
    from: slice.from,
    to: slice.to ?? rangeTo,
    skip: slice.skip,
    take: slice.take,
    ascending: slice.to === undefined,
    sortColumn: 'start_time_dt',
    callTypes: filters.callTypes,
    direction: filters.direction,
    results: filters.results,
    hasNewRequest: filters.hasNewRequest,
    includeAnalysis: filters.includeAnalysis
  }
}

const sameSlice = (a: SyncPageRequest, b: Slice): boolean =>
  a.from === b.from &&
  a.skip === b.skip &&
  a.take === b.take &&
  a.ascending === (b.to === undefined) &&
  (b.to === undefined || a.to === b.to)

/** The slice a request was made for (the inverse of pageRequest). */
const sliceOf = (p: SyncPageRequest): Slice =>
  p.ascending ? { from: p.from, skip: p.skip, take: p.take } : { from: p.from, to: p.to, skip: p.skip, take: p.take }

/**
 * The fetch phase: keeps up to `depth` pages in flight and hands them over in order. The
 * first is the page the pager state asks for; the others are the pages after it in the same
 * window, asked for on the guess that each comes back full. A guessed page is used only when
 * the state, once known, asks for exactly it; otherwise it is aborted unread.
 *
 * The pipeline's own signal follows the run's: a cancel aborts every request in flight, and
 * nothing new is launched after it.
 */
export class FetchPipeline {
  private readonly flights: Flight[] = []
  private readonly inner = new AbortController()
  private readonly onOuterAbort = (): void => this.inner.abort()

  constructor(
    private readonly source: SyncSource,
    private readonly pass: { rangeTo: number; filters: ScopeFilters; pageSize: number },
    private readonly outer?: AbortSignal,
    private readonly depth = PIPELINE_DEPTH
  ) {
    outer?.addEventListener('abort', this.onOuterAbort, { once: true })
    if (outer?.aborted) this.inner.abort()
  }

  /** Requests in flight, guessed ones included. */
  get size(): number {
    return this.flights.length
  }

  get cancelled(): boolean {
    return this.inner.signal.aborted
  }

  /** Whether the oldest request's answer is in, so taking it will not wait on the network. */
  get headSettled(): boolean {
    return this.flights[0]?.settled ?? false
  }

  /** The requests in flight, oldest first (for tests). */
  get inFlight(): SyncPageRequest[] {
    return this.flights.map((f) => f.params)
  }

  /**
   * Starts the page `pager` asks for and the pages after it, up to the depth; continues from
   * the last page in flight when there is one. Launches nothing once the pass is done or
   * cancelled.
   */
  fill(pager: PagerState): void {
    if (pager.done || this.cancelled) return
    const last = this.flights[this.flights.length - 1]
    let slice: Slice | null = last ? following(sliceOf(last.params), this.pass.pageSize) : nextSlice(pager, this.pass.pageSize)
    while (slice && this.flights.length < this.depth) {
      this.launch(pageRequest(slice, this.pass.rangeTo, this.pass.filters))
      slice = following(slice, this.pass.pageSize)
    }
  }

  /** The oldest page in flight and its answer; rejects with the request's failure. */
  async next(): Promise<{ params: SyncPageRequest; page: SyncPage }> {
    const flight = this.flights.shift()
    if (!flight) throw new Error('FetchPipeline.next called with nothing in flight')
    return { params: flight.params, page: await flight.promise }
  }

  /**
   * After a page moved the state to `pager`: keeps the guessed pages when the oldest is the
   * one the state asks for next, aborts them otherwise (a window move, a short page, a
   * re-read), then tops the pipeline up again, before the page is written.
   */
  follow(pager: PagerState): void {
    const head = this.flights[0]
    if (pager.done || !head || !sameSlice(head.params, nextSlice(pager, this.pass.pageSize))) this.dropAll()
    this.fill(pager)
  }

  /** Cancels the pass: aborts every request in flight and launches nothing more. */
  abort(): void {
    this.inner.abort()
  }

  /** Aborts what is in flight and waits until every request has settled. */
  async drain(): Promise<void> {
    const left = this.flights.splice(0)
    for (const f of left) f.ac.abort()
    await Promise.allSettled(left.map((f) => f.promise))
  }

  /** Stops following the run's signal. */
  dispose(): void {
    this.outer?.removeEventListener('abort', this.onOuterAbort)
  }

  private dropAll(): void {
    for (const f of this.flights.splice(0)) f.ac.abort()
  }

  private launch(params: SyncPageRequest): void {
    const ac = new AbortController()
    const onInner = (): void => ac.abort()
    this.inner.signal.addEventListener('abort', onInner, { once: true })
    const promise = this.source.getCalls(params, ac.signal).finally(() => this.inner.signal.removeEventListener('abort', onInner))
    // Awaited in order by next(), or dropped; this keeps an early failure from being unhandled.
    promise.catch(() => undefined)
    const flight: Flight = { params, ac, promise, settled: false }
    promise.then(
      () => (flight.settled = true),
      () => (flight.settled = true)
    )
    this.flights.push(flight)
  }
}
