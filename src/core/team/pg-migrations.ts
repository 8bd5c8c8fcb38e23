import type pg from 'pg'
import { CallsightError } from '../errors'
import { mapPgError, q } from './connection'
import { membershipsCheckedPerStatement } from './pg-migration-3'
import { reviewTablesV5 } from './pg-migration-5'
import { searchColumnsV6 } from './pg-migration-6'
import { reviewTablesV7 } from './pg-migration-7'
import { searchSwitchV8 } from './pg-migration-8'
import { reviewTombstonesV9 } from './pg-migration-9'
import { reviewListCallsV10 } from './pg-migration-10'
import { countPostingsV11 } from './pg-migration-11'
import { membersByCallV12 } from './pg-migration-12'
import { callsTableSql } from './pg-calls-table'
import { inTransaction } from './pg-transaction'

/**
 * The team cache's schema, one per tenant, versioned like the SQLite cache's: ordered steps,
 * each in one transaction together with the version bump in `meta`, under a lock of `meta`
 * so two processes never migrate at once. Append a step; never edit one that has shipped.
 */
export interface PgMigration {
  version: number
  sql(schema: string): string
}

export const pgMigrations: readonly PgMigration[] = [
  {
    version: 1,
    sql: (schema) => {
      const s = q(schema)
      return `
        -- Every write of the worker takes the next number of this one sequence, under a lock
        -- that serializes writers, so numbers follow commit order: a workstation that has
        -- applied everything up to N needs exactly the rows with seq > N.
        CREATE SEQUENCE ${s}.changes AS bigint;

        ${callsTableSql(schema)}

        CREATE TABLE ${s}.scopes (
          id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
          scope_key text NOT NULL UNIQUE,
          filters text NOT NULL,
          coverage text NOT NULL DEFAULT '[]',
          last_success_at bigint,
          seq bigint NOT NULL
        );
        CREATE INDEX scopes_by_seq ON ${s}.scopes (seq);

        CREATE TABLE ${s}.scope_members (
          scope_id integer NOT NULL REFERENCES ${s}.scopes (id),
          call_id text NOT NULL,
          seq bigint NOT NULL,
          PRIMARY KEY (scope_id, call_id)
        );
        CREATE INDEX scope_members_by_seq ON ${s}.scope_members (seq);

        -- The engine's checkpoints: the worker's own state, never pulled.
        CREATE TABLE ${s}.checkpoints (
          scope_key text PRIMARY KEY,
          checkpoint text NOT NULL
        );

        CREATE TABLE ${s}.call_types (
          value text PRIMARY KEY,
          description text NOT NULL,
          seq bigint NOT NULL
        );

        CREATE TABLE ${s}.sync_runs (
          id uuid PRIMARY KEY,
          scope_key text NOT NULL,
          params text NOT NULL,
          started_at bigint NOT NULL,
          finished_at bigint,
          outcome text NOT NULL CHECK (outcome IN ('running','done','failed','cancelled','interrupted')),
          stored integer NOT NULL DEFAULT 0,
          requests integer NOT NULL DEFAULT 0,
          error_code text,
          error_message text
        );
        CREATE INDEX sync_runs_by_scope ON ${s}.sync_runs (scope_key, started_at);

        -- What the worker is doing, per scope it keeps fresh: workstations show it.
        CREATE TABLE ${s}.worker_scopes (
          scope_key text PRIMARY KEY,
          name text NOT NULL,
          worker text NOT NULL,
          running boolean NOT NULL DEFAULT false,
          run_started_at bigint,
          last_finished_at bigint,
          last_success_at bigint,
          last_outcome text,
          last_stored integer,
          last_error_code text,
          last_error_message text,
          next_run_at bigint,
          updated_at bigint NOT NULL
        );
      `
    }
  },
  {
    version: 2,
    // The worker's lease: a running scope's heartbeat (PostgreSQL's clock, so the worker's
    // and the workstations' clocks never need to agree) and how long it may go unrenewed.
    sql: (schema) => `ALTER TABLE ${q(schema)}.worker_scopes ADD COLUMN heartbeat_at bigint, ADD COLUMN lease_ms integer;`
  },
  { version: 3, sql: membershipsCheckedPerStatement },
  {
    version: 4,
    sql: (schema) => {
      const s = q(schema)
      return `
        -- What an operator needs to act on a failure without the worker's log: the error's
        -- detail (redacted, bounded), when the current streak of failures began, and the
        -- calls fetched beside the calls changed (last_stored).
        ALTER TABLE ${s}.worker_scopes ADD COLUMN last_error_detail text, ADD COLUMN failing_since bigint,
          ADD COLUMN last_fetched integer;
        -- Which worker owns a scope for as long as it lives (between runs too), so that a
        -- second worker started by mistake waits as a standby instead of taking turns.
        CREATE TABLE ${s}.worker_owners (
          scope_key text PRIMARY KEY,
          name text NOT NULL,
          holder text NOT NULL,
          heartbeat_at bigint NOT NULL,
          lease_ms integer NOT NULL,
          standby text,
          standby_at bigint
        );
      `
    }
  },
  { version: 5, sql: reviewTablesV5 },
  { version: 6, sql: searchColumnsV6 },
  { version: 7, sql: reviewTablesV7 },
  { version: 8, sql: searchSwitchV8 },
  { version: 9, sql: reviewTombstonesV9 },
  { version: 10, sql: reviewListCallsV10 },
  { version: 11, sql: countPostingsV11 },
  { version: 12, sql: membersByCallV12 }
]

