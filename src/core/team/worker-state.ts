import type pg from 'pg'
import { z } from 'zod'
import type { TeamWorkerLiveness } from '../../shared/team'
import { mapPgError, q } from './connection'
import { Int8 } from './pull-batch'
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
  last_fetched: z.number().nullable(),
  last_error_code: z.string().nullable(),
  last_error_message: z.string().nullable(),
  last_error_detail: z.string().nullable(),
  failing_since: Int8.nullable(),
  next_run_at: Int8.nullable(),
  updated_at: Int8,
  heartbeat_at: Int8.nullable(),
  lease_ms: z.number().nullable(),
  /** PostgreSQL's now minus the heartbeat: no clock of ours is compared with the worker's. */
  heartbeat_age_ms: Int8.nullable(),
  /** The worker that owns the scope between runs too, and how long since it renewed that. */
  owner: z.string().nullable(),
  owner_age_ms: Int8.nullable(),
  owner_lease_ms: z.number().nullable(),
  /** A second worker waiting to take the scope over, while it keeps looking. */
  standby: z.string().nullable(),
  standby_age_ms: Int8.nullable(),
  now_ms: Int8
})

/** What an operator acts on: healthy, or why not (the worst decides `team status`'s exit code). */
export type WorkerHealth = 'healthy' | 'failing' | 'stale' | 'stopped'

export type WorkerScopeState = Omit<z.infer<typeof WorkerScopeRow>, 'standby' | 'standby_age_ms'> & {
  status: TeamWorkerLiveness
  health: WorkerHealth
  /** A standby still looking (not one that left). */
  standby: string | null
  /** The next run is this long past: the worker is not running it. */
  overdue_since: number | null
}

/** A next run this far past (beyond the lease) means no worker is there to run it. */
export const OVERDUE_GRACE_MS = 120_000

/** What the worker reports per scope (running, last success, errors, owner, standby): readable by analysts. */
export async function readWorkerState(pool: pg.Pool, schema: string): Promise<WorkerScopeState[]> {
  const s = q(schema)
  try {
    const r = await pool.query(
      `SELECT w.*, ${PG_NOW_MS} - w.heartbeat_at AS heartbeat_age_ms, o.holder AS owner, ${PG_NOW_MS} - o.heartbeat_at AS owner_age_ms,
         o.lease_ms AS owner_lease_ms, o.standby, ${PG_NOW_MS} - o.standby_at AS standby_age_ms, ${PG_NOW_MS} AS now_ms
       FROM ${s}.worker_scopes w LEFT JOIN ${s}.worker_owners o ON o.scope_key = w.scope_key ORDER BY w.name`
    )
    return r.rows.map((raw) => {
      const row = WorkerScopeRow.parse(raw)
      const status = livenessOf(row)
      const lease = row.owner_lease_ms ?? row.lease_ms ?? 30_000
      const standby = row.standby !== null && row.standby_age_ms !== null && row.standby_age_ms <= lease * 2 ? row.standby : null
      const { standby_age_ms: _, ...rest } = row
      const overdue = overdueSince(row)
      return { ...rest, status, standby, overdue_since: overdue, health: healthOf(row, status, overdue) }
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

function ownerLive(row: z.infer<typeof WorkerScopeRow>): boolean {
  return row.owner !== null && row.owner_age_ms !== null && row.owner_lease_ms !== null && row.owner_age_ms <= row.owner_lease_ms
}

/** When an idle scope's next run should have started, if that is past by more than the grace and no worker owns it. */
function overdueSince(row: z.infer<typeof WorkerScopeRow>): number | null {
  if (row.running || ownerLive(row)) return null
  // The next run is the worker's clock; the grace covers a clock apart by up to a minute or two.
  if (row.next_run_at !== null && row.now_ms - row.next_run_at > OVERDUE_GRACE_MS) return row.next_run_at
  return null
}

function healthOf(row: z.infer<typeof WorkerScopeRow>, status: TeamWorkerLiveness, overdue: number | null): WorkerHealth {
  if (status === 'interrupted' || overdue !== null) return 'stopped'
  // Idle, never scheduled again and nobody owning it: the worker left (a clean stop, a --once run).
  if (status === 'idle' && row.next_run_at === null && !ownerLive(row) && row.owner === null && row.last_outcome !== 'failed')
    return 'stopped'
  // Running stale, or between runs with its owner's lease lapsed: hung, or cut off from PostgreSQL.
  if (status === 'stale' || (status === 'idle' && row.owner !== null && !ownerLive(row))) return 'stale'
  if (row.last_outcome === 'failed') return 'failing'
  return 'healthy'
}
