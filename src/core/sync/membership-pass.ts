import {
  DEFAULT_DIRECTIONS,
  describePass,
  type DirectionSetting,
  type MembershipPass,
  type MembershipProgress,
  type SyncOrder,
  type SyncProgress
} from '../../shared/domain'
import type { AppErrorInfo } from '../../shared/errors'
import { groupRequests, secondsFor } from './membership-estimate'
import { membershipPasses, passScope, type MembershipRange } from './membership-scopes'
import type { SyncEngineDeps } from './ports'
import { SyncEngine, type SyncMode } from './sync-engine'

export interface MembershipRunOptions {
  /** Incremental (default): each pass fetches only its look-back once its scope covers the range. */
  mode?: SyncMode
  order?: SyncOrder
  signal?: AbortSignal
  /** The direction values to learn; 1 and 2 when absent. */
  directions?: readonly DirectionSetting[]
  /** The passes to run; every pass of the catalog and directions when absent. */
  passes?: readonly MembershipPass[]
  onProgress?: (p: MembershipProgress) => void
  /** Each pass's run is recorded under `${runIdPrefix}-${i}` (a new id each when absent). */
  runIdPrefix?: string
}

export interface PassOutcome {
  pass: MembershipPass
  progress: SyncProgress
}

export interface MembershipResult {
  phase: 'done' | 'cancelled' | 'failed'
  passes: PassOutcome[]
  requests: number
  stored: number
  /** Why the set stopped: the first pass that failed or was cancelled. */
  error?: AppErrorInfo
  /** Warnings of the passes (a dense second), each naming its pass. */
  warnings: string[]
}

/**
 * Runs the membership passes of a range: each an ordinary scope run of the SyncEngine
 * without analysis, through the same source and store — so its requests go through the
 * tenant's limiter, a killed pass resumes from its checkpoint, an incremental one fetches
 * only its look-back, and each records coverage and membership like any scope. The team
 * worker calls this with its PgSyncStore as the store.
 *
 * The passes run one after another; a pass that fails or is cancelled ends the set (the
 * passes done keep their coverage; the next run starts the stopped one from its checkpoint).
 */
export async function runMembershipPasses(
  deps: SyncEngineDeps,
  range: MembershipRange,
  opts: MembershipRunOptions = {}
): Promise<MembershipResult> {
  const passes = opts.passes ? [...opts.passes] : membershipPasses(await deps.cache.callTypes(), opts.directions ?? DEFAULT_DIRECTIONS)
  const engine = new SyncEngine(deps)
  const out: MembershipResult = { phase: 'done', passes: [], requests: 0, stored: 0, warnings: [] }
  const progress = new SetProgress(passes, deps, opts.onProgress)
  for (const [i, pass] of passes.entries()) {
    if (opts.signal?.aborted) {
      out.phase = 'cancelled'
      out.error = { code: 'Cancelled', message: 'The membership passes were cancelled; the next run continues where they stopped.' }
      break
    }
    progress.start(i)
    const final = await engine.run(passScope(pass, range), {
      mode: opts.mode ?? 'incremental',
      order: opts.order,
      signal: opts.signal,
      runId: opts.runIdPrefix ? `${opts.runIdPrefix}-${i + 1}` : undefined,
      // A merge of the whole index after each pass would stall the requests between passes.
      deferIndexMerge: true,
      membershipPass: true,
      onProgress: (p) => progress.update(i, p)
    })
    progress.finish(i, final)
    out.passes.push({ pass, progress: final })
    out.requests += final.requests
    out.stored += final.stored
    out.warnings.push(...final.warnings.map((w) => `${describePass(pass)}: ${w}`))
    if (final.phase !== 'done') {
      out.phase = final.phase === 'cancelled' ? 'cancelled' : 'failed'
      out.error = final.error
      break
    }
  }
  if (out.stored > 0) {
    try {
      await deps.cache.optimizeIndex()
    } catch (e) {
      deps.logger.log('warn', 'The full-text index was not merged after the membership passes', { error: String(e) })
    }
  }
  progress.end(out)
  return out
}

/** The progress of the whole set: counts of the passes done plus the current pass's. */
class SetProgress {
  private doneRequests = 0
  private doneStored = 0
  private last: MembershipProgress

  constructor(
    private readonly passes: readonly MembershipPass[],
    private readonly deps: SyncEngineDeps,
    private readonly listener?: (p: MembershipProgress) => void
  ) {
    this.last = {
      phase: 'running',
      pass: 0,
      passes: passes.length,
      current: null,
      requests: 0,
      stored: 0,
      etaSeconds: null,
      sync: null
    }
  }

  start(i: number): void {
    this.emit({ ...this.last, pass: i + 1, current: this.passes[i]!, sync: null, etaSeconds: this.eta(i, null) })
  }

  update(i: number, p: SyncProgress): void {
    this.emit({
      ...this.last,
      pass: i + 1,
      current: this.passes[i]!,
      requests: this.doneRequests + p.requests,
      stored: this.doneStored + p.stored,
      etaSeconds: this.eta(i, p),
      sync: p
    })
  }

  finish(i: number, p: SyncProgress): void {
    this.doneRequests += p.requests
    this.doneStored += p.stored
    this.last = { ...this.last, pass: i + 1, requests: this.doneRequests, stored: this.doneStored, sync: p }
  }

  end(r: MembershipResult): void {
    this.emit({ ...this.last, phase: r.phase, etaSeconds: r.phase === 'done' ? 0 : null })
  }

  /**
   * The current pass's own ETA, plus the passes after it at the average requests of the
   * passes done in its group, or one request each (an empty pass costs one) when none is.
   */
  private eta(i: number, p: SyncProgress | null): number | null {
    const rest = this.passes.slice(i + 1)
    const remaining =
      rest.length === 0
        ? 0
        : secondsFor(groupRequests({ passes: rest.length, calls: this.readPerPass() * rest.length }), this.deps.rateLimit)
    const current = p?.etaSeconds ?? (p === null ? 0 : null)
    return current === null ? null : current + remaining
  }

  /** Calls a pass has read on average so far (its share of the range). */
  private readPerPass(): number {
    const done = this.last.pass - 1
    return done > 0 ? this.doneStored / done : 0
  }

  private emit(p: MembershipProgress): void {
    this.last = p
    try {
      this.listener?.(p)
    } catch (e) {
      this.deps.logger.log('warn', 'A membership progress listener failed', { error: String(e) })
    }
  }
}
