import type { RateLimit, SyncPace } from '../../shared/domain'
import { toErrorInfo } from '../errors'
import type { Clock, Logger } from '../platform'
import { SyncEngine, type SyncSource, type WaitSource } from '../sync'
import { PASS_CONCURRENCY, startOrder } from '../sync/membership-pass'
import { q } from './connection'
import { PG_NOW_MS } from './pg-clock'
import type { PgSyncStore } from './pg-store'
import { buildDirtyChunks } from './team-postings-build'
import { scopeAt, type WorkerScopeConfig } from './worker-config'
import { WorkerMetrics } from './worker-metrics'
import { learnsMemberships, passConfig, workerPasses, type MembershipPlan } from './worker-memberships'
import { ScopeOwnership } from './worker-owner'
import { isTeamCacheLoss, ScopeRun } from './worker-scope-run'

export { scopeAt, WorkerConfig, WorkerScopeConfig } from './worker-config'
export { PG_NOW_MS }

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
  /** The numbers an operator graphs; written to its file after each scope and each cycle. */
  metrics?: WorkerMetrics
  /** Membership passes after each scope that holds every call; none when null or absent. */
  memberships?: MembershipPlan | null
  /** The slow full pass's period (worker-full-pass.ts); none when null or absent. */
  fullPassEveryMs?: number | null
  /** Membership passes run at once (PASS_CONCURRENCY when absent); 1 runs them one by one in list order. */
  passConcurrency?: number
}

/** Waits between looks at a PostgreSQL that went away: short first, so a restart costs seconds. */
export const TEAM_CACHE_BACKOFF_MS = { first: 1000, max: 30_000 }
/** Times in a row a reachable server may end a scope's sessions before the run counts as failed. */
const IMMEDIATE_RETRIES = 5

const hhmmss = (ms: number): string => new Date(ms).toISOString().slice(11, 19)

/**
 * Keeps a set of scopes fresh: every interval, each scope is synced incrementally (the
 * engine re-fetches the look-back before the covered end), one after the other. A pass that
 * was cut short (a kill, a stop, PostgreSQL going away) is continued with its own range before
 * a new one starts. Each scope is owned by one worker for its life (ScopeOwnership): a second
 * worker for the same scopes waits as a standby. What it does is written to `worker_scopes`
 * for workstations to show; its log is one JSON object per line.
 */
export class TeamWorker {
  readonly metrics: WorkerMetrics

  /** The wait for PostgreSQL in progress, shared by every pass that meets the outage. */
  private outage: Promise<boolean> | null = null

  constructor(private readonly deps: WorkerDeps) {
    this.metrics = deps.metrics ?? new WorkerMetrics(undefined, () => deps.clock.now())
  }

  private get heartbeatMs(): number {
    return this.deps.heartbeatMs ?? 10_000
  }

