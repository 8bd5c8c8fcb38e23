import { z } from 'zod'
import { BaseUrl, IanaZone, RateLimit, ResultsFilter, type SyncPace, type SyncProgress, type SyncScopeInput } from '../../shared/domain'
import type { AppErrorInfo } from '../../shared/errors'
import { isAbortError, toErrorInfo } from '../errors'
import type { Clock, Logger } from '../platform'
import { readCheckpoint, SyncEngine, type SyncSource, type WaitSource } from '../sync'
import { passwordInUrl, SchemaName, SslMode } from './connection'
import type { PgSyncStore } from './pg-store'
import { q } from './connection'
import { PG_NOW_MS } from './pg-clock'

const DAY = 86_400_000

/** One scope the worker keeps fresh: a rolling range of `days` up to now, or from a fixed instant. */
export const WorkerScopeConfig = z
  .object({
    name: z.string().trim().min(1).max(80),
    days: z.number().int().min(1).max(3660).optional(),
    /** An ISO instant with offset (e.g. 2026-01-01T00:00:00+03:00): the range starts there. */
    from: z.iso.datetime({ offset: true }).optional(),
    analysis: z.boolean().default(false),
    results: ResultsFilter.default('answered'),
    types: z.array(z.string().min(1).max(200)).max(200).default([]),
    direction: z.number().int().nullable().default(null),
    hasNewRequest: z.boolean().nullable().default(null)
  })
  .strict()
  .refine((s) => (s.days === undefined) !== (s.from === undefined), { message: 'give a scope either days or from' })
export type WorkerScopeConfig = z.infer<typeof WorkerScopeConfig>

/** The worker's configuration file (JSON). Passwords are never in it: see docs/team.md. */
export const WorkerConfig = z
  .object({
    server: BaseUrl,
    user: z.string().trim().min(1),
    zone: IanaZone,
    db: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'a postgres:// connection string')
      .refine((url) => passwordInUrl(url) === null, {
        message: 'put the password in PGPASSWORD or ~/.pgpass, not in the file (no user:password@, ?password= or ?sslpassword=)'
      }),
    schema: SchemaName,
    sslMode: SslMode.optional(),
    sslRootCert: z.string().optional(),
    rateLimit: RateLimit.default({ requests: 60, perSeconds: 60 }),
    intervalMinutes: z
      .number()
      .min(0.01)
      .max(24 * 60)
      .default(15),
    lookbackHours: z
      .number()
      .int()
      .min(0)
      .max(24 * 366)
      .default(48),
    /** How often a running scope's lease is renewed; it lapses after three missed beats. */
    heartbeatSeconds: z.number().min(0.05).max(300).default(10),
    scopes: z.array(WorkerScopeConfig).min(1).max(50)
  })
  .strict()
  .refine((c) => new Set(c.scopes.map((s) => s.name)).size === c.scopes.length, { message: 'scope names must differ' })
export type WorkerConfig = z.infer<typeof WorkerConfig>

/** The scope's range at `now` (whole seconds: the service reads whole seconds). */
export function scopeAt(cfg: WorkerScopeConfig, now: number): SyncScopeInput {
  const to = Math.floor(now / 1000) * 1000
  const from = cfg.from !== undefined ? Date.parse(cfg.from) : to - cfg.days! * DAY
  return {
    from,
    to,
    callTypes: cfg.types,
    direction: cfg.direction,
    results: cfg.results,
    hasNewRequest: cfg.hasNewRequest,
    includeAnalysis: cfg.analysis
  }
}

export interface WorkerDeps {
  store: PgSyncStore
  source: SyncSource
  clock: Clock
  /** JSON lines in the CLI. */
  logger: Logger
  rateLimit: RateLimit
  lookbackHours: number
  intervalMs: number
  scopes: readonly WorkerScopeConfig[]
  /** host:pid, shown to workstations. */
  workerName: string
  /** How often a running scope's heartbeat is written; default 10 s (the lease is three beats). */
  heartbeatMs?: number
  waits?: WaitSource
  /** Signs in again after the session ended (refresh token expired). */
  relogin?: () => Promise<void>
  /** The tenant limiter's pace now, reported in the progress and done lines. */
  pace?: () => SyncPace
}

