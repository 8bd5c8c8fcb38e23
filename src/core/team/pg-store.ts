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
import { UPSERT_CHUNK, upsertChunk } from './pg-upsert'

export interface PgPageCounts {
  inserted: number
  updated: number
  unchanged: number
}

const FiltersJson = ScopeStatus.shape.filters

/**
 * Promises of statements sent ahead, each marked handled as it is added: one that fails
 * while this process waits for another must not count as an unhandled rejection (which
 * ends a Node process). Their outcome is read with allSettled before COMMIT.
 */
class Queued {
  readonly all: Array<Promise<unknown>> = []
  push(p: Promise<unknown>): void {
    p.catch(() => undefined)
    this.all.push(p)
  }
}

/** A call as this transaction wrote it: the record, and the record whose analysis it holds (null: none written). */
interface WrittenCall {
  r: CallRecord
  analysis: CallRecord | null
}

function sameItems(a: CallRecord['analysis'], b: CallRecord['analysis']): boolean {
  if (a === b) return true
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!
    const y = b[i]!
    if (x.key !== y.key || x.friendlyName !== y.friendlyName || x.value !== y.value) return false
  }
  return true
}

/** Whether upserting `r` would leave the call this transaction wrote as it is. */
function sameAsWritten(w: WrittenCall, r: CallRecord, withAnalysis: boolean): boolean {
  const a = w.r
  if (a !== r) {
    if (a.callAt !== r.callAt || a.callDate !== r.callDate || a.title !== r.title || a.summary !== r.summary) return false
    if (a.extra !== r.extra && JSON.stringify(a.extra) !== JSON.stringify(r.extra)) return false
  }
  if (!withAnalysis) return true
  return w.analysis !== null && sameItems(w.analysis.analysis, r.analysis)
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
    const pool = createPool({ ...opts, maxConnections: opts.maxConnections ?? 4 })
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
    await this.writeTx((c) => this.putCheckpoint(c, scopeKey, checkpoint))
  }

  private async putCheckpoint(c: pg.ClientBase, scopeKey: string, checkpoint: unknown): Promise<void> {
    if (checkpoint === null || checkpoint === undefined) {
      await c.query(`DELETE FROM ${this.s}.checkpoints WHERE scope_key = $1`, [scopeKey])
      return
    }
    await c.query(
      `INSERT INTO ${this.s}.checkpoints (scope_key, checkpoint) VALUES ($1, $2) ON CONFLICT (scope_key) DO UPDATE SET checkpoint = excluded.checkpoint`,
      [scopeKey, JSON.stringify(checkpoint)]
    )
  }

  /**
   * A group of pages in one transaction. Calls are upserted with one statement per run of
   * pages with the same analysis flag (the last copy of a callId wins, as it would page by
   * page); a known call is rewritten, and given a new change number, only when a field
   * differs — the comparison happens in PostgreSQL, in the same statement.
   */
  async writePages(inputs: readonly WritePageInput[]): Promise<PgPageCounts[]> {
    if (inputs.length === 0) return []
    const now = this.clock.now()
    return this.writeTx(async (c) => {
      const out: PgPageCounts[] = inputs.map(() => ({ inserted: 0, updated: 0, unchanged: 0 }))
      // Every statement of the group is sent without waiting for the one before: they queue
      // on this transaction's connection and run in order, so PostgreSQL works through them
      // while this process prepares the next; the answers are read at the end. A failure
      // fails the transaction (each is awaited before COMMIT).
      const sent = new Queued()
      const counted = new Queued()
      const written = new Map<string, WrittenCall>()
      try {
        let i = 0
        while (i < inputs.length) {
          let j = i + 1
          while (j < inputs.length && inputs[j]!.includeAnalysis === inputs[i]!.includeAnalysis) j++
          await this.upsertCalls(c, inputs.slice(i, j), out.slice(i, j), now, written, sent, counted)
          i = j
        }
        const members = new Map<string, Set<string>>()
        const checkpoints = new Map<string, unknown>()
        const runs = new Map<string, { stored: number; requests: number }>()
        for (const input of inputs) {
          let set = members.get(input.scopeKey)
          if (!set) members.set(input.scopeKey, (set = new Set()))
          for (const r of input.records) set.add(r.callId)
          checkpoints.set(input.scopeKey, input.checkpoint)
          if (input.runId !== undefined && input.runCounts) runs.set(input.runId, input.runCounts)
        }
        for (const [key, ids] of members) {
          if (ids.size === 0) continue
          const scope = this.scopeIds.get(key) ?? (await this.scopeId(c, key))
          // One JSON array unpacked by PostgreSQL: node-postgres encodes a text[] in
          // JavaScript, id by id; JSON.stringify is native.
          sent.push(
            c.query(
              `INSERT INTO ${this.s}.scope_members (scope_id, call_id, seq)
               SELECT $1, id, nextval('${this.schema}.changes') FROM json_array_elements_text($2::json) AS t(id)
               ON CONFLICT (scope_id, call_id) DO NOTHING`,
              [scope, JSON.stringify([...ids])]
            )
          )
        }
        for (const [key, cp] of checkpoints) sent.push(this.putCheckpoint(c, key, cp))
        for (const [runId, counts] of runs) {
          sent.push(
            c.query(`UPDATE ${this.s}.sync_runs SET stored = $1, requests = $2 WHERE id = $3`, [counts.stored, counts.requests, runId])
          )
        }
      } catch (e) {
        // The statements still queued fail with the transaction; their errors are not news.
        await Promise.allSettled([...sent.all, ...counted.all])
        throw e
      }
      const settled = await Promise.allSettled([...sent.all, ...counted.all])
      const failed = settled.find((x): x is PromiseRejectedResult => x.status === 'rejected')
      if (failed) throw failed.reason
      return out
    })
  }

  /**
   * Sends the upserts of a run of pages with one analysis flag, in statements of
   * UPSERT_CHUNK calls (see writePages), and queues their counting. The last copy of each
   * call in the run wins; each copy is counted on its own page. A call this group already
   * wrote with the same fields (and, for a run with analysis, the same items) is not sent
   * again: PostgreSQL would compare it and leave it as it is (unchanged) — in a bulk sync
   * that is every call of a second scope whose pages arrive in the same group.
   */
  private async upsertCalls(
    c: pg.ClientBase,
    pages: readonly WritePageInput[],
    counts: PgPageCounts[],
    now: number,
    written: Map<string, WrittenCall>,
    sent: Queued,
    counted: Queued
  ): Promise<void> {
    const withAnalysis = pages[0]!.includeAnalysis
    const last = new Map<string, { r: CallRecord; page: number }>()
    pages.forEach((p, page) => {
      for (const r of p.records) last.set(r.callId, { r, page })
    })
    const send: Array<{ r: CallRecord }> = []
    for (const [id, { r, page }] of last) {
      const before = written.get(id)
      if (before && sameAsWritten(before, r, withAnalysis)) counts[page]!.unchanged++
      else {
        send.push({ r })
        written.set(id, { r, analysis: withAnalysis ? r : (before?.analysis ?? null) })
      }
    }
    // Earlier copies of a call within the run count as unchanged on their own pages.
    pages.forEach((p, page) => {
      for (const r of p.records) if (last.get(r.callId)!.page !== page) counts[page]!.unchanged++
    })
    for (let i = 0; i < send.length; i += UPSERT_CHUNK) {
      if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve)) // lets the previous one go out
      const chunk = send.slice(i, i + UPSERT_CHUNK)
      const q = upsertChunk(c, this.schema, chunk, now, withAnalysis)
      sent.push(q)
      counted.push(
        q.then((res) => {
          const changed = new Set<string>()
          for (const row of res.rows) {
            changed.add(row.call_id)
            const n = counts[last.get(row.call_id)!.page]!
            if (row.inserted) n.inserted++
            else n.updated++
          }
          for (const { r } of chunk) if (!changed.has(r.callId)) counts[last.get(r.callId)!.page]!.unchanged++
        })
      )
    }
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
