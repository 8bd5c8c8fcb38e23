import type { CallRecord, SyncOrder, SyncProgress, SyncScopeInput } from '../../shared/domain'
import type { AppErrorInfo } from '../../shared/errors'
import { CallsightError, isAbortError, toErrorInfo } from '../errors'
import type { Checkpoint } from './checkpoint'
import { FetchPipeline } from './fetch-pipeline'
import { parseScope, planRun, rememberCallTypes, type RunPlan, type SyncMode } from './plan-window'
import type { SyncEngineDeps, SyncPage, SyncPageRequest } from './ports'
import { denseError, RunReport } from './run-report'
import { scopeFilters, scopeKey } from './scope-key'
import { StoreGroup } from './store-group'
import { applyPage, type PageOutcome } from './window-pager'

export type { SyncMode } from './plan-window'

export interface SyncRunOptions {
  mode: SyncMode
  /** Which end of the range comes first; newest by default (a resumed pass keeps its own). */
  order?: SyncOrder
  signal?: AbortSignal
  onProgress?: (p: SyncProgress) => void
  /** The id the run is recorded and reported under; a new one when absent. */
  runId?: string
  /**
   * Leave the full-text index merge to the caller: a set of runs over the same calls (the
   * membership passes) merges once at its end instead of after each run.
   */
  deferIndexMerge?: boolean
  /**
   * A membership pass: recorded with the run's params, so the sync form, which starts from
   * the latest run the user chose, passes over it (a pass is never what the user asked for).
   */
  membershipPass?: boolean
}

const HOUR = 3_600_000

/** One page folded into the pass: the state after it, and the records it adds to the scope. */
export interface FoldedPage {
  checkpoint: Checkpoint
  outcome: PageOutcome
  records: CallRecord[]
}

/**
 * Folds a page into the checkpoint (pure). The service's end time is inclusive at whole
 * seconds, so a call at exactly `to` is not ours; a call before the requested range (an
 * incremental pass starts at the look-back) is.
 */
export function foldPage(cp: Checkpoint, params: SyncPageRequest, page: SyncPage): FoldedPage {
  const outcome = applyPage(cp.pager, params, page, cp.rangeTo)
  const records = outcome.fresh.filter((r) => r.callAt >= cp.requestFrom && r.callAt < cp.rangeTo)
  return { checkpoint: { ...cp, pager: outcome.next }, outcome, records }
}

const cancelledError = (): CallsightError => new CallsightError('Cancelled', 'The sync was cancelled.')