/** The limiter's pace against the tenant's limit, for a log line: slowed down when others spend it too. */
function paceFields(pace: SyncPace | undefined): Record<string, number | boolean> {
  return pace ? { pacePerMinute: Math.round(pace.perMinute), limitPerMinute: pace.limitPerMinute, throttled: pace.throttled } : {}
}

export { PG_NOW_MS }

const RELOGIN_CODES = new Set(['ReloginRequired', 'NotSignedIn', 'Unauthorized'])

/**
 * Keeps a set of scopes fresh: every interval, each scope is synced incrementally (the
 * engine re-fetches the look-back before the covered end), one after the other. A pass that
 * was cut short (a kill, a stop) is continued with its own range before a new one starts,
 * so a killed first sync of months never starts over. What it does is written to
 * `worker_scopes` for workstations to show; its log is one JSON object per line.
 */
export class TeamWorker {
  constructor(private readonly deps: WorkerDeps) {}

  /** Runs cycles until the signal aborts (or after one with `once`). Resolves after a clean stop. */
  async run(signal: AbortSignal, opts: { once?: boolean } = {}): Promise<{ cycles: number; failures: number }> {
    const { clock, logger } = this.deps
    let cycles = 0
    let failures = 0
    logger.log('info', 'worker started', { scopes: this.deps.scopes.map((s) => s.name), intervalMs: this.deps.intervalMs })
    while (!signal.aborted) {
      for (const cfg of this.deps.scopes) {
        if (signal.aborted) break
        const ok = await this.runScope(cfg, signal)
        if (!ok) failures++
      }
      cycles++
      if (signal.aborted || opts.once) break
      const next = clock.now() + this.deps.intervalMs
      await this.setNextRun(next)
      logger.log('info', 'waiting for the next cycle', { nextRunAt: new Date(next).toISOString() })
      try {
        await clock.sleep(this.deps.intervalMs, signal)
      } catch {
        break
      }
    }
    logger.log('info', 'worker stopped', { cycles, failures })
    return { cycles, failures }
  }

