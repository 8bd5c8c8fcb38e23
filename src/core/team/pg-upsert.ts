import type pg from 'pg'
import type { CallRecord } from '../../shared/domain'
import { q } from './connection'

/** Calls per upsert statement: small enough that preparing the next overlaps storing one. */
export const UPSERT_CHUNK = 250

export interface UpsertedRow {
  call_id: string
  inserted: boolean
}

/**
 * Upserts calls of one analysis flag (one copy of each): a call is rewritten, and given a new
 * change number, only when a field differs — compared by PostgreSQL in the same statement.
 * Returns the rows inserted or changed. Sent at once (node-postgres queues it on the
 * connection): the caller prepares the next chunk meanwhile.
 */
export function upsertChunk(
  c: pg.ClientBase,
  schema: string,
  chunk: ReadonlyArray<{ r: CallRecord }>,
  now: number,
  withAnalysis: boolean
): Promise<pg.QueryResult<UpsertedRow>> {
  const s = q(schema)
  // One JSON document per statement: JSON.stringify is native, and PostgreSQL keeps a json
  // value's text as sent, so `->>` gives each nested analysis array back exactly as
  // analysisJson would write it. Measured against COPY into a temporary table and against
  // unnest over one array per column: no difference this machine could resolve (docs/team.md).
  const rows: unknown[] = []
  for (const { r } of chunk) {
    // Records arrive masked: the service client guards every record it parses
    // (client/service-client.ts), for this store as for the SQLite cache.
    rows.push([
      r.callId,
      r.callAt,
      r.callDate,
      r.title,
      r.summary,
      r.extra,
      withAnalysis ? r.analysis.map((a) => [a.key, a.friendlyName, a.value]) : null
    ])
  }
  return c.query<UpsertedRow>(
    `INSERT INTO ${s}.calls AS c (call_id, call_at, call_date, title, summary, extra, analysis, first_seen_at, last_changed_at, seq)
     SELECT e->>0, (e->>1)::bigint, e->>2, e->>3, e->>4, e->>5, e->>6, $2, $2, nextval('${schema}.changes')
     FROM json_array_elements($1::json) AS e
     ON CONFLICT (call_id) DO UPDATE SET
       call_at = excluded.call_at, call_date = excluded.call_date, title = excluded.title,
       summary = excluded.summary, extra = excluded.extra,
       analysis = CASE WHEN $3 THEN excluded.analysis ELSE c.analysis END,
       last_changed_at = excluded.last_changed_at, seq = excluded.seq
     WHERE (c.call_at, c.call_date, c.title, c.summary, c.extra) IS DISTINCT FROM
           (excluded.call_at, excluded.call_date, excluded.title, excluded.summary, excluded.extra)
        OR ($3 AND c.analysis IS DISTINCT FROM excluded.analysis)
     RETURNING c.call_id, (c.xmax = 0) AS inserted`,
    [JSON.stringify(rows), now, withAnalysis]
  )
}
