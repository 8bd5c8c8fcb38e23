import type pg from 'pg'
import { z } from 'zod'
import type { TeamWorkerLiveness } from '../../shared/team'
import { mapPgError, q } from './connection'
import { Int8 } from './pull'
import { PG_NOW_MS } from './pg-clock'

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
    return r.rows.map((raw) => {
      const row = WorkerScopeRow.parse(raw)
      return { ...row, status: livenessOf(row) }
    })
  } catch (e) {
    throw mapPgError(e)
  }
}

/**
 * A lease unrenewed for this many lease lengths belongs to a worker that stopped (killed, its
 * machine gone): read as interrupted. Before that it may be hung or cut off: stale.
 */
export const INTERRUPTED_AFTER_LEASES = 10

/**
 * Read from the scope's lease alone (its row, PostgreSQL's clock), never from sessions: the
 * same on a streaming replica, where no session of the worker's shows.
 */
function livenessOf(row: z.infer<typeof WorkerScopeRow>): TeamWorkerLiveness {
  if (!row.running) return 'idle'
  if (row.heartbeat_age_ms === null || row.lease_ms === null) return 'interrupted'
  if (row.heartbeat_age_ms > row.lease_ms * INTERRUPTED_AFTER_LEASES) return 'interrupted'
  return row.heartbeat_age_ms > row.lease_ms ? 'stale' : 'running'
}
