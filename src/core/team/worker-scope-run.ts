import type { SyncProgress, SyncPace, SyncScopeInput } from '../../shared/domain'
import type { AppErrorInfo } from '../../shared/errors'
import { isAbortError, toErrorInfo } from '../errors'
import { readCheckpoint, SyncEngine } from '../sync'
import { mapPgError } from './connection'
import { errorDetail } from './error-detail'
import type { PgPageCounts } from './pg-write-group'
import { watched } from './watched'
import { scopeAt, type WorkerScopeConfig } from './worker-config'
import { fullPassKey, planFullPass } from './worker-full-pass'
import type { WorkerMetrics } from './worker-metrics'
import { writeScopeState } from './worker-scope-state'
import type { WorkerDeps } from './worker'

/** done: synced (or cancelled by a stop); skipped: another process runs it; teamCacheLost: PostgreSQL went away, retry the scope. */
export type ScopeRunOutcome = 'done' | 'failed' | 'skipped' | 'teamCacheLost'

const RELOGIN_CODES = new Set(['ReloginRequired', 'NotSignedIn', 'Unauthorized'])

/** The limiter's pace against the tenant's limit, for a log line: slowed down when others spend it too. */
function paceFields(pace: SyncPace | undefined): Record<string, number | boolean> {
  return pace ? { pacePerMinute: Math.round(pace.perMinute), limitPerMinute: pace.limitPerMinute, throttled: pace.throttled } : {}
}

/** The server restarted, failed over or ended the session: not the sync's failure, a wait's. */
export function isTeamCacheLoss(e: unknown): boolean {
  return e !== undefined && mapPgError(e).code === 'Network'
}

type WorkerScope = ReturnType<typeof scopeAt>

/** A scope's run once started: the range it syncs, when, and how it is stopped. */
interface StartedRun {
  scope: WorkerScope
  startedAt: number
  /** Aborted by the heartbeat when another process took the scope. */
  run: AbortController
  /** The worker's stop or the heartbeat's. */
  runSignal: AbortSignal
  heartbeat: AbortController
  /** The engine of the sync phase, which the slow full pass's slice reuses. */
  engine?: SyncEngine
}

/** One incremental run of one scope, with what it did written to `worker_scopes`. */
export class ScopeRun {
  private lastThrown: unknown = undefined
  private storeThrown: unknown = undefined
  private changed = 0

  constructor(
    private readonly deps: WorkerDeps,
    private readonly metrics: WorkerMetrics,
    private readonly heartbeatMs: number
  ) {}

  /**
   * Lock the scope, start it (its checkpoint's range, its state, the heartbeat), sync it with
   * the engine, record the outcome; release the lock unless the team cache went away.
   */
  async run(cfg: WorkerScopeConfig, signal: AbortSignal, opts: { fullPass?: boolean } = {}): Promise<ScopeRunOutcome> {
    const { logger, store } = this.deps
    const scope = scopeAt(cfg, this.deps.clock.now())
    const key = SyncEngine.keyOf(scope)
    const locked = await this.lock(cfg, key)
    if (locked !== 'locked') return locked
    let started: StartedRun | undefined
    let lost = false
    try {
      started = await this.start(cfg, key, scope, signal)
      const final = await this.sync(cfg, started)
      started.heartbeat.abort()
      const outcome = await this.record(cfg, key, started, final, signal)
      lost = outcome === 'teamCacheLost'
      // After a successful run: this cycle's slice of the slow full pass.
      if (final.phase === 'done' && outcome === 'done' && opts.fullPass && started.engine && !started.runSignal.aborted) {
        await this.fullPassSlice(started.engine, key, cfg, started.runSignal)
      }
      return outcome
    } catch (e) {
      if (isAbortError(e)) return 'done'
      if (isTeamCacheLoss(e)) {
        lost = true
        return 'teamCacheLost'
      }
      logger.log('error', 'sync could not run', { scope: cfg.name, error: toErrorInfo(e), detail: errorDetail(e) })
      await this.putFailure(key, cfg.name, e)
      return 'failed'
    } finally {
      started?.heartbeat.abort()
      // Lost to a restart: the scope runs again at once, so it keeps its lease and reads as
      // running (stale if the wait outlasts the lease), not idle in between.
      if (!lost) await store.unlockScope(key)
    }
  }

  /** Lock: takes the scope's run lock, or says why not (another process has it, the team cache is gone or failed). */
  private async lock(cfg: WorkerScopeConfig, key: string): Promise<ScopeRunOutcome | 'locked'> {
    const { logger, store } = this.deps
    try {
      if (await store.lockScope(key, { holder: this.deps.workerName, leaseMs: this.heartbeatMs * 3 })) return 'locked'
      logger.log('warn', 'another process is syncing this scope; skipped', { scope: cfg.name })
      return 'skipped'
    } catch (e) {
      if (isTeamCacheLoss(e)) return 'teamCacheLost'
      logger.log('error', 'the team cache could not be reached', { scope: cfg.name, error: toErrorInfo(e) })
      await this.putFailure(key, cfg.name, e)
      return 'failed'
    }
  }

