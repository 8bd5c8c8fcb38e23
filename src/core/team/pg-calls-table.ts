import { q } from './connection'

/**
 * The calls table as schema 1 creates it, without the search columns: also what schema 8
 * creates again in a new (empty) cache, so that a cache whose search is off carries no
 * dropped columns (PostgreSQL stores a dropped column as NULL in every row written after,
 * which costs each row a null bitmap: 8 bytes once aligned).
 */
export function callsTableSql(schema: string): string {
  const s = q(schema)
  return `
    CREATE TABLE ${s}.calls (
      call_id text PRIMARY KEY,
      call_at bigint NOT NULL,
      call_date text NOT NULL,
      title text NOT NULL,
      summary text NOT NULL,
      -- JSON of the record's unknown fields ('{}' when none).
      extra text NOT NULL,
      -- JSON [[key, friendlyName, value], ...] in the service's order; NULL until a page
      -- fetched with analysis carried the call. Stored whole: workstations search
      -- locally, so the team cache is read by change number only (and one row per call
      -- writes and reads ten times faster than ten item rows).
      analysis text,
      first_seen_at bigint NOT NULL,
      last_changed_at bigint NOT NULL,
      seq bigint NOT NULL
    );
    CREATE INDEX calls_by_seq ON ${s}.calls (seq);
  `
}
