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
  /** Passes run at once over the shared limiter; PASS_CONCURRENCY when absent, 1 runs them one by one. */
  concurrency?: number
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
 * Passes run at once by default. One pass alone leaves the limiter idle wherever its
 * pipeline drains: at each window move (the next window starts at the last second of the
 * window's last page, so it is planned only once that page is in) and at its end. With a few
 * passes interleaved over the one tenant limiter, another pass's pages fill those gaps.
 */
export const PASS_CONCURRENCY = 3

/**
 * The order the passes are started in: the ones that read most of the range first (answered
 * only, then each direction), so that the set does not end with one long pass alone, its
 * drains no longer hidden by others. Stable within a kind.
 */
const START_RANK: Record<MembershipPass['kind'], number> = { answered: 0, direction: 1, type: 2, newRequest: 3 }

export function startOrder(passes: readonly MembershipPass[]): number[] {
  return passes.map((_, i) => i).sort((a, b) => START_RANK[passes[a]!.kind] - START_RANK[passes[b]!.kind] || a - b)
}

/**
 * Runs the membership passes of a range: each an ordinary scope run of the SyncEngine
 * without analysis, through the same source and store — so its requests go through the
 * tenant's limiter, a killed pass resumes from its checkpoint, an incremental one fetches
 * only its look-back, and each records coverage and membership like any scope. Passes of
 * different scopes share nothing but the calls' rows, which each stores alike.
 *
 * Up to `concurrency` passes run at once (PASS_CONCURRENCY). A pass that fails or is
 * cancelled ends the set: no further pass starts, the ones running finish (a cancel stops
 * them too), the passes done keep their coverage, and the next run starts the stopped ones
 * from their checkpoints.
 */
export async function runMembershipPasses(
  deps: SyncEngineDeps,
  range: MembershipRange,
  opts: MembershipRunOptions = {}
): Promise<MembershipResult> {
  const passes = opts.passes ? [...opts.passes] : membershipPasses(await deps.cache.callTypes(), opts.directions ?? DEFAULT_DIRECTIONS)
  const engine = new SyncEngine(deps)
  const progress = new SetProgress(passes, deps, opts.onProgress)
  const outcomes: Array<PassOutcome | undefined> = []
  const width = Math.max(1, Math.min(passes.length, Math.floor(opts.concurrency ?? PASS_CONCURRENCY)))
  // One at a time keeps the list's order, as the set always ran before it ran passes at once.
  const order = width > 1 ? startOrder(passes) : passes.map((_, i) => i)
  let stopped = false
  const worker = async (): Promise<void> => {
    for (let i = order.shift(); i !== undefined && !stopped && !opts.signal?.aborted; i = order.shift()) {
      const pass = passes[i]!
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
      outcomes[i] = { pass, progress: final }
      if (final.phase !== 'done') stopped = true
    }
  }
  await Promise.all(Array.from({ length: width }, worker))

  const out: MembershipResult = { phase: 'done', passes: [], requests: 0, stored: 0, warnings: [] }
  for (const o of outcomes) {
    if (!o) continue
    out.passes.push(o)
    out.requests += o.progress.requests
    out.stored += o.progress.stored
    out.warnings.push(...o.progress.warnings.map((w) => `${describePass(o.pass)}: ${w}`))
    if (o.progress.phase !== 'done' && out.phase === 'done') {
      out.phase = o.progress.phase === 'cancelled' ? 'cancelled' : 'failed'
      out.error = o.progress.error
    }
  }
  if (out.phase === 'done' && out.passes.length < passes.length) {
    out.phase = 'cancelled'
    out.error = { code: 'Cancelled', message: 'The membership passes were cancelled; the next run continues where they stopped.' }
  }
  if (out.stored > 0) {
    try {
      await deps.cache.settleIndex(out.stored)
    } catch (e) {
      deps.logger.log('warn', 'The full-text index was not merged after the membership passes', { error: String(e) })
    }
  }
  progress.end(out)
  return out
}

/**
 * The progress of the whole set: counts of the passes done plus those of the passes running.
 * `pass` counts the passes started. A start names the pass started (the CLI prints a line for
 * it); after that `current` and `sync` are the longest-running pass's, so the line that names
 * it stays put while the passes beside it report.
 */
class SetProgress {
  private doneRequests = 0
  private doneStored = 0
  private started = 0
  private finished = 0
  private readonly running = new Map<number, SyncProgress | null>()
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
    this.started++
    this.running.set(i, null)
    this.emit({ ...this.last, pass: this.started, current: this.passes[i]!, sync: null, etaSeconds: this.eta() })
  }

  update(i: number, p: SyncProgress): void {
    this.running.set(i, p)
    const live = [...this.running.values()]
    const [first, firstProgress] = this.running.entries().next().value ?? [i, p]
    this.emit({
      ...this.last,
      pass: this.started,
      current: this.passes[first]!,
      requests: this.doneRequests + live.reduce((n, r) => n + (r?.requests ?? 0), 0),
      stored: this.doneStored + live.reduce((n, r) => n + (r?.stored ?? 0), 0),
      etaSeconds: this.eta(),
      sync: firstProgress
    })
  }

  finish(i: number, p: SyncProgress): void {
    this.running.delete(i)
    this.finished++
    this.doneRequests += p.requests
    this.doneStored += p.stored
    this.last = { ...this.last, pass: this.started, requests: this.doneRequests, stored: this.doneStored, sync: p }
  }

  end(r: MembershipResult): void {
    this.emit({ ...this.last, phase: r.phase, etaSeconds: r.phase === 'done' ? 0 : null })
  }

  /**
   * The running passes' own ETAs (they share the limiter, so they add up), plus the passes
   * not started at the average reads of the passes done in their group, or one request each
   * (an empty pass costs one) when none is.
   */
  private eta(): number | null {
    const waiting = this.passes.length - this.started
    const remaining =
      waiting === 0 ? 0 : secondsFor(groupRequests({ passes: waiting, calls: this.readPerPass() * waiting }), this.deps.rateLimit)
    let current = 0
    for (const p of this.running.values()) {
      // A pass that has not reported yet has fetched nothing: its ETA is not known.
      if (p === null) continue
      if (p.etaSeconds === null) return null
      current += p.etaSeconds
    }
    return current + remaining
  }

  /** Calls a pass has read on average so far (its share of the range). */
  private readPerPass(): number {
    return this.finished > 0 ? this.doneStored / this.finished : 0
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
