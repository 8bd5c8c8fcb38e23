import type pg from 'pg'
import { mapPgError, q } from './connection'
import { pulledCall } from './pulled-rows'
import { searchFacts, searchVector } from './search-columns'

/**
 * An analysis value that parseNumeric (shared/text/numeric.ts) reads as a number, as SQL over
 * the text expression `x`: what the key catalog counts to call a key numeric, as the local
 * cache's analysis_keys does.
 */
export const NUMERIC_VALUE_SQL = (x: string): string =>
  `(length(btrim(${x})) BETWEEN 1 AND 40 AND btrim(${x}) ~ '^[+-]?(\\d+([.,]\\d+)?|[.,]\\d+)([eE][+-]?\\d+)?$')`

/**
 * Schema 6: what a workstation needs to search the team cache in place (team-search.ts).
 * The search columns are filled by the writer at upsert and, for the rows written before,
 * by backfillSearch (Node folds the text, so it cannot be a SQL statement here); until then
 * `search` is NULL and such a row is found by no text term. The partial index keeps the rows
 * still to fill findable (and is empty once they are). The date index serves newest and oldest
 * first; call ids compare bytewise (COLLATE "C"), as SQLite orders the local results.
 */
export function searchColumnsV6(schema: string): string {
  const s = q(schema)
  return `
    ALTER TABLE ${s}.calls ADD COLUMN search tsvector, ADD COLUMN facts jsonb;
    CREATE TABLE ${s}.search_keys (
      key text NOT NULL,
      friendly_name text NOT NULL,
      items bigint NOT NULL DEFAULT 0,
      numeric_items bigint NOT NULL DEFAULT 0,
      PRIMARY KEY (key, friendly_name)
    );
    INSERT INTO ${s}.search_keys (key, friendly_name, items, numeric_items)
      SELECT i->>0, i->>1, count(*), count(*) FILTER (WHERE ${NUMERIC_VALUE_SQL('i->>2')})
      FROM ${s}.calls c CROSS JOIN LATERAL json_array_elements(c.analysis::json) i
      WHERE c.analysis IS NOT NULL
      GROUP BY 1, 2;
    CREATE INDEX calls_search ON ${s}.calls USING gin (search);
    CREATE INDEX calls_by_date ON ${s}.calls (call_at, call_id COLLATE "C");
    CREATE INDEX calls_search_missing ON ${s}.calls (call_id) WHERE search IS NULL;
  `
}

export interface BackfillProgress {
  filled: number
}

/**
 * Fills the search columns of rows written before schema 6, a batch per transaction, in call
 * id order through the partial index: stopped anywhere, it resumes where rows are still
 * empty. Run by `team search enable` and `team init` (as the owner) while search is on.
 */
export async function backfillSearch(
  pool: pg.Pool,
  schema: string,
  opts: { batch?: number; onProgress?: (p: BackfillProgress) => void; signal?: AbortSignal } = {}
): Promise<number> {
  const s = q(schema)
  const batch = Math.max(1, Math.min(opts.batch ?? 2000, 50_000))
  let filled = 0
  let after = ''
  try {
    for (;;) {
      if (opts.signal?.aborted) break
      const rows = await pool.query<{ call_id: string; seq: string }>(
        `SELECT call_id, call_at, call_date, title, summary, extra, analysis, seq FROM ${s}.calls WHERE search IS NULL AND call_id > $1 ORDER BY call_id LIMIT $2`,
        [after, batch]
      )
      if (rows.rows.length === 0) break
      const ids: string[] = []
      const seqs: string[] = []
      const vectors: string[] = []
      const facts: unknown[] = []
      for (const row of rows.rows) {
        // As stored: the writer indexed what it stored, masked by the client before it.
        const { record, hasAnalysis } = pulledCall(row)
        ids.push(row.call_id)
        seqs.push(String(row.seq))
        vectors.push(searchVector(record, hasAnalysis))
        facts.push(hasAnalysis ? searchFacts(record) : null)
      }
      const updated = await pool.query(
        // Only a row still as it was read (its change number): one the writer rewrote
        // meanwhile without analysis is still empty, and is filled from what it holds now
        // by the next pass (enableTeamSearch) or the next run.
        `UPDATE ${s}.calls c SET search = e.search::tsvector, facts = nullif(e.facts::jsonb, 'null'::jsonb)
         FROM ROWS FROM (json_array_elements_text($1::json), json_array_elements_text($2::json), json_array_elements($3::json),
                         json_array_elements_text($4::json)) AS e(id, search, facts, seq)
         WHERE c.call_id = e.id AND c.search IS NULL AND c.seq = e.seq::bigint`,
        [JSON.stringify(ids), JSON.stringify(vectors), JSON.stringify(facts), JSON.stringify(seqs)]
      )
      filled += updated.rowCount ?? 0
      after = ids[ids.length - 1]!
      opts.onProgress?.({ filled })
    }
  } catch (e) {
    throw mapPgError(e)
  }
  return filled
}