  /** Start: the range to sync (a pass cut short continues with its own), the scope marked running, the heartbeat. */
  private async start(cfg: WorkerScopeConfig, key: string, planned: WorkerScope, signal: AbortSignal): Promise<StartedRun> {
    const { clock, logger, store } = this.deps
    // Same range = same checkpoint.
    const cp = readCheckpoint(await store.getCheckpoint(key))
    const resumed = cp !== null && !cp.pager.done
    const scope = resumed ? { ...planned, from: cp.requestFrom, to: cp.requestTo } : planned
    const startedAt = clock.now()
    await this.putState(key, cfg.name, { running: true, run_started_at: startedAt })
    // Ended by a clean stop, or by the heartbeat when another process took the scope's run lock.
    const run = new AbortController()
    const heartbeat = this.beat(key, cfg.name, run)
    logger.log('info', 'sync started', {
      scope: cfg.name,
      scopeKey: key,
      from: new Date(scope.from).toISOString(),
      to: new Date(scope.to).toISOString(),
      resumed
    })
    return { scope, startedAt, run, runSignal: AbortSignal.any([signal, run.signal]), heartbeat }
  }

  /** Sync: one incremental engine run over watched ports (what they throw, what the store changed), progress logged every 10 s. */
  private async sync(cfg: WorkerScopeConfig, started: StartedRun): Promise<SyncProgress> {
    const { clock, logger } = this.deps
    const cache = watched(
      this.deps.store,
      (e) => {
        this.lastThrown = e
        this.storeThrown = e
      },
      (v, method) => {
        if (method !== 'writePages' || !Array.isArray(v)) return
        for (const c of v as PgPageCounts[]) this.changed += c.inserted + c.updated
      }
    )
    const source = watched(this.deps.source, (e) => (this.lastThrown = e))
    let lastLog = started.startedAt
    const onProgress = (p: SyncProgress): void => {
      const now = clock.now()
      if (now - lastLog < 10_000) return
      lastLog = now
      logger.log('info', 'sync progress', {
        scope: cfg.name,
        fetched: p.stored,
        stored: this.changed,
        requests: p.requests,
        requestsPerMinute: Math.round(p.requestsPerMinute),
        etaSeconds: p.etaSeconds,
        ...paceFields(p.pace)
      })
    }
    const engine = new SyncEngine({
      source,
      cache,
      clock,
      logger,
      rateLimit: this.deps.rateLimit,
      lookbackHours: this.deps.lookbackHours,
      waits: this.deps.waits,
      pace: this.deps.pace
    })
    started.engine = engine
    return engine.run(started.scope, { mode: 'incremental', signal: started.runSignal, onProgress })
  }

  /**
   * Record: the metrics, then the outcome — left to another process that took the scope, a
   * wait for a team cache that went away, or written to the scope's state and logged (signing
   * in again when the service asked for it).
   */
  private async record(
    cfg: WorkerScopeConfig,
    key: string,
    started: StartedRun,
    final: SyncProgress,
    signal: AbortSignal
  ): Promise<ScopeRunOutcome> {
    const { clock, logger } = this.deps
    this.metrics.callsFetched += final.stored
    this.metrics.requests += final.requests
    this.metrics.changesApplied += this.changed
    if (started.run.signal.aborted && !signal.aborted) {
      // The scope's state is the other process's now: not overwritten with "cancelled".
      logger.log('warn', 'sync stopped: another process runs this scope', { scope: cfg.name, fetched: final.stored })
      return 'skipped'
    }
    const error: AppErrorInfo | undefined = final.error
    if (final.phase === 'failed' && (error?.code === 'Network' || error?.code === 'Timeout') && isTeamCacheLoss(this.storeThrown)) {
      logger.log('warn', 'sync interrupted: the team cache went away; the scope continues from its checkpoint', {
        scope: cfg.name,
        fetched: final.stored,
        stored: this.changed
      })
      return 'teamCacheLost'
    }
    const ok = final.phase === 'done'
    const keepError = !ok || error?.code === 'DenseSecond'
    const failed = final.phase === 'failed'
    await this.putState(key, cfg.name, {
      running: false,
      last_finished_at: clock.now(),
      last_outcome: final.phase,
      last_stored: this.changed,
      last_fetched: final.stored,
      last_error_code: keepError ? (error?.code ?? null) : null,
      last_error_message: keepError ? (error?.message ?? null) : null,
      last_error_detail: keepError && error ? this.detailOf(error) : null,
      ...(failed ? { failing_since: clock.now() } : ok ? { failing_since: null } : {}),
      ...(ok ? { last_success_at: clock.now() } : {})
    })
    if (ok) {
      const m = this.metrics.scope(cfg.name)
      m.lastSuccessAt = clock.now()
      m.syncedTo = started.scope.to
    }
    logger.log(ok ? 'info' : final.phase === 'cancelled' ? 'warn' : 'error', `sync ${final.phase}`, {
      scope: cfg.name,
      // Calls the team cache took as new or changed; fetched counts every call read.
      stored: this.changed,
      fetched: final.stored,
      requests: final.requests,
      seconds: Math.round((clock.now() - started.startedAt) / 100) / 10,
      ...paceFields(final.pace),
      ...(error ? { error: { code: error.code, message: error.message } } : {})
    })
    if (error && RELOGIN_CODES.has(error.code) && this.deps.relogin && !signal.aborted) {
      try {
        await this.deps.relogin()
        logger.log('info', 'signed in to the service again')
      } catch (e) {
        logger.log('error', 'signing in again failed', { error: toErrorInfo(e) })
      }
    }
    return ok || final.phase === 'cancelled' ? 'done' : 'failed'
  }

