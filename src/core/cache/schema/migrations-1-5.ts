import { SQL_HOUR_OF } from '../totals'
import type { Migration } from './migrate'

/** Versions 1 to 5 of the cache's schema: the calls, their index, totals and analysis (migrations.ts lists every version). */
export const MIGRATIONS_1_TO_5: readonly Migration[] = [
  {
    // Version 1 created the schema: calls with their FTS5 index, analysis keys and items,
    // the call-type catalog, sync scopes with their members, and sync runs. Later versions
    // changed parts of it: 2 added running totals, 3 re-clustered `analysis` by call, 4 added
    // `team_source`, 5 dropped `base_hash` and turned `analysis_hash` into the flag
    // `analysis_known`.
    version: 1,
    up(db) {
      db.exec(`
        -- id is an INTEGER PRIMARY KEY (a rowid alias) so that VACUUM never renumbers it:
        -- the full-text index is keyed by it. call_id is the natural key.
        -- base_hash and analysis_hash held SHA-1 hashes of the content for change detection
        -- (analysis_hash NULL until a page fetched with analysis carried the call).
        CREATE TABLE calls (
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
        CREATE INDEX calls_by_date ON calls(call_at, call_id);

        -- (key, friendlyName) pairs, so ten million items do not repeat the names.
        CREATE TABLE analysis_keys (
          id INTEGER PRIMARY KEY,
          key TEXT NOT NULL,
          friendly_name TEXT NOT NULL,
          -- Kept by writePage, so that listing keys never scans ten million items.
          items INTEGER NOT NULL DEFAULT 0,
          numeric_items INTEGER NOT NULL DEFAULT 0,
          UNIQUE (key, friendly_name)
        );

        -- analysis and scope_members declare no foreign keys: the checks cost a third of the
        -- ingest time (measured) on the two tables written ten and one rows per call. Only
        -- writePage inserts into them, with ids it has just read or written, and clear()
        -- empties them together with their parents.
        -- Version 1 clustered analysis by (key_id, call, ord) with an index on call;
        -- migration 3 replaced both with a table clustered by (call, ord).
        CREATE TABLE analysis (
          key_id INTEGER NOT NULL,
          call INTEGER NOT NULL,
          ord INTEGER NOT NULL,
          value TEXT NOT NULL,
          value_num REAL,
          PRIMARY KEY (key_id, call, ord)
        ) WITHOUT ROWID;
        CREATE INDEX analysis_by_call ON analysis(call);

        CREATE TABLE call_types (
          value TEXT PRIMARY KEY,
          description TEXT NOT NULL
        ) WITHOUT ROWID;

        CREATE TABLE sync_scopes (
          id INTEGER PRIMARY KEY,
          scope_key TEXT NOT NULL UNIQUE,
          filters TEXT NOT NULL,
          checkpoint TEXT,
          coverage TEXT NOT NULL DEFAULT '[]',
          last_success_at INTEGER
        );

        CREATE TABLE scope_members (
          call INTEGER NOT NULL,
          scope INTEGER NOT NULL,
          PRIMARY KEY (call, scope)
        ) WITHOUT ROWID;
        CREATE INDEX scope_members_by_scope ON scope_members(scope, call);

        CREATE TABLE sync_runs (
          id TEXT PRIMARY KEY,
          scope_key TEXT NOT NULL,
          params TEXT NOT NULL,
          started_at INTEGER NOT NULL,
          finished_at INTEGER,
          outcome TEXT NOT NULL CHECK (outcome IN ('running','done','failed','cancelled','interrupted')),
          stored INTEGER NOT NULL DEFAULT 0,
          requests INTEGER NOT NULL DEFAULT 0,
          error_code TEXT,
          error_message TEXT
        );
        CREATE INDEX sync_runs_by_start ON sync_runs(started_at);

        -- Contentless: the folded text lives only in the index; raw text stays in calls.
        CREATE VIRTUAL TABLE calls_fts USING fts5(
          title, summary, analysis,
          content='', contentless_delete=1,
          tokenize='unicode61 remove_diacritics 0'
        );
        -- Document counts per term, for the planner's selectivity estimate.
        CREATE VIRTUAL TABLE calls_fts_vocab USING fts5vocab(calls_fts, 'row');
      `)
    }
  },
  {
    // Version 2 added running totals for facets over the whole cache or a date range
    // (docs/cache.md, "Facets"): calls per UTC hour, scope members per (scope, hour), items
    // per (key, value). writePage keeps them in the page's transaction; this backfills them.
    version: 2,
    up(db) {
      db.exec(`
        CREATE TABLE agg_hours (
          hour INTEGER PRIMARY KEY,
          n INTEGER NOT NULL
        );
        CREATE TABLE agg_scope_hours (
          scope INTEGER NOT NULL,
          hour INTEGER NOT NULL,
          n INTEGER NOT NULL,
          PRIMARY KEY (scope, hour)
        ) WITHOUT ROWID;
        -- value_num is a function of value (parseNumeric), stored so numeric facets need no parsing.
        CREATE TABLE agg_values (
          key_id INTEGER NOT NULL,
          value TEXT NOT NULL,
          value_num REAL,
          n INTEGER NOT NULL,
          PRIMARY KEY (key_id, value)
        ) WITHOUT ROWID;
        INSERT INTO agg_hours (hour, n) SELECT ${SQL_HOUR_OF('call_at')} AS h, count(*) FROM calls GROUP BY h;
        INSERT INTO agg_scope_hours (scope, hour, n)
          SELECT m.scope, ${SQL_HOUR_OF('c.call_at')} AS h, count(*) FROM scope_members m JOIN calls c ON c.id = m.call GROUP BY m.scope, h;
        INSERT INTO agg_values (key_id, value, value_num, n) SELECT key_id, value, max(value_num), count(*) FROM analysis GROUP BY key_id, value;
      `)
    }
  },
  {
    // Version 3 re-clustered the analysis items by (call, ord) and dropped analysis_by_call.
    // Keyed by (key, call), every page inserted inside ten ranges of the table at once and
    // paid a page split in the middle of the tree for each; keyed by call, which only grows,
    // it appends: 1.35 µs an item became 0.52 (measured at 3,000,000 items), the largest
    // single cost of ingest. Filters and facets only ever ask for one call's items (or, for
    // the in-memory facet columns, read the table once).
    version: 3,
    up(db) {
      db.exec(`
        CREATE TABLE analysis_by_call_v3 (
          call INTEGER NOT NULL,
          ord INTEGER NOT NULL,
          key_id INTEGER NOT NULL,
          value TEXT NOT NULL,
          value_num REAL,
          PRIMARY KEY (call, ord)
        ) WITHOUT ROWID;
        INSERT INTO analysis_by_call_v3 (call, ord, key_id, value, value_num)
          SELECT call, ord, key_id, value, value_num FROM analysis ORDER BY call, ord;
        DROP TABLE analysis;
        ALTER TABLE analysis_by_call_v3 RENAME TO analysis;
      `)
    }
  },
  {
    // Version 4 added team_source: where a workstation fed from a team cache (docs/team.md)
    // stands, the team cache's id and the change number applied last. One row; absent for
    // caches synced directly. IF NOT EXISTS: tests rebuild older layouts by lowering
    // user_version on a new file.
    version: 4,
    up(db) {
      db.exec(`
        CREATE TABLE IF NOT EXISTS team_source (
          id INTEGER PRIMARY KEY CHECK (id = 1),
          cache_id TEXT NOT NULL,
          source TEXT NOT NULL,
          cursor INTEGER NOT NULL,
          pulled_at INTEGER NOT NULL
        );
      `)
    }
  },
  {
    // Version 5 dropped calls.base_hash (written as '' since known calls are compared field
    // by field) and replaced calls.analysis_hash (NULL, '' or an old hash: only its NULL
    // meant anything) with the flag analysis_known, added as the table's last column. Ids
    // stay as they are: the full-text index is keyed by them. Measured at 1,000,000 calls:
    // 5–6 s this way, ~8 s copying the table into a new one (its two indexes rebuilt too).
    version: 5,
    up(db) {
      db.exec(`
        -- 1 once a page fetched with analysis carried the call: its stored items are then the
        -- service's (even none); 0 while only pages without analysis did.
        ALTER TABLE calls ADD COLUMN analysis_known INTEGER NOT NULL DEFAULT 0 CHECK (analysis_known IN (0, 1));
        UPDATE calls SET analysis_known = 1 WHERE analysis_hash IS NOT NULL;
        ALTER TABLE calls DROP COLUMN analysis_hash;
        ALTER TABLE calls DROP COLUMN base_hash;
      `)
    }
  }
]
