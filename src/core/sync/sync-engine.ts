import { DateTime } from 'luxon'
import { SyncScope, type SyncProgress, type SyncPhase, type SyncScopeInput } from '../../shared/domain'
import type { AppErrorInfo } from '../../shared/errors'
import { CallsightError, isAbortError, toErrorInfo } from '../errors'
import { readCheckpoint, type Checkpoint, type DenseFinding } from './checkpoint'
import type { WritePageInput } from '../cache'
import type { SyncEngineDeps, SyncPage, SyncPageRequest } from './ports'
import { ProgressMeter } from './progress-meter'
import { scopeFilters, scopeKey, type ScopeFilters } from './scope-key'
import { applyPage, initialPager, MAX_TAKE, MAX_TAKE_WITH_ANALYSIS, nextSlice, WINDOW_LIMIT } from './window-pager'

export type SyncMode = 'full' | 'incremental'

export interface SyncRunOptions {
  mode: SyncMode
  signal?: AbortSignal
  onProgress?: (p: SyncProgress) => void
}

const HOUR = 3_600_000

/** Pages in flight at once: enough to hide the service's latency behind parsing and writing. */
const PIPELINE_DEPTH = 3

/**
 * Pages that have already arrived are stored together, up to this many, in one transaction
 * (group commit): when the service answers faster than pages are written, the commit is
 * paid once for all of them. A page is never held back waiting for another.
 */
const MAX_GROUP = 20

interface Flight {
  params: SyncPageRequest
  ac: AbortController
  promise: Promise<SyncPage>
  /** The answer (or failure) is in. */
  settled: boolean
}

/** The page after `p` in the same window, if the window has room for one. */
function following(p: { from: number; skip: number; take: number }, pageSize: number): { from: number; skip: number; take: number } | null {
  const skip = p.skip + p.take
  return skip < WINDOW_LIMIT ? { from: p.from, skip, take: Math.min(pageSize, WINDOW_LIMIT - skip) } : null
}

const sameSlice = (a: { from: number; skip: number; take: number }, b: { from: number; skip: number; take: number }): boolean =>
  a.from === b.from && a.skip === b.skip && a.take === b.take

/**
 * Syncs one scope (a range plus filters) into the cache, page by page, each page stored in
 * one transaction with the checkpoint that follows it. While a page is parsed and written the
 * next ones are already on their way, so the rate limit, not latency or the disk, sets the pace.
 */
export class SyncEngine {
  private readonly lookbackMs: number

  constructor(private readonly deps: SyncEngineDeps) {
    this.lookbackMs = Math.max(0, deps.lookbackHours ?? 48) * HOUR
  }

  /** The scope key the cache files this scope's membership, coverage and checkpoint under. */
  static keyOf(input: SyncScopeInput): string {
    return scopeKey(scopeFilters(parseScope(input)))
  }

