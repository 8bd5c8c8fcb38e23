import type pg from 'pg'
import type { CallRecord } from '../../shared/domain'
import { q } from './connection'
import { searchFacts, searchVector } from './search-columns'
import { NUMERIC_VALUE_SQL } from './pg-migration-6'

/** Calls per upsert statement: small enough that preparing the next overlaps storing one. */
export const UPSERT_CHUNK = 250

export interface UpsertedRow {
  call_id: string
  inserted: boolean
}

/**
 * Upserts calls of one analysis flag (one copy of each): a call is rewritten, and given a new
 * change number, only when a field differs — compared by PostgreSQL in the same statement.
 * Unchanged calls are left out before the insert: the select list's nextval runs for every
 * row it produces, conflicting or not, and would spend a change number on each unchanged call
 * of every cycle (the sequence then grew by the size of the window each cycle).
 * Returns the rows inserted or changed. Sent at once (node-postgres queues it on the
 * connection): the caller prepares the next chunk meanwhile.
 */
export function upsertChunk(
  c: pg.ClientBase,
  schema: string,
  chunk: ReadonlyArray<{ r: CallRecord }>,
  now: number,
  withAnalysis: boolean,
  search: boolean
): Promise<pg.QueryResult<UpsertedRow>> {
  // One JSON array per column, each unpacked by PostgreSQL: it parses every document once.
  // One array of rows picked apart with `e->>k` re-parsed each row up to the k-th field for
  // every field, and cost the server 2.5× the CPU of this (measured: 35–40 against 12–17 µs a
  // call, docs/team.md); JSON.stringify keeps the client's share native. Extra and analysis
  // travel as JSON values, not strings: `json_array_elements` on `json` hands back each
  // element's text exactly as written, so the stored text is JSON.stringify's (as
  // analysisJson writes it) with one stringify and no escaped quotes on the way.
  const ids: string[] = []
  const ats: number[] = []
  const dates: string[] = []
  const titles: string[] = []
  const summaries: string[] = []
  const extras: unknown[] = []
  const analyses: Array<Array<[string, string, string]>> = []
  const vectors: string[] = []
  const facts: unknown[] = []
  for (const { r } of chunk) {
    // Records arrive masked: the service client guards every record it parses
    // (client/service-client.ts), for this store as for the SQLite cache.
    ids.push(r.callId)
    ats.push(r.callAt)
    dates.push(r.callDate)
    titles.push(r.title)
    summaries.push(r.summary)
    extras.push(r.extra)
    if (withAnalysis) analyses.push(r.analysis.map((a) => [a.key, a.friendlyName, a.value]))
    if (search) vectors.push(searchVector(r, withAnalysis))
    if (search && withAnalysis) facts.push(searchFacts(r))
  }
  const params = [
    JSON.stringify(ids),
    now,
    withAnalysis,
    JSON.stringify(ats),
    JSON.stringify(dates),
    JSON.stringify(titles),
    JSON.stringify(summaries),
    JSON.stringify(extras),
    withAnalysis ? JSON.stringify(analyses) : null
  ]
  if (!search) return c.query<UpsertedRow>(upsertSql(schema, false), params)
  return c.query<UpsertedRow>(upsertSql(schema, true), [...params, JSON.stringify(vectors), withAnalysis ? JSON.stringify(facts) : null])
}

const col = (n: number): string => `json_array_elements_text($${n}::json)`
// Without analysis $9 is NULL: no elements, and ROWS FROM pads the column with NULLs.
const value = (n: number): string => `json_array_elements($${n}::json)`

/** What the search adds to each part of the upsert (schema 6); nothing with the search off. */
const SEARCH_PARTS = {
  columns: ', search, facts',
  values: ', e.search::tsvector, e.facts::jsonb',
  sources: `, ${col(10)}, ${value(11)}`,
  names: ', search, facts',
  updates: `
       search = CASE WHEN $3 THEN excluded.search ELSE excluded.search || ts_filter(c.search, '{c}') END,
       facts = CASE WHEN $3 THEN excluded.facts ELSE c.facts END,`,
  returning: ', CASE WHEN $3 THEN c.analysis END AS analysis'
}
const NO_SEARCH_PARTS: typeof SEARCH_PARTS = { columns: '', values: '', sources: '', names: '', updates: '', returning: '' }

/**
 * The upsert. With the team cache search off, the calls table's own columns only. With it on
 * (schema 6) the search words and facts too: without analysis the stored analysis words are
 * kept, moved after the new title and summary (tsvector || shifts the right side's positions
 * past the left's), and the facts stay; every analysis written counts its keys in
 * search_keys, the catalog a team cache search resolves field names against.
 */
function upsertSql(schema: string, search: boolean): string {
  const s = q(schema)
  const p = search ? SEARCH_PARTS : NO_SEARCH_PARTS
  const upsert = `INSERT INTO ${s}.calls AS c (call_id, call_at, call_date, title, summary, extra, analysis, first_seen_at, last_changed_at, seq${p.columns})
     SELECT e.id, e.at::bigint, e.date, e.title, e.summary, e.extra::text, e.analysis::text, $2, $2, nextval('${schema}.changes')${p.values}
     FROM ROWS FROM (${col(1)}, ${col(4)}, ${col(5)}, ${col(6)}, ${col(7)}, ${value(8)}, ${value(9)}${p.sources})
       AS e(id, at, date, title, summary, extra, analysis${p.names})
     WHERE NOT EXISTS (
       SELECT 1 FROM ${s}.calls o WHERE o.call_id = e.id
          AND (o.call_at, o.call_date, o.title, o.summary, o.extra) IS NOT DISTINCT FROM (e.at::bigint, e.date, e.title, e.summary, e.extra::text)
          AND NOT ($3 AND o.analysis IS DISTINCT FROM e.analysis::text))
     ON CONFLICT (call_id) DO UPDATE SET
       call_at = excluded.call_at, call_date = excluded.call_date, title = excluded.title,
       summary = excluded.summary, extra = excluded.extra,
       analysis = CASE WHEN $3 THEN excluded.analysis ELSE c.analysis END,${p.updates}
       last_changed_at = excluded.last_changed_at, seq = excluded.seq
     WHERE (c.call_at, c.call_date, c.title, c.summary, c.extra) IS DISTINCT FROM
           (excluded.call_at, excluded.call_date, excluded.title, excluded.summary, excluded.extra)
        OR ($3 AND c.analysis IS DISTINCT FROM excluded.analysis)
     RETURNING c.call_id, (c.xmax = 0) AS inserted${p.returning}`
  if (!search) return upsert
  return `WITH up AS (
     ${upsert}
     ), counted AS (
       INSERT INTO ${s}.search_keys AS k (key, friendly_name, items, numeric_items)
       SELECT i->>0, i->>1, count(*), count(*) FILTER (WHERE ${NUMERIC_VALUE_SQL('i->>2')})
       FROM up CROSS JOIN LATERAL json_array_elements(up.analysis::json) i
       GROUP BY 1, 2
       ON CONFLICT (key, friendly_name) DO UPDATE SET items = k.items + excluded.items, numeric_items = k.numeric_items + excluded.numeric_items
     )
     SELECT call_id, inserted FROM up`
}