  /** Runs cycles until the signal aborts (or after one with `once`). Resolves after a clean stop. */
  async run(signal: AbortSignal, opts: { once?: boolean } = {}): Promise<{ cycles: number; failures: number }> {
    const { clock, logger, scopes } = this.deps
    const ownership = new ScopeOwnership(this.deps.store.pool, this.deps.store.schema, this.deps.workerName, this.heartbeatMs * 3)
    // A scope's key does not depend on its range.
    const keys = new Map(scopes.map((cfg) => [cfg.name, SyncEngine.keyOf(scopeAt(cfg, clock.now()))]))
    const owned = new Set<string>()
    const standbyFor = new Map<string, string>()
    const due = new Map<string, number>()
    const ranOnce = new Set<string>()
    let cycles = 0
    let failures = 0
    logger.log('info', 'worker started', { scopes: scopes.map((s) => s.name), intervalMs: this.deps.intervalMs })
    const ownerBeat = this.ownerBeat(ownership, owned)
    try {
      while (!signal.aborted) {
        await this.claimAll(ownership, keys, owned, standbyFor, due, signal)
        const ranNow: string[] = []
        for (const cfg of scopes) {
          if (signal.aborted) break
          if (!owned.has(keys.get(cfg.name)!) || clock.now() < (due.get(cfg.name) ?? 0)) continue
          if (!(await this.rideOut(cfg, signal, true))) failures++
          else if (!signal.aborted) failures += await this.runMemberships(cfg, ownership, owned, signal)
          ranNow.push(cfg.name)
          ranOnce.add(cfg.name)
          this.writeMetrics()
        }
        if (ranNow.length > 0) {
          cycles++
          const next = clock.now() + this.deps.intervalMs
          for (const name of ranNow) due.set(name, next)
          await this.countCalls()
          await this.buildCountPostings(signal)
          this.writeMetrics()
        }
        if (signal.aborted || (opts.once && scopes.every((s) => ranOnce.has(s.name)))) break
        if (ranNow.length > 0) {
          const next = clock.now() + this.deps.intervalMs
          await this.setNextRun(next)
          logger.log('info', 'waiting for the next cycle', { nextRunAt: new Date(next).toISOString() })
        }
        const wake = Math.min(...scopes.map((s) => due.get(s.name) ?? 0))
        try {
          await clock.sleep(Math.max(10, wake - clock.now()), signal)
        } catch {
          break
        }
      }
    } finally {
      ownerBeat.abort()
      await ownership.releaseAll()
      try {
        this.metrics.write(false)
      } catch (e) {
        logger.log('warn', 'the metrics file could not be written', { error: toErrorInfo(e) })
      }
    }
    logger.log('info', 'worker stopped', { cycles, failures })
    return { cycles, failures }
  }

  /**
   * Runs the scope, and when PostgreSQL goes away meanwhile (a restart, a failover) waits for
   * it and runs the same scope again from its checkpoint: never the next scope while the
   * server is down, and not a failed run. False when the run failed.
   */
  private async rideOut(cfg: WorkerScopeConfig, signal: AbortSignal, fullPass = false): Promise<boolean> {
    let immediate = 0
    for (;;) {
      const outcome = await new ScopeRun(this.deps, this.metrics, this.heartbeatMs).run(cfg, signal, { fullPass })
      if (outcome !== 'teamCacheLost') return outcome !== 'failed'
      if (signal.aborted) return true
      if (await this.waitForTeamCache(signal)) immediate = 0
      else if (++immediate > IMMEDIATE_RETRIES) {
        this.deps.logger.log('error', 'the team cache keeps ending the sessions; the scope waits for the next cycle', { scope: cfg.name })
        return false
      }
    }
  }

  /**
   * The membership passes of a scope that holds every call, each a scope run of its own over
   * the scope's range (incremental like it, its own row in `worker_scopes`, owned by this
   * worker like the scope). The configured call types go into the catalog first; the passes
   * are those of the catalog as it is then. Up to `passConcurrency` passes run at once, each
   * its own scope run and checkpoint, all over the one limiter of the source: another pass's
   * pages fill the gaps where one pass's pipeline drains. A pass that fails ends the set for
   * this cycle: no further pass starts, the ones running finish (the service or the team
   * cache is in trouble; the next cycle starts again). The number of failures.
   */
  private async runMemberships(
    cfg: WorkerScopeConfig,
    ownership: ScopeOwnership,
    owned: Set<string>,
    signal: AbortSignal
  ): Promise<number> {
    const { store, logger, clock } = this.deps
    const plan = this.deps.memberships
    if (!plan || !learnsMemberships(cfg)) return 0
    let catalog
    try {
      const known = new Map((await store.callTypes()).map((t) => [t.value, t.description]))
      // A Value alone never blanks a description the catalog has.
      const add = plan.types.filter((t) => (t.description === '' ? !known.has(t.value) : known.get(t.value) !== t.description))
      await store.upsertCallTypes(add)
      catalog = await store.callTypes()
    } catch (e) {
      logger.log('error', 'the call type catalog could not be read; no membership passes this cycle', {
        scope: cfg.name,
        error: toErrorInfo(e)
      })
      return 1
    }
    const passes = workerPasses(catalog, plan)
    const width = Math.max(1, Math.min(passes.length, Math.floor(this.deps.passConcurrency ?? PASS_CONCURRENCY)))
    // One at a time keeps the list's order; at once, the longest passes start first (startOrder).
    const order = width > 1 ? startOrder(passes) : passes.map((_, i) => i)
    let failed = false
    const lane = async (): Promise<void> => {
      for (let i = order.shift(); i !== undefined && !failed && !signal.aborted; i = order.shift()) {
        const passCfg = passConfig(cfg, passes[i]!)
        const key = SyncEngine.keyOf(scopeAt(passCfg, clock.now()))
        if (!owned.has(key)) {
          if ((await this.claim(ownership, key, passCfg.name, signal)) !== null) continue
          owned.add(key)
        }
        if (!(await this.rideOut(passCfg, signal))) failed = true
        this.writeMetrics()
      }
    }
    await Promise.all(Array.from({ length: width }, lane))
    return failed ? 1 : 0
  }