export const PG_SCHEMA_VERSION = pgMigrations.reduce((v, m) => Math.max(v, m.version), 0)

/**
 * The oldest client schema version that can still pull from the schema this version sets up,
 * stored in `meta` as `min_reader_version` beside `schema_version`. Migrations are additive
 * (new tables and columns; a pull names the columns it reads), so a workstation one release
 * behind keeps pulling from a schema upgraded under it. A release whose migration changes
 * what a pull reads raises this to its own version, and its release notes say so.
 */
export const PG_MIN_READER_VERSION = 3

/**
 * The schema's write lock, first thing in a writing transaction: writers (and hand-run syncs)
 * are serialized by it. A table lock above ROW EXCLUSIVE needs UPDATE, DELETE or TRUNCATE
 * privilege on the table, and `checkpoints` is the writer's alone (analysts cannot even read
 * it), so no other role can take it and hold the worker up (an advisory lock, which any role
 * connected to the database can take, could). Reads are not blocked by it.
 */
export function writeLockSql(schema: string): string {
  return `LOCK TABLE ${q(schema)}.checkpoints IN SHARE ROW EXCLUSIVE MODE`
}

/**
 * The migration lock: `meta`, which only the owner may change (the writer and the reader
 * only read it), so only a role that may migrate can hold migrations up.
 */
function migrationLockSql(schema: string): string {
  return `LOCK TABLE ${q(schema)}.meta IN SHARE ROW EXCLUSIVE MODE`
}

/** A stable 64-bit advisory-lock key for a name (the schema, or schema + scope). */
export function lockKey(name: string): string {
  // FNV-1a 64, as a signed bigint literal PostgreSQL accepts.
  let h = 0xcbf29ce484222325n
  for (const ch of Buffer.from(name, 'utf8')) {
    h ^= BigInt(ch)
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn
  }
  return BigInt.asIntN(64, h).toString()
}

/** The schema's version: 0 when it has no meta table (not set up). */
export async function schemaVersion(db: pg.Pool | pg.ClientBase, schema: string): Promise<number> {
  const r = await db.query<{ reg: string | null }>('SELECT to_regclass($1) AS reg', [`${schema}.meta`])
  if (r.rows[0]?.reg === null || r.rows[0]?.reg === undefined) return 0
  const v = await db.query<{ value: string }>(`SELECT value FROM ${q(schema)}.meta WHERE key = 'schema_version'`)
  return v.rows[0] ? Number(v.rows[0].value) : 0
}

/** The oldest client schema version that may pull from the schema (its own version when unset). */
export async function minReaderVersion(db: pg.Pool | pg.ClientBase, schema: string): Promise<number | null> {
  const v = await db.query<{ value: string }>(`SELECT value FROM ${q(schema)}.meta WHERE key = 'min_reader_version'`)
  return v.rows[0] ? Number(v.rows[0].value) : null
}