  /**
   * Runs until the range is synced, cancelled or failed, and resolves with the final
   * progress (phase done, cancelled or failed, with the error). It rejects only on invalid
   * input, or when the cache fails before the run is recorded. A DenseSecond finding leaves
   * phase 'done' with warnings and error DenseSecond. One run per scope at a time.
   */
  async run(input: SyncScopeInput, opts: SyncRunOptions): Promise<SyncProgress> {
    const scope = parseScope(input)
    const { cache, clock, logger } = this.deps
    const filters = scopeFilters(scope)
    const key = scopeKey(filters)
    cache.ensureScope(key, filters)
    this.rememberCallTypes(filters)

    const pageSize = filters.includeAnalysis ? MAX_TAKE_WITH_ANALYSIS : MAX_TAKE
    const meter = new ProgressMeter(() => clock.now(), this.deps.rateLimit, pageSize)
    let cp = this.plan(key, scope, opts.mode)
    const runId = cache.startRun(key, { mode: opts.mode, from: scope.from, to: scope.to, filters })
    const warnings: string[] = []
    let remainingInWindow: number | null = null
    let waitSeconds: number | null = null
    let phase: SyncPhase = 'planning'

    const snapshot = (error?: AppErrorInfo): SyncProgress => {
      const position = cp.pager.done ? cp.rangeTo : (cp.pager.boundaryAt ?? cp.pager.windowStart)
      const p: SyncProgress = {
        runId,
        phase,
        stored: meter.counts.stored,
        requests: meter.counts.requests,
        windowsDone: cp.pager.windowsDone,
        position: Math.min(position, cp.rangeTo),
        from: scope.from,
        to: scope.to,
        requestsPerMinute: meter.requestsPerMinute,
        recordsPerSecond: meter.recordsPerSecond,
        etaSeconds: cp.pager.done ? 0 : meter.etaSeconds(remainingInWindow, Math.max(0, cp.rangeTo - position)),
        waitSeconds,
        warnings: [...warnings]
      }
      if (error) p.error = error
      return p
    }
    const emit = (): void => {
      try {
        opts.onProgress?.(snapshot())
      } catch (e) {
        logger.log('warn', 'A sync progress listener threw', { error: String(e) })
      }
    }
    for (const d of cp.pager.dense) warnings.push(denseWarning(d))

    const unsubscribe = this.deps.waits?.subscribe((ms) => {
      waitSeconds = ms / 1000
      phase = 'waiting'
      emit()
    })
    const inner = new AbortController()
    const onAbort = (): void => inner.abort()
    opts.signal?.addEventListener('abort', onAbort, { once: true })
    if (opts.signal?.aborted) inner.abort()

    const flights: Flight[] = []
    /** Pages applied to the checkpoint but not yet stored; see MAX_GROUP. */
    const held: WritePageInput[] = []
    const storeHeld = (): void => {
      if (held.length === 0) return
      const group = held.splice(0)
      cache.writePages(group)
    }
    const dropFlights = (): void => {
      for (const f of flights.splice(0)) f.ac.abort()
    }
    try {
      phase = 'fetching'
      emit()
      const paramsOf = (slice: { from: number; skip: number; take: number }, rangeTo: number): SyncPageRequest => ({
        from: slice.from,
        to: rangeTo,
        skip: slice.skip,
        take: slice.take,
        ascending: true,
        sortColumn: 'start_time_dt',
        callTypes: filters.callTypes,
        direction: filters.direction,
        results: filters.results,
        hasNewRequest: filters.hasNewRequest,
        includeAnalysis: filters.includeAnalysis
      })
      const launch = (params: SyncPageRequest): void => {
        const ac = new AbortController()
        const onInner = (): void => ac.abort()
        inner.signal.addEventListener('abort', onInner, { once: true })
        const promise = this.deps.source.getCalls(params, ac.signal).finally(() => inner.signal.removeEventListener('abort', onInner))
        // Awaited in order by the loop, or dropped; this keeps an early failure from being unhandled.
        promise.catch(() => undefined)
        const flight: Flight = { params, ac, promise, settled: false }
        promise.then(
          () => (flight.settled = true),
          () => (flight.settled = true)
        )
        flights.push(flight)
      }
      // Keeps up to PIPELINE_DEPTH pages in flight: the next one the state asks for, then the
      // pages after it in the same window, assuming each comes back full. A speculative page
      // is used only when the state, once known, asks for exactly it.
      const refill = (at: Checkpoint): void => {
        if (at.pager.done || inner.signal.aborted) return
        let slice: { from: number; skip: number; take: number } | null =
          flights.length > 0 ? following(flights[flights.length - 1]!.params, pageSize) : nextSlice(at.pager, pageSize)
        while (slice && flights.length < PIPELINE_DEPTH) {
          launch(paramsOf(slice, at.rangeTo))
          slice = following(flights[flights.length - 1]!.params, pageSize)
        }
      }

      refill(cp)
      while (flights.length > 0) {
        if (inner.signal.aborted) throw new CallsightError('Cancelled', 'The sync was cancelled.')
        // Store what is held before waiting on the network.
        if (!flights[0]!.settled) storeHeld()
        const { params, promise } = flights.shift()!
        const page = await promise
        meter.addRequest()
        const outcome = applyPage(cp.pager, params, page, cp.rangeTo)
        if (outcome.reread) logger.log('info', 'Calls changed at a window boundary; re-reading that window', { at: cp.pager.windowStart })
        if (page.malformed.length > 0) {
          warnings.push(`${page.malformed.length} record(s) the service sent could not be used and were skipped (${page.malformed[0]!.reason}).`)
        }
        if (outcome.dense) {
          warnings.push(denseWarning(outcome.dense))
          logger.log('warn', 'A second holds more calls than the service lets one page past', { at: outcome.dense.at })
        }
        const last = page.records[page.records.length - 1]
        if (last) meter.observe(page.records.length, Math.max(1, last.callAt - cp.rangeFrom))
        remainingInWindow = page.totalCount === null ? null : Math.max(0, page.totalCount - outcome.next.skip)

        const next: Checkpoint = { ...cp, pager: outcome.next }
        const head = flights[0]
        if (next.pager.done || !head || !sameSlice(head.params, nextSlice(next.pager, pageSize))) dropFlights()
        // Ask for the following pages before writing this one.
        refill(next)
        // The service's end time is inclusive at whole seconds: a call at exactly `to` is not ours.
        const records = outcome.fresh.filter((r) => r.callAt >= cp.requestFrom && r.callAt < cp.rangeTo)
        meter.addStored(records.length)
        held.push({
          scopeKey: key,
          records,
          includeAnalysis: filters.includeAnalysis,
          checkpoint: next,
          runId,
          runCounts: meter.counts
        })
        if (held.length >= MAX_GROUP) storeHeld()
        cp = next
        phase = 'fetching'
        waitSeconds = null
        emit()
      }

      storeHeld()
      // refill launches nothing once cancelled, so an empty pipeline alone does not mean done.
      if (!cp.pager.done) throw new CallsightError('Cancelled', 'The sync was cancelled.')

      // Coverage is added after the last page's transaction; a kill in between leaves a
      // checkpoint marked done, which the next run turns into coverage without fetching.
      cache.addCoverage(key, cp.rangeFrom, cp.rangeTo)
      cache.setCheckpoint(key, null)
      // Each page's commit added a segment to the full-text index; merged, a search for a
      // common word checks a row in microseconds instead of half a millisecond.
      if (meter.counts.stored > 0) cache.optimizeIndex()
      cache.markScopeSuccess(key, clock.now())
      phase = 'done'
      const finding = denseError(cp.pager.dense)
      cache.finishRun(runId, 'done', meter.counts, finding?.toInfo())
      const final = snapshot(finding?.toInfo())
      opts.onProgress?.(final)
      return final
    } catch (e) {
      inner.abort()
      // Pages that arrived before the failure are good: keep them (the checkpoint moves with them).
      try {
        storeHeld()
      } catch (storeError) {
        held.length = 0
        logger.log('error', 'Pages fetched before the failure could not be stored', { error: String(storeError) })
      }
      const left = flights.splice(0)
      await Promise.allSettled(left.map((f) => f.promise))
      const cancelled = isAbortError(e) || opts.signal?.aborted === true
      phase = cancelled ? 'cancelled' : 'failed'
      const info: AppErrorInfo = cancelled ? { code: 'Cancelled', message: 'The sync was cancelled; the next run continues where it stopped.' } : toErrorInfo(e)
      if (!cancelled && !(e instanceof CallsightError)) logger.log('error', 'Sync failed unexpectedly', { error: String(e) })
      try {
        cache.finishRun(runId, cancelled ? 'cancelled' : 'failed', meter.counts, info)
      } catch (storeError) {
        logger.log('error', 'The sync run could not be recorded', { error: String(storeError) })
      }
      const final = snapshot(info)
      try {
        opts.onProgress?.(final)
      } catch {
        // The final state is returned as well.
      }
      return final
    } finally {
      unsubscribe?.()
      opts.signal?.removeEventListener('abort', onAbort)
    }
  }

