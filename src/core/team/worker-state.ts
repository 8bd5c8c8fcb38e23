import type pg from 'pg'
import { z } from 'zod'
import type { TeamWorkerLiveness } from '../../shared/team'
import { mapPgError, q } from './connection'
import { lockKey } from './pg-migrations'
import { Int8 } from './pull'
import { PG_NOW_MS } from './worker'

const WorkerScopeRow = z.object({
  scope_key: z.string(),
  name: z.string(),
  worker: z.string(),
  running: z.boolean(),
  run_started_at: Int8.nullable(),
  last_finished_at: Int8.nullable(),
  last_success_at: Int8.nullable(),
  last_outcome: z.string().nullable(),
  last_stored: z.number().nullable(),
  last_error_code: z.string().nullable(),
  last_error_message: z.string().nullable(),
  next_run_at: Int8.nullable(),
  updated_at: Int8,
  heartbeat_at: Int8.nullable(),
  lease_ms: z.number().nullable(),
  /** PostgreSQL's now minus the heartbeat: no clock of ours is compared with the worker's. */
  heartbeat_age_ms: Int8.nullable()
})

export type WorkerScopeState = z.infer<typeof WorkerScopeRow> & { status: TeamWorkerLiveness }

/** What the worker reports per scope (running, last success, errors): readable by analysts. */
export async function readWorkerState(pool: pg.Pool, schema: string): Promise<WorkerScopeState[]> {
  try {
    const r = await pool.query(`SELECT *, ${PG_NOW_MS} - heartbeat_at AS heartbeat_age_ms FROM ${q(schema)}.worker_scopes ORDER BY name`)
    // Advisory locks held in this database (pg_locks is readable by every role): a bigint key
    // shows as classid (high half) and objid (low half) with objsubid 1.
    const held = await pool.query<{ k: string }>(
      `SELECT ((classid::bigint << 32) | objid::bigint)::text AS k FROM pg_locks
       WHERE locktype = 'advisory' AND objsubid = 1 AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`
    )
    const locks = new Set(held.rows.map((x) => x.k))
    return r.rows.map((raw) => {
      const row = WorkerScopeRow.parse(raw)
      const status: TeamWorkerLiveness = !row.running
        ? 'idle'
        : !locks.has(lockKey(`callsight-scope:${schema}:${row.scope_key}`))
          ? 'interrupted'
          : row.heartbeat_age_ms !== null && row.lease_ms !== null && row.heartbeat_age_ms > row.lease_ms
            ? 'stale'
            : 'running'
      return { ...row, status }
    })
  } catch (e) {
    throw mapPgError(e)
  }
}
