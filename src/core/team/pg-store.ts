import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import type pg from 'pg'
import { z } from 'zod'
import { CallType, ScopeStatus, SyncOutcome, type CallRecord } from '../../shared/domain'
import type { AppErrorInfo } from '../../shared/errors'
import { mergeInterval, Intervals } from '../cache/sync-state/coverage'
import type { ScopeFilters, WritePageInput } from '../cache'
import { CallsightError } from '../errors'
import type { Clock } from '../platform'
import { systemClock } from '../platform/node'
import type { SyncStore } from '../sync/ports'
import { createPool, mapPgError, q, type TeamDbOptions } from './connection'
import { checkPgSchema, migratePg, writeLockSql } from './pg-migrations'
import { PG_NOW_MS } from './pg-clock'
import { checkpointStatement, writeGroup, type PgPageCounts } from './pg-write-group'
import { processRuns } from './process-runs'
import { poolTransaction } from './pg-transaction'

export type { PgPageCounts }

const FiltersJson = ScopeStatus.shape.filters

/** A run lease's length when the holder does not say (a hand-run sync). */
const DEFAULT_LEASE_MS = 30_000

interface Lease {
  holder: string
  timer: NodeJS.Timeout | null
}

/** The analysis items as stored: [[key, friendlyName, value], ...]. */
export function analysisJson(r: CallRecord): string {
  return JSON.stringify(r.analysis.map((a) => [a.key, a.friendlyName, a.value]))
}

/**
 * The sync engine's store on PostgreSQL: the team cache. The same contract as the SQLite
 * cache — each group of pages with its membership, checkpoint and run counts in one
 * transaction, so a kill at any moment resumes without loss or duplicates — plus a change
 * number (`seq`) stamped on every row a write changes, which workstations pull by.
 *
 * Writers are serialized per schema by a table lock taken first thing in every write
 * (writeLockSql, which only the writer's privileges allow): sequence numbers are then handed out in commit order, and a reader that
 * has seen number N has seen every row numbered below it (no gaps filled in later).
 */