function tooNew(current: number, latest: number): CallsightError {
  return new CallsightError(
    'DatabaseTooNew',
    `The team cache was set up by a newer version of Callsight (schema ${current}; this version understands up to ${latest}).`,
    { hint: 'Update Callsight on this computer.' }
  )
}

/**
 * Creates or upgrades the schema. Needs a role that may create in the database (the owner,
 * as `team init` runs it); the worker's and analysts' roles only check the version.
 */
export async function migratePg(
  pool: pg.Pool,
  schema: string,
  list: readonly PgMigration[] = pgMigrations,
  minReader: number = PG_MIN_READER_VERSION
): Promise<number> {
  const latest = list.reduce((v, m) => Math.max(v, m.version), 0)
  const c = await pool.connect()
  try {
    // Before the schema exists there is no table to lock: two first inits at once can collide
    // (a unique violation in the catalog), and the second one is then simply run again.
    for (let attempt = 0; ; attempt++) {
      try {
        await inTransaction(c, async () => {
          await c.query(`CREATE SCHEMA IF NOT EXISTS ${q(schema)}`)
          await c.query(`CREATE TABLE IF NOT EXISTS ${q(schema)}.meta (key text PRIMARY KEY, value text NOT NULL)`)
          await c.query(migrationLockSql(schema))
          // A random id for this cache: a workstation that pulled from another one starts over.
          await c.query(
            `INSERT INTO ${q(schema)}.meta (key, value) VALUES ('cache_id', gen_random_uuid()::text) ON CONFLICT (key) DO NOTHING`
          )
        })
        break
      } catch (e) {
        if (attempt >= 2 || (e as { code?: string }).code !== '23505') throw e
      }
    }
  } catch (e) {
    c.release()
    throw mapPgError(e)
  }
  try {
    for (const m of [...list].sort((a, b) => a.version - b.version)) {
      await inTransaction(c, async () => {
        await c.query(migrationLockSql(schema))
        const current = await schemaVersion(c, schema)
        if (current > latest) throw tooNew(current, latest)
        if (m.version <= current) return
        await c.query(m.sql(schema))
        await c.query(
          `INSERT INTO ${q(schema)}.meta (key, value) VALUES ('schema_version', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
          [String(m.version)]
        )
      }).catch((e: unknown) => {
        throw mapPgError(e)
      })
    }
    // Never lowered: a newer release may have raised it for a change older readers cannot read.
    await c.query(
      `INSERT INTO ${q(schema)}.meta (key, value) VALUES ('min_reader_version', $1)
       ON CONFLICT (key) DO UPDATE SET value = greatest(meta.value::integer, excluded.value::integer)::text`,
      [String(minReader)]
    )
    return latest
  } finally {
    c.release()
  }
}

/** The refusal of a schema older than this version: the worker and `team init` go first. */
function tooOld(schema: string, current: number): CallsightError {
  return new CallsightError(
    'Storage',
    current === 0
      ? `The team cache schema "${schema}" is not set up in this database.`
      : `The team cache's schema is older than this Callsight: upgrade the worker and run \`callsight team init\` first (schema "${schema}" is at version ${current}, this version needs ${PG_SCHEMA_VERSION}).`,
    { hint: `Run callsight team init --db … --schema ${schema} as the database owner, with the worker's new version.` }
  )
}

/**
 * Refuses a schema this version cannot use; never writes (read-only and writer roles).
 * A writer (the worker) needs exactly its own version. A reader (`pull`, the app, `team
 * status`) also takes a newer schema whose `min_reader_version` it meets: the worker is
 * upgraded first and workstations follow at their own pace.
 */
export async function checkPgSchema(db: pg.Pool, schema: string, role: 'writer' | 'reader' = 'writer'): Promise<void> {
  let current: number
  let minReader: number | null = null
  try {
    current = await schemaVersion(db, schema)
    if (current > PG_SCHEMA_VERSION && role === 'reader') minReader = await minReaderVersion(db, schema)
  } catch (e) {
    throw mapPgError(e)
  }
  if (current > PG_SCHEMA_VERSION) {
    if (minReader !== null && PG_SCHEMA_VERSION >= minReader) return
    throw tooNew(current, PG_SCHEMA_VERSION)
  }
  if (current < PG_SCHEMA_VERSION) throw tooOld(schema, current)
}