/**
 * Syncs one scope (a range plus filters) into the cache in four phases: plan the window to
 * start from (plan-window.ts), keep pages in flight (fetch-pipeline.ts), store the pages that
 * arrived with their checkpoints (store-group.ts), and report progress (run-report.ts). While
 * a page is parsed and written the next ones are already on their way, so the rate limit,
 * not latency or the disk, sets the pace.
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
    const { cache, clock, logger, source } = this.deps
    const plan = await planRun(cache, input, opts.mode, this.lookbackMs, opts.order ?? 'newest')
    const { scope, filters, key, pageSize } = plan
    const params = { mode: opts.mode, from: scope.from, to: scope.to, filters, ...(opts.membershipPass ? { membershipPass: true } : {}) }
    const runId = await cache.startRun(key, params, opts.runId)
    const report = new RunReport({
      runId,
      scope,
      checkpoint: plan.checkpoint,
      now: () => clock.now(),
      rateLimit: this.deps.rateLimit,
      pageSize,
      logger,
      pace: this.deps.pace,
      onProgress: opts.onProgress
    })
    const unsubscribe = this.deps.waits?.subscribe((ms) => report.waiting(ms))
    const pipeline = new FetchPipeline(source, { rangeTo: plan.checkpoint.rangeTo, filters, pageSize }, opts.signal)
    const group = new StoreGroup(cache)
    // A whole pass in this run over a cache with annotations keeps the ids it saw, so that
    // complete() can tell which annotated calls the service no longer returns.
    const track = !plan.resumed && cache.markServiceDropped !== undefined && (await cache.hasAnnotations?.()) === true
    const at = { checkpoint: plan.checkpoint, seen: track ? new Set<string>() : null }
    try {
      await this.fetchAndStore(plan, runId, pipeline, group, report, at)
      return await this.complete(plan, runId, at, report, opts.deferIndexMerge === true)
    } catch (e) {
      pipeline.abort()
      await group.salvage(logger)
      await pipeline.drain()
      return this.fail(e, opts.signal?.aborted === true, runId, at.checkpoint, report)
    } finally {
      unsubscribe?.()
      pipeline.dispose()
    }
  }

  /**
   * The fetch and store phases together: take each page in order, fold it into the
   * checkpoint, ask for the following pages before writing it, and hand it to the group. The
   * group is stored before the engine waits on the network, so no page waits for another.
   * `at` follows the checkpoint of the last page applied, for the report of a failure.
   */
  private async fetchAndStore(
    plan: RunPlan,
    runId: string,
    pipeline: FetchPipeline,
    group: StoreGroup,
    report: RunReport,
    at: { checkpoint: Checkpoint; seen: Set<string> | null }
  ): Promise<void> {
    report.fetching(at.checkpoint)
    pipeline.fill(at.checkpoint.pager)
    while (pipeline.size > 0) {
      if (pipeline.cancelled) throw cancelledError()
      if (!pipeline.headSettled) {
        const stored = group.flush()
        if (stored) await stored
      }
      const { params, page } = await pipeline.next()
      const step = foldPage(at.checkpoint, params, page)
      if (at.seen) for (const r of step.records) at.seen.add(r.callId)
      report.pageApplied(page, step.outcome, at.checkpoint, step.records.length)
      pipeline.follow(step.checkpoint.pager)
      const stored = group.add({
        scopeKey: plan.key,
        records: step.records,
        includeAnalysis: plan.filters.includeAnalysis,
        checkpoint: step.checkpoint,
        runId,
        runCounts: report.counts
      })
      if (stored) await stored
      at.checkpoint = step.checkpoint
      report.fetching(step.checkpoint)
    }
    await group.flush()
    // fill launches nothing once cancelled, so an empty pipeline alone does not mean done.
    if (!at.checkpoint.pager.done) throw cancelledError()
  }

  /** The pass is done: record its coverage, merge the full-text index, close the run. */
  private async complete(
    plan: RunPlan,
    runId: string,
    at: { checkpoint: Checkpoint; seen: ReadonlySet<string> | null },
    report: RunReport,
    deferIndexMerge: boolean
  ): Promise<SyncProgress> {
    const { cache, clock } = this.deps
    const cp = at.checkpoint
    // The whole pass ran in this run and reached every call (no dense second): a member of
    // the scope in its range that it did not return is one the service no longer returns.
    if (at.seen && cp.pager.dense.length === 0) await cache.markServiceDropped?.(plan.key, cp.rangeFrom, cp.rangeTo, at.seen, clock.now())
    // Coverage is added after the last page's transaction; a kill in between leaves a
    // checkpoint marked done, which the next run turns into coverage without fetching.
    await cache.addCoverage(plan.key, cp.rangeFrom, cp.rangeTo)
    await cache.setCheckpoint(plan.key, null)
    // Each page's commit added a segment to the full-text index; merged, a search for a
    // common word checks a row in microseconds instead of half a millisecond.
    if (report.counts.stored > 0 && !deferIndexMerge) await cache.settleIndex(report.counts.stored)
    await cache.markScopeSuccess(plan.key, clock.now())
    await rememberCallTypes(cache, plan.filters.callTypes)
    const finding = denseError(cp.pager.dense)?.toInfo()
    await cache.finishRun(runId, 'done', report.counts, finding)
    return report.final('done', cp, finding)
  }

  /** Cancelled or failed: the pages stored so far stay, with the checkpoint that follows them. */
  private async fail(e: unknown, signalled: boolean, runId: string, cp: Checkpoint, report: RunReport): Promise<SyncProgress> {
    const { cache, logger } = this.deps
    const cancelled = isAbortError(e) || signalled
    const info: AppErrorInfo = cancelled
      ? { code: 'Cancelled', message: 'The sync was cancelled; the next run continues where it stopped.' }
      : toErrorInfo(e)
    if (!cancelled && !(e instanceof CallsightError)) logger.log('error', 'Sync failed unexpectedly', { error: String(e) })
    try {
      await cache.finishRun(runId, cancelled ? 'cancelled' : 'failed', report.counts, info)
    } catch (storeError) {
      logger.log('error', 'The sync run could not be recorded', { error: String(storeError) })
    }
    return report.final(cancelled ? 'cancelled' : 'failed', cp, info)
  }
}