  /** Continue the stored checkpoint when it is for the same range; otherwise plan a new pass. */
  private plan(key: string, scope: SyncScope, mode: SyncMode): Checkpoint {
    const stored = readCheckpoint(this.deps.cache.getCheckpoint(key))
    if (stored && stored.requestFrom === scope.from && stored.requestTo === scope.to) return stored
    // A finished pass whose coverage was not yet recorded (killed right at the end).
    if (stored?.pager.done) this.deps.cache.addCoverage(key, stored.rangeFrom, stored.rangeTo)
    let rangeFrom = scope.from
    if (mode === 'incremental') {
      const covering = this.deps.cache.coverage(key).find(([a, b]) => a <= scope.from && scope.from <= b)
      if (covering) rangeFrom = Math.max(scope.from, Math.min(covering[1], scope.to) - this.lookbackMs)
    }
    const pager = initialPager(rangeFrom)
    if (pager.windowStart >= scope.to) pager.done = true
    const cp: Checkpoint = { v: 1, requestFrom: scope.from, requestTo: scope.to, rangeFrom, rangeTo: scope.to, pager }
    this.deps.cache.setCheckpoint(key, cp)
    return cp
  }

  /**
   * The spec has no catalog endpoint: the catalog holds the names the user synced with.
   * Existing entries keep their description.
   */
  private rememberCallTypes(filters: ScopeFilters): void {
    if (filters.callTypes.length === 0) return
    const known = new Set(this.deps.cache.callTypes().map((t) => t.value))
    const fresh = filters.callTypes.filter((t) => !known.has(t))
    if (fresh.length > 0) this.deps.cache.upsertCallTypes(fresh.map((value) => ({ value, description: '' })))
  }
}

function parseScope(input: SyncScopeInput): SyncScope {
  const parsed = SyncScope.safeParse(input)
  if (!parsed.success) {
    const fields = parsed.error.issues.map((i) => ({ members: i.path.map(String), message: i.message }))
    throw new CallsightError('InvalidInput', fields[0]?.message ?? 'The sync scope is not valid.', { fields })
  }
  return parsed.data
}

function denseWarning(d: DenseFinding): string {
  const when = DateTime.fromMillis(d.at, { zone: 'utc' }).toISO({ suppressMilliseconds: true })
  return `The second ${when} holds 10,000 calls or more: the service cannot page past 10,000, so only the first 10,000 of it were stored and the sync continued after that second.`
}

function denseError(dense: readonly DenseFinding[]): CallsightError | null {
  if (dense.length === 0) return null
  return new CallsightError(
    'DenseSecond',
    `${dense.length} second(s) held more calls than the service can page past; the rest of the range was synced.`,
    { hint: dense.map(denseWarning).join(' ') }
  )
}