export class PgSyncStore implements SyncStore {
  private readonly s: string
  private readonly scopeIds = new Map<string, number>()
  /** The scopes whose run lease this process holds (see lockScope). */
  private readonly leases = new Map<string, Lease>()
  /** Who holds a lease taken without naming a holder: shown as the scope's worker. */
  readonly holder = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`

  private constructor(
    readonly pool: pg.Pool,
    readonly schema: string,
    private readonly clock: Clock
  ) {
    this.s = q(schema)
  }

  /**
   * Connects and checks the schema. With `migrate`, creates or upgrades it first (needs a
   * role that may create in the database); otherwise a missing or older schema is refused
   * with a hint to run `callsight team init`.
   */
  static async open(opts: TeamDbOptions & { clock?: Clock; migrate?: boolean }): Promise<PgSyncStore> {
    // Pipeline mode: a write transaction's statements go out back to back (pg-write-group.ts).
    const pool = createPool({ ...opts, maxConnections: opts.maxConnections ?? 4, pipeline: opts.pipeline ?? true })
    try {
      if (opts.migrate) await migratePg(pool, opts.schema)
      else await checkPgSchema(pool, opts.schema)
    } catch (e) {
      await pool.end().catch(() => undefined)
      throw mapPgError(e)
    }
    return new PgSyncStore(pool, opts.schema, opts.clock ?? systemClock)
  }

  async close(): Promise<void> {
    for (const key of [...this.leases.keys()]) await this.unlockScope(key)
    await this.pool.end()
  }

  /** Runs `fn` in one transaction that holds the schema's write lock. */
  async writeTx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    return poolTransaction(this.pool, fn, `BEGIN; ${writeLockSql(this.schema)}`)
  }

  /** Whether the team cache search is on (pg-migration-8.ts): what the writer fills. */
  private async searchOn(c: pg.ClientBase): Promise<boolean> {
    const r = await c.query<{ value: string }>(`SELECT value FROM ${this.s}.meta WHERE key = 'search'`)
    return r.rows[0]?.value !== 'off'
  }

  private async read<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<R[]> {
    try {
      return (await this.pool.query<R>(text, values)).rows
    } catch (e) {
      throw mapPgError(e)
    }
  }

  /**
   * Takes the run lease of a scope so that two workers, or a worker and a hand-run sync, never
   * sync one scope at once: its `worker_scopes` row marked running by this holder, renewed
   * (keepScopeLock) within `leaseMs`. A lease is a row only the writer may update, so a role
   * that can merely read the schema cannot take it (an advisory lock anyone connected could),
   * and no session or transaction is held for the run. A lease whose holder died lapses and is
   * taken over. False when another holder's lease is current.
   */
  async lockScope(scopeKey: string, opts: { holder?: string; leaseMs?: number; renew?: boolean } = {}): Promise<boolean> {
    const holder = opts.holder ?? this.holder
    const leaseMs = Math.max(1, Math.round(opts.leaseMs ?? DEFAULT_LEASE_MS))
    const r = await this.read<{ ok: boolean }>(
      `INSERT INTO ${this.s}.worker_scopes AS w (scope_key, name, worker, running, updated_at, heartbeat_at, lease_ms)
         VALUES ($1, $1, $2, true, $3, ${PG_NOW_MS}, $4)
       ON CONFLICT (scope_key) DO UPDATE SET worker = excluded.worker, running = true, heartbeat_at = excluded.heartbeat_at,
         lease_ms = excluded.lease_ms, updated_at = excluded.updated_at
       WHERE NOT w.running OR w.worker = excluded.worker OR w.heartbeat_at IS NULL OR w.lease_ms IS NULL
         OR w.heartbeat_at + w.lease_ms < ${PG_NOW_MS}
       RETURNING true AS ok`,
      [scopeKey, holder, this.clock.now(), leaseMs]
    )
    if (r.length === 0 && !(await this.takeFromDeadLocal(scopeKey, holder, leaseMs))) return false
    const old = this.leases.get(scopeKey)
    if (old?.timer) clearInterval(old.timer)
    const lease: Lease = { holder, timer: null }
    if (opts.renew) {
      // A hand-run sync has no heartbeat of its own: renewed here, a third of the lease apart.
      lease.timer = setInterval(() => void this.keepScopeLock(scopeKey).catch(() => undefined), Math.max(50, leaseMs / 3))
      lease.timer.unref()
    }
    this.leases.set(scopeKey, lease)
    return true
  }

  /**
   * A lease whose holder is a process of this machine that no longer runs (a worker killed and
   * started again) is taken at once instead of after it lapses.
   */
  private async takeFromDeadLocal(scopeKey: string, holder: string, leaseMs: number): Promise<boolean> {
    const rows = await this.read<{ worker: string }>(`SELECT worker FROM ${this.s}.worker_scopes WHERE scope_key = $1 AND running`, [
      scopeKey
    ])
    const current = rows[0]?.worker
    const m = current === undefined ? null : /^(.*):(\d+)(?::[0-9a-f]{8})?$/.exec(current)
    if (!m || m[1] !== hostname() || Number(m[2]) === process.pid || processRuns(Number(m[2]))) return false
    const r = await this.read(
      `UPDATE ${this.s}.worker_scopes SET worker = $3, heartbeat_at = ${PG_NOW_MS}, lease_ms = $4, updated_at = $5
       WHERE scope_key = $1 AND worker = $2 AND running RETURNING 1`,
      [scopeKey, current, holder, leaseMs, this.clock.now()]
    )
    return r.length > 0
  }

  /**
   * Renews this process's lease of the scope (PostgreSQL's clock). False when another holder
   * took it meanwhile (this one lapsed): the caller stops its run and leaves the scope to it.
   */
  async keepScopeLock(scopeKey: string): Promise<boolean> {
    const lease = this.leases.get(scopeKey)
    if (!lease) return this.lockScope(scopeKey)
    const r = await this.read(
      `UPDATE ${this.s}.worker_scopes SET heartbeat_at = ${PG_NOW_MS} WHERE scope_key = $1 AND worker = $2 AND running RETURNING 1`,
      [scopeKey, lease.holder]
    )
    if (r.length > 0) return true
    if (lease.timer) clearInterval(lease.timer)
    this.leases.delete(scopeKey)
    return false
  }

  /** Gives the lease back; a row only a hand-run sync's lease made (no worker outcome) is removed. */
  async unlockScope(scopeKey: string): Promise<void> {
    const lease = this.leases.get(scopeKey)
    if (!lease) return
    this.leases.delete(scopeKey)
    if (lease.timer) clearInterval(lease.timer)
    try {
      await this.pool.query(
        `UPDATE ${this.s}.worker_scopes SET running = false, heartbeat_at = NULL WHERE scope_key = $1 AND worker = $2 AND running`,
        [scopeKey, lease.holder]
      )
      await this.pool.query(
        `DELETE FROM ${this.s}.worker_scopes WHERE scope_key = $1 AND worker = $2 AND NOT running AND last_outcome IS NULL`,
        [scopeKey, lease.holder]
      )
    } catch {
      // The lease lapses by itself.
    }
  }

  private async scopeId(c: pg.ClientBase, scopeKey: string): Promise<number> {
    let id = this.scopeIds.get(scopeKey)
    if (id === undefined) {
      const r = await c.query<{ id: number }>(`SELECT id FROM ${this.s}.scopes WHERE scope_key = $1`, [scopeKey])
      id = r.rows[0]?.id
      if (id === undefined) throw new CallsightError('InvalidInput', `The sync scope "${scopeKey}" is not known to the team cache.`)
      this.scopeIds.set(scopeKey, id)
    }
    return id
  }

  async ensureScope(scopeKey: string, filters: ScopeFilters): Promise<void> {
    const json = JSON.stringify(FiltersJson.parse(filters))
    await this.writeTx(async (c) => {
      await c.query(
        `INSERT INTO ${this.s}.scopes (scope_key, filters, seq) SELECT $1::text, $2::text, nextval('${this.schema}.changes')
         WHERE NOT EXISTS (SELECT 1 FROM ${this.s}.scopes o WHERE o.scope_key = $1::text AND o.filters = $2::text)
         ON CONFLICT (scope_key) DO UPDATE SET filters = excluded.filters, seq = excluded.seq
         WHERE scopes.filters IS DISTINCT FROM excluded.filters`,
        [scopeKey, json]
      )
    })
  }

  async getCheckpoint(scopeKey: string): Promise<unknown> {
    const rows = await this.read<{ checkpoint: string }>(`SELECT checkpoint FROM ${this.s}.checkpoints WHERE scope_key = $1`, [scopeKey])
    return rows[0] ? (JSON.parse(rows[0].checkpoint) as unknown) : null
  }

  async setCheckpoint(scopeKey: string, checkpoint: unknown): Promise<void> {
    await this.writeTx((c) => checkpointStatement(c, this.schema, scopeKey, checkpoint))
  }

  /**
   * A group of pages in one transaction (pg-write-group.ts): upserts, memberships, checkpoints
   * and run counts, sent back to back on the pipelined connection.
   */
  async writePages(inputs: readonly WritePageInput[]): Promise<PgPageCounts[]> {
    if (inputs.length === 0) return []
    const now = this.clock.now()
    return this.writeTx(async (c) =>
      writeGroup(
        {
          c,
          schema: this.schema,
          now,
          // Read under the write lock, which switching search on or off takes too.
          search: await this.searchOn(c),
          scopeId: (cc, key) => Promise.resolve(this.scopeIds.get(key) ?? this.scopeId(cc, key))
        },
        inputs
      )
    )
  }

  async addCoverage(scopeKey: string, from: number, to: number): Promise<void> {
    await this.writeTx(async (c) => {
      const r = await c.query<{ coverage: string }>(`SELECT coverage FROM ${this.s}.scopes WHERE scope_key = $1 FOR UPDATE`, [scopeKey])
      if (!r.rows[0]) throw new CallsightError('InvalidInput', `The sync scope "${scopeKey}" is not known to the team cache.`)
      const before = Intervals.parse(JSON.parse(r.rows[0].coverage))
      const merged = mergeInterval(before, [from, to])
      if (JSON.stringify(merged) === JSON.stringify(before)) return
      await c.query(`UPDATE ${this.s}.scopes SET coverage = $1, seq = nextval('${this.schema}.changes') WHERE scope_key = $2`, [
        JSON.stringify(merged),
        scopeKey
      ])
    })
  }

  async coverage(scopeKey: string): Promise<Array<[number, number]>> {
    const rows = await this.read<{ coverage: string }>(`SELECT coverage FROM ${this.s}.scopes WHERE scope_key = $1`, [scopeKey])
    return rows[0] ? Intervals.parse(JSON.parse(rows[0].coverage)) : []
  }

  async markScopeSuccess(scopeKey: string, at: number): Promise<void> {
    await this.writeTx(async (c) => {
      await c.query(`UPDATE ${this.s}.scopes SET last_success_at = $1, seq = nextval('${this.schema}.changes') WHERE scope_key = $2`, [
        at,
        scopeKey
      ])
    })
  }

  /**
   * Records a run. Callers hold the scope's run lock (lockScope), so a run of this scope
   * still marked running belongs to a process that died: it is marked interrupted.
   */
  async startRun(scopeKey: string, params: unknown, runId?: string): Promise<string> {
    const id = runId ?? randomUUID()
    const now = this.clock.now()
    try {
      await this.pool.query(
        `UPDATE ${this.s}.sync_runs SET outcome = 'interrupted', finished_at = $2 WHERE scope_key = $1 AND outcome = 'running'`,
        [scopeKey, now]
      )
      await this.pool.query(
        `INSERT INTO ${this.s}.sync_runs (id, scope_key, params, started_at, outcome) VALUES ($1, $2, $3, $4, 'running')`,
        [id, scopeKey, JSON.stringify(params ?? null), now]
      )
    } catch (e) {
      throw mapPgError(e)
    }
    return id
  }

  async finishRun(runId: string, outcome: SyncOutcome, counts: { stored: number; requests: number }, error?: AppErrorInfo): Promise<void> {
    await this.read(
      `UPDATE ${this.s}.sync_runs SET outcome = $1, finished_at = $2, stored = $3, requests = $4, error_code = $5, error_message = $6 WHERE id = $7`,
      [SyncOutcome.parse(outcome), this.clock.now(), counts.stored, counts.requests, error?.code ?? null, error?.message ?? null, runId]
    )
  }

  async recentRuns(
    limit: number
  ): Promise<Array<{ runId: string; scopeKey: string; outcome: SyncOutcome; stored: number; requests: number }>> {
    const rows = await this.read<{ id: string; scope_key: string; outcome: string; stored: number; requests: number }>(
      `SELECT id, scope_key, outcome, stored, requests FROM ${this.s}.sync_runs ORDER BY started_at DESC LIMIT $1`,
      [Math.max(0, Math.floor(limit))]
    )
    return rows.map((r) => ({
      runId: r.id,
      scopeKey: r.scope_key,
      outcome: SyncOutcome.parse(r.outcome),
      stored: r.stored,
      requests: r.requests
    }))
  }

  async callTypes(): Promise<CallType[]> {
    const rows = await this.read<{ value: string; description: string }>(
      `SELECT value, description FROM ${this.s}.call_types ORDER BY value`
    )
    return z.array(CallType).parse(rows)
  }

  async upsertCallTypes(list: readonly CallType[]): Promise<void> {
    const rows = z.array(CallType).parse(list)
    if (rows.length === 0) return
    await this.writeTx(async (c) => {
      await c.query(
        `INSERT INTO ${this.s}.call_types (value, description, seq)
         SELECT v, d, nextval('${this.schema}.changes') FROM unnest($1::text[], $2::text[]) AS t(v, d)
         WHERE NOT EXISTS (SELECT 1 FROM ${this.s}.call_types o WHERE o.value = t.v AND o.description = t.d)
         ON CONFLICT (value) DO UPDATE SET description = excluded.description, seq = excluded.seq
         WHERE call_types.description IS DISTINCT FROM excluded.description`,
        [rows.map((r) => r.value), rows.map((r) => r.description)]
      )
    })
  }

  /** PostgreSQL keeps its indexes merged; nothing to do after a run. */
  settleIndex(): Promise<void> {
    return Promise.resolve()
  }
}
