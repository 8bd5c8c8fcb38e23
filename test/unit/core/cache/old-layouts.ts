import type Database from 'better-sqlite3'
import { decodeList } from '../../../../src/core/cache/analysis-lists'

/**
 * Puts `calls` back into its version 1–4 layout (base_hash, analysis_hash), which
 * migration 5 replaced: for tests that open a file as an older version. `hashes` gives some
 * calls the SHA-1 values versions 1–2 stored, by call_id.
 */
export function callsBeforeVersion5(
  db: Database.Database,
  hashes: ReadonlyMap<string, { base: string; analysis: string | null }> = new Map()
): void {
  db.exec(`
    CREATE TABLE calls_v3 (
      id INTEGER PRIMARY KEY,
      call_id TEXT NOT NULL UNIQUE,
      call_at INTEGER NOT NULL,
      call_date TEXT NOT NULL,
      title TEXT NOT NULL,
      summary TEXT NOT NULL,
      extra TEXT NOT NULL,
      analysis_count INTEGER NOT NULL DEFAULT 0,
      base_hash TEXT NOT NULL,
      analysis_hash TEXT,
      first_seen_at INTEGER NOT NULL,
      last_changed_at INTEGER NOT NULL
    );
    INSERT INTO calls_v3 SELECT id, call_id, call_at, call_date, title, summary, extra, analysis_count, '',
      CASE analysis_known WHEN 1 THEN '' ELSE NULL END, first_seen_at, last_changed_at FROM calls;
    DROP TABLE calls;
    ALTER TABLE calls_v3 RENAME TO calls;
    CREATE INDEX calls_by_date ON calls(call_at, call_id);
  `)
  const put = db.prepare('UPDATE calls SET base_hash = ?, analysis_hash = ? WHERE call_id = ?')
  for (const [callId, h] of hashes) put.run(h.base, h.analysis, callId)
  // Every layout before version 5 is also before version 8.
  callTypesBeforeVersion8(db)
}

/** Puts `call_types` back into its version 1–7 layout (no source), which migration 8 extended. */
export function callTypesBeforeVersion8(db: Database.Database): void {
  db.exec('ALTER TABLE call_types DROP COLUMN source')
}

/**
 * Puts the analysis items back into their version 3–18 layout (one row per item), from the
 * lists and dictionary of version 19, and drops those.
 */
export function analysisBeforeVersion19(db: Database.Database): void {
  db.exec(`
    CREATE TABLE analysis (
      call INTEGER NOT NULL, ord INTEGER NOT NULL, key_id INTEGER NOT NULL, value TEXT NOT NULL, value_num REAL,
      PRIMARY KEY (call, ord)
    ) WITHOUT ROWID;
  `)
  const dict = new Map<number, [number, string, number | null]>()
  for (const [id, key, value, num] of db.prepare('SELECT id, key_id, value, value_num FROM analysis_values').raw().all() as Array<
    [number, number, string, number | null]
  >)
    dict.set(id, [key, value, num])
  const put = db.prepare('INSERT INTO analysis (call, ord, key_id, value, value_num) VALUES (?, ?, ?, ?, ?)')
  for (const [call, items] of db.prepare('SELECT call, items FROM analysis_lists ORDER BY call').raw().all() as Array<[number, string]>) {
    decodeList(items).forEach((id, ord) => {
      const [key, value, num] = dict.get(id)!
      put.run(call, ord, key, value, num)
    })
  }
  db.exec('DROP TABLE analysis_lists; DROP TABLE analysis_values;')
}

/**
 * The analysis items as rows again, in a temporary table `analysis` (key_id, call, ord,
 * value, value_num) of this connection, so that a test can check them with plain SQL; made
 * anew at each call, from the lists of version 19.
 */
export function itemRowsTable(db: Database.Database): void {
  db.exec(
    'DROP TABLE IF EXISTS temp.analysis; CREATE TEMP TABLE analysis (key_id, call, ord, value, value_num, PRIMARY KEY (call, ord)) WITHOUT ROWID'
  )
  const dict = new Map<number, [number, string, number | null]>()
  for (const [id, key, value, num] of db.prepare('SELECT id, key_id, value, value_num FROM analysis_values').raw().all() as Array<
    [number, number, string, number | null]
  >)
    dict.set(id, [key, value, num])
  const put = db.prepare('INSERT INTO temp.analysis (key_id, call, ord, value, value_num) VALUES (?, ?, ?, ?, ?)')
  for (const [call, items] of db.prepare('SELECT call, items FROM analysis_lists ORDER BY call').raw().all() as Array<[number, string]>) {
    decodeList(items).forEach((id, ord) => {
      const [key, value, num] = dict.get(id)!
      put.run(key, call, ord, value, num)
    })
  }
}