  /**
   * Takes the scopes not owned yet, in the configuration's order, before any run: two workers
   * started together meet on the first scope, and the one that gets it gets every scope (not
   * half each, sharing the tenant's rate limit). Once one is owned by another worker, this one
   * takes no later scope and is recorded as their standby; it looks again a heartbeat later.
   */
  private async claimAll(
    ownership: ScopeOwnership,
    keys: Map<string, string>,
    owned: Set<string>,
    standbyFor: Map<string, string>,
    due: Map<string, number>,
    signal: AbortSignal
  ): Promise<void> {
    const { clock, logger } = this.deps
    let blocked = false
    // Workers whose scope was just taken over: their leases lapsed together (one heartbeat
    // renews them all), so their other scopes are looked at now, not a heartbeat later.
    const lapsed = new Set<string>()
    for (const cfg of this.deps.scopes) {
      const key = keys.get(cfg.name)!
      if (owned.has(key) || signal.aborted) continue
      const fromLapsed = lapsed.has(standbyFor.get(cfg.name) ?? '')
      if (!blocked && !fromLapsed && clock.now() < (due.get(cfg.name) ?? 0)) {
        blocked = true
        continue
      }
      const owner = blocked ? await ownership.markStandby(key).catch(() => null) : await this.claim(ownership, key, cfg.name, signal)
      if (signal.aborted) return
      if (owner === null && blocked) {
        due.set(cfg.name, clock.now() + this.heartbeatMs)
        continue
      }
      if (owner !== null) {
        blocked = true
        if (standbyFor.get(cfg.name) !== owner)
          logger.log('info', `standby: scope ${cfg.name} is run by ${owner}`, { scope: cfg.name, owner })
        standbyFor.set(cfg.name, owner)
        due.set(cfg.name, clock.now() + this.heartbeatMs)
        continue
      }
      const from = standbyFor.get(cfg.name)
      if (from !== undefined) {
        logger.log('info', 'taking over the scope', { scope: cfg.name, from })
        lapsed.add(from)
      }
      standbyFor.delete(cfg.name)
      due.delete(cfg.name)
      owned.add(key)
    }
  }

  /** The scope's owner (null: this worker), riding out PostgreSQL going away like a run does. */
  private async claim(ownership: ScopeOwnership, key: string, name: string, signal: AbortSignal): Promise<string | null> {
    for (;;) {
      try {
        return await ownership.claim(key, name)
      } catch (e) {
        if (!isTeamCacheLoss(e) || signal.aborted) {
          // Not a wait's matter (a schema not set up, a role refused): the run says why.
          this.deps.logger.log('warn', 'the scope owner could not be read', { scope: name, error: toErrorInfo(e) })
          return null
        }
        await this.waitForTeamCache(signal)
      }
    }
  }

