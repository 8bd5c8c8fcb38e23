import type pg from 'pg'
import { z } from 'zod'
import { CallsightError } from '../errors'
import { mapPgError, q } from './connection'

/**
 * The team cache's generation: what a workstation's cursor is valid against. It is the
 * schema's own OID together with `meta.reset_id`:
 * - a restore from a dump (`DROP SCHEMA … CASCADE`, `pg_restore`) creates the schema anew,
 *   with a new OID, while the restored `meta` (and its `cache_id`) are the old ones: the
 *   generation changes by itself, before anyone runs `team init`;
 * - a point-in-time restore of the whole cluster (or a failover that lost transactions)
 *   keeps OIDs: the owner runs `callsight team reset`, which draws a new `reset_id`.
 * A workstation whose stored generation differs starts over on its own (pull.ts). A
 * `pg_upgrade` may give the schema a new OID too: workstations then pull everything once more,
 * which costs time, never correctness.
 */
const GenerationRow = z.object({ oid: z.string(), reset_id: z.string().nullable() })

export async function readGeneration(db: pg.Pool | pg.ClientBase, schema: string): Promise<string> {
  try {
    const r = await db.query(
      `SELECT n.oid::text AS oid, (SELECT value FROM ${q(schema)}.meta WHERE key = 'reset_id') AS reset_id
       FROM pg_namespace n WHERE n.nspname = $1`,
      [schema]
    )
    if (!r.rows[0]) throw new CallsightError('Storage', `The team cache schema "${schema}" is not set up in this database.`)
    const row = GenerationRow.parse(r.rows[0])
    return `${row.oid}:${row.reset_id ?? ''}`
  } catch (e) {
    throw mapPgError(e)
  }
}

/**
 * Records the schema's OID in `meta` (owner, from `team init`): true when it differs from
 * the one recorded before, i.e. the schema was restored or created anew since the last init.
 */
export async function stampSchemaOid(c: pg.ClientBase, schema: string): Promise<boolean> {
  const r = await c.query<{ before: string | null }>(
    `WITH cur AS (SELECT oid::text AS oid FROM pg_namespace WHERE nspname = $1),
          old AS (SELECT value FROM ${q(schema)}.meta WHERE key = 'schema_oid'),
          put AS (INSERT INTO ${q(schema)}.meta (key, value) SELECT 'schema_oid', oid FROM cur
                  ON CONFLICT (key) DO UPDATE SET value = excluded.value)
     SELECT (SELECT value FROM old) AS before, (SELECT oid FROM cur) AS now`,
    [schema]
  )
  const row = r.rows[0] as { before: string | null; now: string } | undefined
  return row !== undefined && row.before !== null && row.before !== row.now
}

/**
 * Bumps the generation on purpose (owner): every workstation's next pull empties what it
 * pulled and pulls everything again. For restores that keep OIDs (a point-in-time recovery
 * of the cluster, a failover that lost transactions).
 */
export async function resetGeneration(pool: pg.Pool, schema: string): Promise<string> {
  try {
    await pool.query(
      `INSERT INTO ${q(schema)}.meta (key, value) VALUES ('reset_id', gen_random_uuid()::text)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value`
    )
  } catch (e) {
    throw mapPgError(e)
  }
  return readGeneration(pool, schema)
}

/** Why a pull starts over although the cache id is the same (TeamPullProgress.noticeCode). */
export interface RestartNotice {
  /** 'generation': restored from a dump or reset; 'behind': the newest change is below the cursor. */
  code: 'generation' | 'behind'
  message: string
}

/**
 * Why a pull must start over although the cache id is the same, else null: the team cache's
 * generation changed (restored from a dump, or `team reset`), or its newest change number is
 * below the cursor (restored to an earlier point: numbers the workstation has seen will be
 * handed out again to other rows). Change numbers are never taken back otherwise: rows are
 * renumbered upwards and never deleted, so the newest only grows.
 */
export async function restoredNotice(
  local: { generation: string | null; cursor: number },
  generation: string,
  newestChange: () => Promise<number>
): Promise<RestartNotice | null> {
  if (local.generation !== null && local.generation !== generation) {
    return {
      code: 'generation',
      message: 'The team cache was restored from a backup or reset (its generation changed): pulling everything again.'
    }
  }
  const newest = await newestChange()
  if (local.cursor > newest) {
    return {
      code: 'behind',
      message: `The team cache was restored from a backup (its newest change, ${newest}, is below this cache's ${local.cursor}): pulling everything again.`
    }
  }
  return null
}
