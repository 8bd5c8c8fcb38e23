import { DateTime } from 'luxon'
import type { RateLimit, SyncPace, SyncPhase, SyncProgress, SyncScope } from '../../shared/domain'
import type { AppErrorInfo } from '../../shared/errors'
import { CallsightError } from '../errors'
import type { Logger } from '../platform'
import type { Checkpoint, DenseFinding } from './checkpoint'
import type { SyncPage } from './ports'
import { ProgressMeter } from './progress-meter'
import { isNewestFirst, type PageOutcome } from './window-pager'

export interface RunReportOptions {
  runId: string
  scope: Pick<SyncScope, 'from' | 'to'>
  /** Where the run starts; its dense findings (from a resumed pass) are warned about again. */
  checkpoint: Checkpoint
  now: () => number
  rateLimit: RateLimit
  pageSize: number
  logger: Logger
  /** The tenant limiter's pace now. */
  pace?: () => SyncPace
  onProgress?: (p: SyncProgress) => void
}

/**
 * The report phase: what the run has done so far, as the `SyncProgress` the app and the CLI
 * show — counts, rates and ETA (through ProgressMeter), the position in the range, the phase,
 * the limiter's wait and the warnings — sent to the listener after every page and wait.
 * A listener that throws is logged and does not stop the sync.
 */
export class RunReport {
  private readonly meter: ProgressMeter
  private readonly warnings: string[] = []
  private phase: SyncPhase = 'planning'
  private checkpoint: Checkpoint
  private remainingInWindow: number | null = null
  private waitSeconds: number | null = null

  constructor(private readonly opts: RunReportOptions) {
    this.meter = new ProgressMeter(opts.now, opts.rateLimit, opts.pageSize)
    this.checkpoint = opts.checkpoint
    for (const d of opts.checkpoint.pager.dense) this.warnings.push(denseWarning(d))
  }

  /** Stored and requested so far, as the cache records them with every page. */
  get counts(): { stored: number; requests: number } {
    return this.meter.counts
  }

  /** Fetching at `checkpoint`: the state after the last page applied. */
  fetching(checkpoint: Checkpoint): void {
    this.checkpoint = checkpoint
    this.phase = 'fetching'
    this.waitSeconds = null
    this.emit()
  }

  /** The limiter (or a Retry-After) holds the next request this long. */
  waiting(ms: number): void {
    this.waitSeconds = ms / 1000
    this.phase = 'waiting'
    this.emit()
  }

  /** A page came back and was folded into the pager: counts, warnings and the ETA's inputs. */
  pageApplied(page: SyncPage, outcome: PageOutcome, before: Pick<Checkpoint, 'rangeFrom' | 'rangeTo' | 'pager'>, stored: number): void {
    const { logger } = this.opts
    this.meter.addRequest()
    if (outcome.reread)
      logger.log('info', 'Calls changed at a window boundary; re-reading that window', { at: this.checkpoint.pager.windowStart })
    if (page.malformed.length > 0) {
      this.warnings.push(
        `${page.malformed.length} record(s) the service sent could not be used and were skipped (${page.malformed[0]!.reason}).`
      )
    }
    if (outcome.dense) {
      this.warnings.push(denseWarning(outcome.dense))
      logger.log('warn', 'A second holds more calls than the service lets one page past', { at: outcome.dense.at })
    }
    const last = page.records[page.records.length - 1]
    // The span of the range read so far, from whichever end the pass started at.
    if (last)
      this.meter.observe(
        page.records.length,
        Math.max(1, isNewestFirst(before.pager) ? before.rangeTo - last.callAt : last.callAt - before.rangeFrom)
      )
    this.remainingInWindow = page.totalCount === null ? null : Math.max(0, page.totalCount - outcome.next.skip)
    this.meter.addStored(stored)
  }

  /** The last progress of the run, sent to the listener and returned. */
  final(phase: 'done' | 'failed' | 'cancelled', checkpoint: Checkpoint, error?: AppErrorInfo): SyncProgress {
    this.checkpoint = checkpoint
    this.phase = phase
    const final = this.snapshot(error)
    this.send(final)
    return final
  }

  snapshot(error?: AppErrorInfo): SyncProgress {
    const { pager, rangeFrom, rangeTo } = this.checkpoint
    const newest = isNewestFirst(pager)
    const span = Math.max(0, newest ? this.position() - rangeFrom : rangeTo - this.position())
    const left = pager.done ? { calls: 0, requests: 0 } : this.meter.remaining(this.remainingInWindow, span)
    const p: SyncProgress = {
      runId: this.opts.runId,
      phase: this.phase,
      stored: this.meter.counts.stored,
      requests: this.meter.counts.requests,
      windowsDone: pager.windowsDone,
      position: this.position(),
      from: this.opts.scope.from,
      to: this.opts.scope.to,
      order: newest ? 'newest' : 'oldest',
      requestsPerMinute: this.meter.requestsPerMinute,
      recordsPerSecond: this.meter.recordsPerSecond,
      etaSeconds: pager.done ? 0 : this.meter.etaSeconds(this.remainingInWindow, span),
      waitSeconds: this.waitSeconds,
      warnings: [...this.warnings],
      elapsedSeconds: this.meter.elapsedSeconds
    }
    if (left) p.remaining = left
    if (this.opts.pace) p.pace = this.opts.pace()
    if (error) p.error = error
    return p
  }

  /**
   * The instant the pass has reached: the last second received, else the window's edge.
   * Newest first it moves back from the end and a finished pass stands at the scope's start.
   */
  private position(): number {
    const { pager, rangeTo } = this.checkpoint
    if (isNewestFirst(pager)) {
      if (pager.done) return this.opts.scope.from
      return Math.min(pager.boundaryAt ?? pager.windowEnd ?? rangeTo, rangeTo)
    }
    return Math.min(pager.done ? rangeTo : (pager.boundaryAt ?? pager.windowStart), rangeTo)
  }

  private emit(): void {
    this.send(this.snapshot())
  }

  private send(p: SyncProgress): void {
    try {
      this.opts.onProgress?.(p)
    } catch (e) {
      this.opts.logger.log('warn', 'A sync progress listener threw', { error: String(e) })
    }
  }
}

function denseWarning(d: DenseFinding): string {
  const when = DateTime.fromMillis(d.at, { zone: 'utc' }).toISO({ suppressMilliseconds: true })
  return `The second ${when} holds 10,000 calls or more: the service cannot page past 10,000, so only the first 10,000 of it were stored and the sync continued after that second.`
}

/** The run's DenseSecond finding: the range was synced, but some seconds only in part. */
export function denseError(dense: readonly DenseFinding[]): CallsightError | null {
  if (dense.length === 0) return null
  return new CallsightError(
    'DenseSecond',
    `${dense.length} second(s) held more calls than the service can page past; the rest of the range was synced.`,
    { hint: dense.map(denseWarning).join(' ') }
  )
}