  /**
   * Waits until PostgreSQL answers again, looking 1, 2, 4 … up to 30 s apart (with jitter, so
   * that many workers do not knock at once). False when it answered at once (only the session
   * was ended): the caller retries without a wait. Membership passes running at once meet the
   * same outage: the first starts the wait, the others join it, so the log says "waiting for
   * PostgreSQL" and "PostgreSQL is back" once per outage, not once per pass.
   */
  private waitForTeamCache(signal: AbortSignal): Promise<boolean> {
    if (this.outage) return this.outage
    const wait = this.waitOutTeamCache(signal).finally(() => {
      if (this.outage === wait) this.outage = null
    })
    this.outage = wait
    return wait
  }

  private async waitOutTeamCache(signal: AbortSignal): Promise<boolean> {
    const { clock, logger, store } = this.deps
    const probe = async (): Promise<boolean> => {
      try {
        await store.pool.query('SELECT 1')
        return true
      } catch {
        return false
      }
    }
    if (await probe()) return false
    const since = clock.now()
    logger.log('warn', `waiting for PostgreSQL since ${hhmmss(since)}`, { since: new Date(since).toISOString() })
    let delay = TEAM_CACHE_BACKOFF_MS.first
    while (!signal.aborted) {
      try {
        await clock.sleep(Math.round(delay * (0.8 + Math.random() * 0.4)), signal)
      } catch {
        return true
      }
      if (await probe()) {
        logger.log('info', 'PostgreSQL is back', {
          since: new Date(since).toISOString(),
          downSeconds: Math.round((clock.now() - since) / 1000)
        })
        return true
      }
      delay = Math.min(TEAM_CACHE_BACKOFF_MS.max, delay * 2)
    }
    return true
  }

  /** Renews this worker's ownership of its scopes for its whole life, between runs too. */
  private ownerBeat(ownership: ScopeOwnership, owned: Set<string>): AbortController {
    const stop = new AbortController()
    const { clock, logger } = this.deps
    void (async () => {
      let failing = false
      for (;;) {
        try {
          await clock.sleep(this.heartbeatMs, stop.signal)
        } catch {
          return
        }
        try {
          const kept = await ownership.renew([...owned])
          for (const key of [...owned]) {
            if (kept.has(key)) continue
            owned.delete(key)
            logger.log('warn', 'another worker took over a scope while this one was cut off', { scopeKey: key })
          }
          this.metrics.lastHeartbeatAt = clock.now()
          failing = false
        } catch (e) {
          if (!failing) logger.log('warn', 'the worker heartbeat could not be written', { error: toErrorInfo(e) })
          failing = true
        }
      }
    })()
    return stop
  }

  private async countCalls(): Promise<void> {
    const { store } = this.deps
    try {
      const r = await store.pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${q(store.schema)}.calls`)
      this.metrics.callsInCache = Number(r.rows[0]?.n ?? 0)
    } catch {
      // Kept from the last count; the next cycle counts again.
    }
  }

  /**
   * The count's postings of the chunks this cycle's writes touched: until they are built,
   * searches count those chunks by SQL (exact, slower). A failure waits for the next cycle.
   */
  private async buildCountPostings(signal: AbortSignal): Promise<void> {
    const { store, logger } = this.deps
    try {
      // A migrated or newly enabled cache has every chunk to build (minutes at millions of
      // calls): a share of the interval each cycle, so the next cycle's sync is not held back.
      const r = await buildDirtyChunks(store.pool, store.schema, { signal, budgetMs: postingsBudgetMs(this.deps.intervalMs) })
      if (r.built + r.again > 0) logger.log('info', 'count postings built', { chunks: r.built, dirtyAgain: r.again })
    } catch (e) {
      logger.log('warn', 'the count postings could not be built; searches count those calls by SQL meanwhile', { error: toErrorInfo(e) })
    }
  }

  private writeMetrics(): void {
    try {
      this.metrics.write(true)
    } catch (e) {
      this.deps.logger.log('warn', 'the metrics file could not be written', { error: toErrorInfo(e) })
    }
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

/** The time a cycle gives the count's postings: half the interval, at least 5 s, at most a minute. */
export function postingsBudgetMs(intervalMs: number): number {
  return Math.min(60_000, Math.max(5_000, intervalMs / 2))
}
