import type Database from 'better-sqlite3'

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