  private async runScope(cfg: WorkerScopeConfig, signal: AbortSignal): Promise<boolean> {
    const { store, clock, logger } = this.deps
    let scope = scopeAt(cfg, clock.now())
    const key = SyncEngine.keyOf(scope)
    try {
      if (!(await store.lockScope(key, { holder: this.deps.workerName, leaseMs: this.heartbeatMs * 3 }))) {
        logger.log('warn', 'another process is syncing this scope; skipped', { scope: cfg.name })
        return true
      }
    } catch (e) {
      logger.log('error', 'the team cache could not be reached', { scope: cfg.name, error: toErrorInfo(e) })
      return false
    }
    let heartbeat: AbortController | undefined
    try {
      // A pass cut short continues with its own range (same range = same checkpoint).
      const cp = readCheckpoint(await store.getCheckpoint(key))
      if (cp && !cp.pager.done) scope = { ...scope, from: cp.requestFrom, to: cp.requestTo }
      const startedAt = clock.now()
      await this.putState(key, cfg.name, { running: true, run_started_at: startedAt })
      // Ended by a clean stop, or by the heartbeat when another process took the scope's run lock.
      const run = new AbortController()
      const runSignal = AbortSignal.any([signal, run.signal])
      heartbeat = this.beat(key, cfg.name, run)
      logger.log('info', 'sync started', {
        scope: cfg.name,
        scopeKey: key,
        from: new Date(scope.from).toISOString(),
        to: new Date(scope.to).toISOString(),
        resumed: cp !== null && !cp.pager.done
      })
      let lastLog = startedAt
      const onProgress = (p: SyncProgress): void => {
        const now = clock.now()
        if (now - lastLog < 10_000) return
        lastLog = now
        logger.log('info', 'sync progress', {
          scope: cfg.name,
          stored: p.stored,
          requests: p.requests,
          requestsPerMinute: Math.round(p.requestsPerMinute),
          etaSeconds: p.etaSeconds,
          // The limiter's pace against the tenant's limit: slowed down when others spend it too.
          ...paceFields(p.pace)
        })
      }
      const engine = new SyncEngine({
        source: this.deps.source,
        cache: store,
        clock,
        logger,
        rateLimit: this.deps.rateLimit,
        lookbackHours: this.deps.lookbackHours,
        waits: this.deps.waits,
        pace: this.deps.pace
      })
      const final = await engine.run(scope, { mode: 'incremental', signal: runSignal, onProgress })
      heartbeat.abort()
      if (run.signal.aborted && !signal.aborted) {
        // The scope's state is the other process's now: not overwritten with "cancelled".
        logger.log('warn', 'sync stopped: another process runs this scope', { scope: cfg.name, stored: final.stored })
        return true
      }
      const ok = final.phase === 'done'
      const error: AppErrorInfo | undefined = final.error
      await this.putState(key, cfg.name, {
        running: false,
        last_finished_at: clock.now(),
        last_outcome: final.phase,
        last_stored: final.stored,
        last_error_code: ok && error?.code !== 'DenseSecond' ? null : (error?.code ?? null),
        last_error_message: ok && error?.code !== 'DenseSecond' ? null : (error?.message ?? null),
        ...(ok ? { last_success_at: clock.now() } : {})
      })
      logger.log(ok ? 'info' : final.phase === 'cancelled' ? 'warn' : 'error', `sync ${final.phase}`, {
        scope: cfg.name,
        stored: final.stored,
        requests: final.requests,
        seconds: Math.round((clock.now() - startedAt) / 100) / 10,
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
      return ok || final.phase === 'cancelled'
    } catch (e) {
      if (isAbortError(e)) return true
      logger.log('error', 'sync could not run', { scope: cfg.name, error: toErrorInfo(e) })
      await this.putState(key, cfg.name, {
        running: false,
        last_outcome: 'failed',
        last_finished_at: clock.now(),
        ...errorFields(e)
      }).catch(() => undefined)
      return false
    } finally {
      heartbeat?.abort()
      await store.unlockScope(key)
    }
  }

  private get heartbeatMs(): number {
    return this.deps.heartbeatMs ?? 10_000
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
        } catch (e) {
          // The next beat tries again; a lease that lapses meanwhile reads as stale, which is true.
          logger.log('warn', 'the worker heartbeat could not be written', { error: toErrorInfo(e) })
        }
      }
    })()
    return stop
  }

  private async putState(key: string, name: string, fields: Record<string, unknown>): Promise<void> {
    const { store } = this.deps
    const cols = Object.keys(fields)
    const values = cols.map((c) => fields[c])
    const now = this.deps.clock.now()
    const insertCols = ['scope_key', 'name', 'worker', 'updated_at', 'lease_ms', 'heartbeat_at', ...cols]
    const params = [key, name, this.deps.workerName, now, this.heartbeatMs * 3, ...values]
    const sets = [
      'name = excluded.name',
      'worker = excluded.worker',
      'updated_at = excluded.updated_at',
      'lease_ms = excluded.lease_ms',
      'heartbeat_at = excluded.heartbeat_at',
      ...cols.map((c) => `${c} = excluded.${c}`)
    ]
    await store.pool.query(
      `INSERT INTO ${q(store.schema)}.worker_scopes (${insertCols.join(', ')}) VALUES ($1, $2, $3, $4, $5, ${PG_NOW_MS}, ${values.map((_, i) => `$${i + 6}`).join(', ')})
       ON CONFLICT (scope_key) DO UPDATE SET ${sets.join(', ')}`,
      params
    )
  }

  private async setNextRun(at: number): Promise<void> {
    try {
      await this.deps.store.pool.query(
        `UPDATE ${q(this.deps.store.schema)}.worker_scopes SET next_run_at = $1, updated_at = $2 WHERE worker = $3`,
        [at, this.deps.clock.now(), this.deps.workerName]
      )
    } catch (e) {
      this.deps.logger.log('warn', 'the worker state could not be written', { error: toErrorInfo(e) })
    }
  }
}

function errorFields(e: unknown): Record<string, unknown> {
  const info = toErrorInfo(e)
  return { last_error_code: info.code, last_error_message: info.message }
}
