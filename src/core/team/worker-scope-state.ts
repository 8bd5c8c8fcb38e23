import type pg from 'pg'
import { q } from './connection'
import { PG_NOW_MS } from './pg-clock'

/**
 * Writes a scope's row of `worker_scopes` (what workstations and `team status` show).
 * `failing_since` is kept while failures follow one another: a failure passes it and the
 * first of the streak stays; a success passes null and ends the streak.
 */
export async function writeScopeState(
  target: { pool: pg.Pool; schema: string },
  row: { key: string; name: string; worker: string; now: number; leaseMs: number },
  fields: Record<string, unknown>
): Promise<void> {
  const cols = Object.keys(fields)
  const values = cols.map((c) => fields[c])
  const insertCols = ['scope_key', 'name', 'worker', 'updated_at', 'lease_ms', 'heartbeat_at', ...cols]
  const params = [row.key, row.name, row.worker, row.now, row.leaseMs, ...values]
  const sets = [
    'name = excluded.name',
    'worker = excluded.worker',
    'updated_at = excluded.updated_at',
    'lease_ms = excluded.lease_ms',
    'heartbeat_at = excluded.heartbeat_at',
    ...cols.map((c) =>
      c === 'failing_since' && fields[c] !== null ? `${c} = coalesce(w.failing_since, excluded.failing_since)` : `${c} = excluded.${c}`
    )
  ]
  await target.pool.query(
    `INSERT INTO ${q(target.schema)}.worker_scopes AS w (${insertCols.join(', ')}) VALUES ($1, $2, $3, $4, $5, ${PG_NOW_MS}, ${values.map((_, i) => `$${i + 6}`).join(', ')})
     ON CONFLICT (scope_key) DO UPDATE SET ${sets.join(', ')}`,
    params
  )
}