  /**
   * One slice of the slow full pass (worker-full-pass.ts): a full run over it, so calls the
   * service changed before the look-back are read again. Only a slice read to its end moves
   * the cursor on; one cut short is read again next cycle.
   */
  private async fullPassSlice(engine: SyncEngine, key: string, cfg: WorkerScopeConfig, signal: AbortSignal): Promise<void> {
    const { clock, logger, store } = this.deps
    const everyMs = this.deps.fullPassEveryMs
    if (!everyMs) return
    const range: SyncScopeInput = scopeAt(cfg, clock.now())
    const plan = planFullPass(
      await store.getCheckpoint(fullPassKey(key)),
      { from: range.from, to: range.to },
      { now: clock.now(), everyMs, intervalMs: this.deps.intervalMs, lookbackMs: this.deps.lookbackHours * 3_600_000 }
    )
    if (plan.slice === null) {
      await store.setCheckpoint(fullPassKey(key), plan.state)
      return
    }
    const final = await engine.run({ ...range, ...plan.slice }, { mode: 'full', signal })
    this.metrics.callsFetched += final.stored
    this.metrics.requests += final.requests
    const state = final.phase === 'done' ? { ...plan.state, cursor: plan.slice.from } : plan.state
    await store.setCheckpoint(fullPassKey(key), state)
    logger.log(final.phase === 'done' ? 'info' : 'warn', `full pass slice ${final.phase}`, {
      scope: cfg.name,
      from: new Date(plan.slice.from).toISOString(),
      to: new Date(plan.slice.to).toISOString(),
      fetched: final.stored,
      requests: final.requests,
      remainingTo: new Date(Math.max(range.from, state.cursor)).toISOString(),
      ...(final.error ? { error: { code: final.error.code, message: final.error.message } } : {})
    })
  }

  /** The cause chain of the error the engine reduced to `info`, when one was caught on its way. */
  private detailOf(info: AppErrorInfo): string {
    const thrown = this.lastThrown
    if (thrown !== undefined && toErrorInfo(thrown).code === info.code) return errorDetail(thrown)
    return errorDetail({ name: info.code, message: `${info.message}${info.hint ? ` (${info.hint})` : ''}` })
  }

  private async putFailure(key: string, name: string, e: unknown): Promise<void> {
    const info = toErrorInfo(e)
    await this.putState(key, name, {
      running: false,
      last_outcome: 'failed',
      last_finished_at: this.deps.clock.now(),
      last_error_code: info.code,
      last_error_message: info.message,
      last_error_detail: errorDetail(e),
      failing_since: this.deps.clock.now()
    }).catch(() => undefined)
  }

  /**
   * Renews the running scope's lease until aborted: it lets workstations tell a running
   * worker from one that is hung or cut off (lease lapsed: stale) or long gone (interrupted),
   * and keeps other processes off the scope. When another process took the scope while the
   * lease had lapsed, this run stops (`run` aborts) and leaves the scope to it.
   */
  private beat(key: string, name: string, run: AbortController): AbortController {
    const stop = new AbortController()
    const { store, clock, logger } = this.deps
    void (async () => {
      let failing = false
      for (;;) {
        try {
          await clock.sleep(this.heartbeatMs, stop.signal)
        } catch {
          return
        }
        try {
          if (!(await store.keepScopeLock(key))) {
            logger.log('warn', 'another process took this scope while its lease had lapsed; this run stops', { scope: name })
            run.abort()
            return
          }
          failing = false
        } catch (e) {
          // The next beat tries again; a lease that lapses meanwhile reads as stale, which is true.
          // Said once per outage, not once per beat.
          if (!failing) logger.log('warn', 'the worker heartbeat could not be written', { error: toErrorInfo(e) })
          failing = true
        }
      }
    })()
    return stop
  }

  private async putState(key: string, name: string, fields: Record<string, unknown>): Promise<void> {
    await writeScopeState(
      this.deps.store,
      { key, name, worker: this.deps.workerName, now: this.deps.clock.now(), leaseMs: this.heartbeatMs * 3 },
      fields
    )
  }
}
