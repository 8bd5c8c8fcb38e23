import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto'
import type pg from 'pg'
import { mapPgError, q, RoleName } from './connection'
import { stampSchemaOid } from './generation'
import { migratePg } from './pg-migrations'
import { reviewGrantsSql } from './pg-migration-5'
import { backfillSearch } from './pg-migration-6'
import { buildDirtyChunks } from './team-postings-build'
import { reviewGrantsV7Sql } from './pg-migration-7'
import { reviewGrantsV9Sql } from './pg-migration-9'
import { reviewGrantsV10Sql } from './pg-migration-10'
import { teamSearchState } from './pg-migration-8'
import { poolTransaction } from './pg-transaction'

/**
 * A SCRAM-SHA-256 verifier for a password, as PostgreSQL stores it (RFC 5803 form, the
 * same psql's \password sends): the password itself never reaches the server, its logs or
 * pg_stat_statements. Passwords are used as given (no SASLprep; ASCII is unaffected).
 */
export function scramVerifier(password: string, iterations = 4096): string {
  const salt = randomBytes(16)
  const salted = pbkdf2Sync(Buffer.from(password, 'utf8'), salt, iterations, 32, 'sha256')
  const clientKey = createHmac('sha256', salted).update('Client Key').digest()
  const storedKey = createHash('sha256').update(clientKey).digest()
  const serverKey = createHmac('sha256', salted).update('Server Key').digest()
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`
}

export interface TeamInitOptions {
  pool: pg.Pool
  schema: string
  writerRole: string
  readerRole: string
  /** New passwords; a role that exists keeps its password when none is given. */
  writerPassword?: string
  readerPassword?: string
}

export interface TeamInitResult {
  schemaVersion: number
  created: string[]
  updated: string[]
  /** What init could not do and the operator should (printed, never fatal). */
  warnings: string[]
  /** The schema was restored (or created anew) since the last init: workstations will pull everything again. */
  restored: boolean
  /** Calls whose search columns this run filled (written before schema 6). */
  searchFilled: number
  /** Chunks of the count's postings built (schema 11). */
  countChunksBuilt: number
}

/**
 * Creates (or upgrades) the tenant's schema and its two roles: the writer, for the worker
 * (rows only: no DDL, it owns nothing), and the reader, for analysts' workstations (SELECT
 * only, and every transaction read-only by default). Run as the database owner; running it
 * again upgrades the schema and re-applies the grants.
 */
export async function teamInit(opts: TeamInitOptions): Promise<TeamInitResult> {
  const writer = RoleName.parse(opts.writerRole)
  const reader = RoleName.parse(opts.readerRole)
  const s = q(opts.schema)
  const version = await migratePg(opts.pool, opts.schema)
  const created: string[] = []
  const updated: string[] = []
  const restored = await poolTransaction(opts.pool, async (c) => {
    const restored = await stampSchemaOid(c, opts.schema)
    const db = (await c.query<{ db: string }>('SELECT current_database() AS db')).rows[0]!.db
    for (const [role, password] of [
      [writer, opts.writerPassword],
      [reader, opts.readerPassword]
    ] as const) {
      const exists = (await c.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role])).rowCount! > 0
      const pw = password === undefined ? '' : ` PASSWORD ${c.escapeLiteral(scramVerifier(password))}`
      if (!exists) {
        await c.query(`CREATE ROLE "${role}" LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT${pw}`)
        created.push(role)
      } else if (pw) {
        await c.query(`ALTER ROLE "${role}"${pw}`)
        updated.push(role)
      }
    }
    await c.query(`GRANT CONNECT ON DATABASE "${db.replace(/"/g, '""')}" TO "${writer}", "${reader}"`)
    await c.query(`REVOKE ALL ON SCHEMA ${s} FROM PUBLIC`)
    await c.query(`GRANT USAGE ON SCHEMA ${s} TO "${writer}", "${reader}"`)
    await c.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ${s} TO "${writer}"`)
    await c.query(`GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA ${s} TO "${writer}"`)
    // meta holds the version and the cache's id: the worker only reads it.
    await c.query(`REVOKE INSERT, UPDATE, DELETE ON ${s}.meta FROM "${writer}"`)
    await c.query(`GRANT SELECT ON ALL TABLES IN SCHEMA ${s} TO "${reader}"`)
    // The worker's checkpoints are no analyst's business.
    await c.query(`REVOKE SELECT ON ${s}.checkpoints FROM "${reader}"`)
    await c.query(`ALTER ROLE "${reader}" SET default_transaction_read_only = on`)
    await c.query(reviewGrantsSql(opts.schema, writer, reader, db))
    await c.query(reviewGrantsV7Sql(opts.schema, writer))
    await c.query(reviewGrantsV9Sql(opts.schema, writer))
    await c.query(reviewGrantsV10Sql(opts.schema))
    return restored
  })
  // With search on, rows still without their search columns get them (a no-op once all have).
  const searchFilled = (await teamSearchState(opts.pool, opts.schema)) === 'on' ? await backfillSearch(opts.pool, opts.schema) : 0
  // The count's postings of every chunk a migration or a write left dirty (none with search off).
  const countChunksBuilt = (await buildDirtyChunks(opts.pool, opts.schema)).built
  const warnings: string[] = []
  // Any role may create temporary tables by default: space and catalog churn an analyst's
  // role has no use for. Only the database's owner (or a superuser) may take it away.
  try {
    const db = (await opts.pool.query<{ db: string }>('SELECT current_database() AS db')).rows[0]!.db
    await opts.pool.query(`REVOKE TEMPORARY ON DATABASE "${db.replace(/"/g, '""')}" FROM PUBLIC`)
    const still = await opts.pool.query<{ ok: boolean }>('SELECT has_database_privilege($1, current_database(), $2) AS ok', [
      reader,
      'TEMP'
    ])
    if (still.rows[0]?.ok) {
      warnings.push(
        `The reader role can still create temporary tables in database "${db}" (not revoked: this role is not the database's owner). Run as its owner: REVOKE TEMPORARY ON DATABASE "${db.replace(/"/g, '""')}" FROM PUBLIC;`
      )
    }
  } catch (e) {
    warnings.push(
      `Temporary tables could not be taken from the reader role (${mapPgError(e).message}); run as the database's owner: REVOKE TEMPORARY ON DATABASE <database> FROM PUBLIC;`
    )
  }
  return { schemaVersion: version, created, updated, warnings, restored, searchFilled, countChunksBuilt }
}
