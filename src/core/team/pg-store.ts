import { randomUUID } from 'node:crypto'
import type pg from 'pg'
import { z } from 'zod'
import { CallType, ScopeStatus, SyncOutcome, type CallRecord } from '../../shared/domain'
import type { AppErrorInfo } from '../../shared/errors'
import { mergeInterval, Intervals } from '../cache/coverage'
import type { ScopeFilters, WritePageInput } from '../cache'
import { CallsightError } from '../errors'
import type { Clock } from '../platform'
import { systemClock } from '../platform/node'
import type { SyncStore } from '../sync/ports'
import { createPool, mapPgError, q, type TeamDbOptions } from './connection'
import { checkPgSchema, lockKey, migratePg } from './pg-migrations'
import { checkpointStatement, writeGroup, type PgPageCounts } from './pg-write-group'

export type { PgPageCounts }

const FiltersJson = ScopeStatus.shape.filters

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
 * Writers are serialized per schema by a transaction-level advisory lock taken first thing
 * in every write: sequence numbers are then handed out in commit order, and a reader that
 * has seen number N has seen every row numbered below it (no gaps filled in later).
 */
export class PgSyncStore implements SyncStore {
  private readonly s: string
  private readonly writeLock: string
  private readonly scopeIds = new Map<string, number>()
  /** Sessions holding a scope's run lock (see lockScope). */
  private readonly scopeLocks = new Map<string, pg.PoolClient>()

  private constructor(
    readonly pool: pg.Pool,
    readonly schema: string,
    private readonly clock: Clock
  ) {
    this.s = q(schema)
    this.writeLock = lockKey(`callsight-write:${schema}`)
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
    for (const key of [...this.scopeLocks.keys()]) await this.unlockScope(key)
    await this.pool.end()
  }

  /** Runs `fn` in one transaction that holds the schema's write lock. */
  async writeTx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    let c: pg.PoolClient
    try {
      c = await this.pool.connect()
    } catch (e) {
      throw mapPgError(e)
    }
    try {
      await c.query(`BEGIN; SELECT pg_advisory_xact_lock(${this.writeLock})`)
      const out = await fn(c)
      await c.query('COMMIT')
      return out
    } catch (e) {
      await c.query('ROLLBACK').catch(() => undefined)
      throw mapPgError(e)
    } finally {
      c.release()
    }
  }

  private async read<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<R[]> {
    try {
      return (await this.pool.query<R>(text, values)).rows
    } catch (e) {
      throw mapPgError(e)
    }
  }

  /**
   * Holds the run lock of a scope (a session advisory lock on a connection of its own) so
   * that two workers, or a worker and a hand-run sync, never sync one scope at once. PostgreSQL
   * drops it when the process dies. False when another process holds it.
   */
  async lockScope(scopeKey: string): Promise<boolean> {
    if (this.scopeLocks.has(scopeKey)) return true
    let c: pg.PoolClient
    try {
      c = await this.pool.connect()
    } catch (e) {
      throw mapPgError(e)
    }
    try {
      const r = await c.query<{ ok: boolean }>(
        `SELECT pg_try_advisory_lock(${lockKey(`callsight-scope:${this.schema}:${scopeKey}`)}) AS ok`
      )
      if (r.rows[0]?.ok) {
        this.scopeLocks.set(scopeKey, c)
        return true
      }
      c.release()
      return false
    } catch (e) {
      c.release()
      throw mapPgError(e)
    }
  }

  /**
   * Whether this process still holds the scope's run lock, taken again when PostgreSQL ended
   * the session that held it (a restart, a failover, pg_terminate_backend): workstations
   * read a scope whose lock is gone as interrupted. False when another process took it meanwhile.
   */
  async keepScopeLock(scopeKey: string): Promise<boolean> {
    const c = this.scopeLocks.get(scopeKey)
    if (c) {
      try {
        await c.query('SELECT 1')
        return true
      } catch {
        this.scopeLocks.delete(scopeKey)
        c.release(true)
      }
    }
    return this.lockScope(scopeKey)
  }

  async unlockScope(scopeKey: string): Promise<void> {
    const c = this.scopeLocks.get(scopeKey)
    if (!c) return
    this.scopeLocks.delete(scopeKey)
    try {
      await c.query(`SELECT pg_advisory_unlock(${lockKey(`callsight-scope:${this.schema}:${scopeKey}`)})`)
      c.release()
    } catch {
      c.release(true)
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
        `INSERT INTO ${this.s}.scopes (scope_key, filters, seq) VALUES ($1, $2, nextval('${this.schema}.changes'))
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
    return this.writeTx((c) =>
      writeGroup(
        {
          c,
          schema: this.schema,
          now,
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
         ON CONFLICT (value) DO UPDATE SET description = excluded.description, seq = excluded.seq
         WHERE call_types.description IS DISTINCT FROM excluded.description`,
        [rows.map((r) => r.value), rows.map((r) => r.description)]
      )
    })
  }

  /** PostgreSQL keeps its indexes merged; nothing to do after a run. */
  optimizeIndex(): Promise<void> {
    return Promise.resolve()
  }
}
