import type pg from 'pg'
import { CallsightError } from '../errors'
import { mapPgError, q } from './connection'
import { callsTableSql } from './pg-calls-table'
import { poolTransaction } from './pg-transaction'
import { backfillSearch, NUMERIC_VALUE_SQL, type BackfillProgress } from './pg-migration-6'
import { numberCallsSql, unnumberCallsSql } from './pg-migration-11'

/**
 * The team cache search is opt-in per tenant: its columns and indexes (schema 6) more than
 * double what PostgreSQL holds per call and slow the writer, for a feature only some teams
 * use. Whether it is on is `meta.search` ('on' or 'off'), changed only by the owner with
 * `callsight team search enable|disable`, which adds or drops the columns with it: with
 * search off the calls table is as it was before schema 6.
 *
 * Schema 8 records the state. A cache that already holds calls keeps its search (an upgrade
 * never drops what analysts may be using; the operator disables it if unused); a new, empty
 * one starts with search off, its calls table made anew without the columns.
 */
export function searchSwitchV8(schema: string): string {
  const s = q(schema)
  return `
    DO $switch$
    BEGIN
      IF EXISTS (SELECT 1 FROM ${s}.calls) THEN
        INSERT INTO ${s}.meta (key, value) VALUES ('search', 'on') ON CONFLICT (key) DO NOTHING;
      ELSE
        -- Made again rather than altered: no dropped columns (pg-calls-table.ts).
        DROP TABLE ${s}.calls;
        ${callsTableSql(schema)}
        TRUNCATE ${s}.search_keys;
        INSERT INTO ${s}.meta (key, value) VALUES ('search', 'off') ON CONFLICT (key) DO UPDATE SET value = excluded.value;
      END IF;
    END
    $switch$;
  `
}

export type TeamSearchState = 'on' | 'off'

/**
 * The search columns, their indexes, the key catalog and the count's numbering and postings
 * (pg-migration-11.ts) taken away; the state set to off.
 */
function dropSearchSql(schema: string): string {
  const s = q(schema)
  return `${unnumberCallsSql(schema)}
    DROP INDEX IF EXISTS ${s}.calls_search;
    DROP INDEX IF EXISTS ${s}.calls_search_missing;
    DROP INDEX IF EXISTS ${s}.calls_by_date;
    ALTER TABLE ${s}.calls DROP COLUMN IF EXISTS search, DROP COLUMN IF EXISTS facts;
    TRUNCATE ${s}.search_keys;
    INSERT INTO ${s}.meta (key, value) VALUES ('search', 'off') ON CONFLICT (key) DO UPDATE SET value = excluded.value;
  `
}

/**
 * The search indexes, built once the backfill is done: a GIN index grown row by row is about
 * 1.4 times the size of one built in one go (docs/perf-log.md), and a build is faster than
 * the updates of every row keeping two indexes up to date.
 */
function searchIndexesSql(schema: string): string {
  const s = q(schema)
  return `
    CREATE INDEX IF NOT EXISTS calls_search ON ${s}.calls USING gin (search);
    CREATE INDEX IF NOT EXISTS calls_by_date ON ${s}.calls (call_at, call_id COLLATE "C");
  `
}

/**
 * The search columns added back, empty (the backfill fills them), the key catalog counted
 * again from the stored analysis (the writer kept none while search was off), the calls
 * numbered for the count's postings (built by the worker's next cycle or `team init`; until
 * then the exact count is the SQL one), and the state set to on: from the commit on, the
 * writer fills the columns of what it writes.
 */
function addSearchSql(schema: string): string {
  const s = q(schema)
  return `
    ALTER TABLE ${s}.calls ADD COLUMN IF NOT EXISTS search tsvector, ADD COLUMN IF NOT EXISTS facts jsonb;
    TRUNCATE ${s}.search_keys;
    INSERT INTO ${s}.search_keys (key, friendly_name, items, numeric_items)
      SELECT i->>0, i->>1, count(*), count(*) FILTER (WHERE ${NUMERIC_VALUE_SQL('i->>2')})
      FROM ${s}.calls c CROSS JOIN LATERAL json_array_elements(c.analysis::json) i
      WHERE c.analysis IS NOT NULL
      GROUP BY 1, 2;
    CREATE INDEX IF NOT EXISTS calls_search_missing ON ${s}.calls (call_id) WHERE search IS NULL;
    INSERT INTO ${s}.meta (key, value) VALUES ('search', 'on') ON CONFLICT (key) DO UPDATE SET value = excluded.value;
    ${numberCallsSql(schema)}
  `
}

/**
 * Whether the team cache searches: 'on' before schema 8 too (schema 6 and 7 always
 * carried the columns), 'off' with no search column whatever meta says (a hand-dropped one).
 */
export async function teamSearchState(db: pg.Pool | pg.ClientBase, schema: string): Promise<TeamSearchState> {
  try {
    const r = await db.query<{ value: string | null; has_column: boolean }>(
      `SELECT (SELECT value FROM ${q(schema)}.meta WHERE key = 'search') AS value,
              EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass($1) AND attname = 'search' AND NOT attisdropped) AS has_column`,
      [`${schema}.calls`]
    )
    const row = r.rows[0]
    return row?.has_column === true && row.value !== 'off' ? 'on' : 'off'
  } catch (e) {
    throw mapPgError(e)
  }
}

/** What a workstation gets when it asks a team cache whose search is off. */
export function searchOffError(schema: string): CallsightError {
  return new CallsightError('TeamSearchOff', `The team cache "${schema}" does not search: its operator has not turned search on.`, {
    hint: `Search the calls this workstation holds, or ask the operator to run callsight team search enable --schema ${schema}.`
  })
}

/** Runs `sql` as the owner in one transaction holding the migration lock and the writers' lock. */
async function switchTx(pool: pg.Pool, schema: string, sql: string): Promise<void> {
  const s = q(schema)
  await poolTransaction(pool, async (c) => {
    // Writers are held until the commit, so none writes half a state: each reads meta.search
    // after taking the same lock (pg-store.ts).
    await c.query(`LOCK TABLE ${s}.meta IN SHARE ROW EXCLUSIVE MODE; LOCK TABLE ${s}.checkpoints IN SHARE ROW EXCLUSIVE MODE`)
    await c.query(sql)
  })
}

export interface SearchSwitchOptions {
  batch?: number
  onProgress?: (p: BackfillProgress) => void
  signal?: AbortSignal
}

/**
 * Turns the team cache search on (owner): the columns, then the backfill of every call
 * already stored, then the search indexes. Stopped anywhere, running it again resumes the
 * backfill (the columns stay; the rows still empty are found by their partial index) and
 * builds the indexes. Searches run meanwhile, without the indexes and saying some calls are
 * not indexed yet. Returns the calls filled by this run.
 */
export async function enableTeamSearch(pool: pg.Pool, schema: string, opts: SearchSwitchOptions = {}): Promise<number> {
  if ((await teamSearchState(pool, schema)) === 'off') await switchTx(pool, schema, addSearchSql(schema))
  let filled = 0
  // A call the worker rewrote while its row was read is left for the next pass.
  for (let pass = 0; pass < 3; pass++) {
    const n = await backfillSearch(pool, schema, {
      ...opts,
      onProgress: (p) => opts.onProgress?.({ filled: filled + p.filled })
    })
    filled += n
    if (n === 0 || opts.signal?.aborted) break
  }
  if (!opts.signal?.aborted) {
    // The writer waits meanwhile (SHARE lock), as it waits for any other write.
    try {
      await pool.query(searchIndexesSql(schema))
    } catch (e) {
      throw mapPgError(e)
    }
  }
  return filled
}

/**
 * Turns the team cache search off (owner): the columns, their indexes and the key catalog
 * dropped at once. PostgreSQL reuses the columns' space as rows are rewritten; `VACUUM FULL`
 * of the calls table gives it back to the file system at once.
 */
export async function disableTeamSearch(pool: pg.Pool, schema: string): Promise<void> {
  await switchTx(pool, schema, dropSearchSql(schema))
}
