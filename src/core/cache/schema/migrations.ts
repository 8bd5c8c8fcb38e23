import { reindexAll } from '../ingest/reindex'
import { SHORT_INDEX_SQL, SHORT_INDEX_TABLE } from '../ingest/short-prefixes'
import { SQL_HOUR_OF } from '../totals'
import type { Migration } from './migrate'
import { migrateToAnalysisLists } from './migration-19'
import { REVIEW_TABLES_V16, REVIEW_TABLES_V6 } from '../review/review-schema'
import { REVIEW_SHARE_TABLES_V15 } from '../review/share-schema'

/** Every schema version's change, in order (migrate.ts applies them; docs/cache.md). */
export const migrations: readonly Migration[] = [
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
  },
  {
    // Version 6 added review (docs/review.md): annotations, their history, scorecards and
    // review lists. They are the user's own work, keyed by the service's call_id (calls.id is
    // renumbered by a clear), declare no foreign key to calls, and nothing the sync or clear()
    // does touches them. Rows carry a UUID, the author and per-field times so that they can be
    // merged last-writer-wins (CLI import, a team cache later).
    version: 6,
    up(db) {
      db.exec(REVIEW_TABLES_V6)
    }
  },
  {
    // Version 7 rebuilt the full-text index with prefix indexes for one- and two-letter
    // prefixes (FTS5 prefix='1 2'): the first letters of a word as typed ("i", "ka") are then
    // one doclist instead of a merge of every term under them, so a page, a count or a
    // row-by-row probe of them costs what a common word costs (docs/search.md, perf-log).
    // FTS5 takes the option only when the table is created and a contentless table cannot
    // 'rebuild', so the rows are written again from calls and analysis, folded as ingest
    // folds them, in batches of ids.
    version: 7,
    up(db, progress) {
      db.exec(`
        DROP TABLE calls_fts_vocab;
        DROP TABLE calls_fts;
        CREATE VIRTUAL TABLE calls_fts USING fts5(
          title, summary, analysis,
          content='', contentless_delete=1,
          tokenize='unicode61 remove_diacritics 0',
          prefix='1 2'
        );
        CREATE VIRTUAL TABLE calls_fts_vocab USING fts5vocab(calls_fts, 'row');
      `)
      reindexAll(db, progress)
    }
  },
  {
    // Version 8: where each call type catalog entry came from. 'sync': a name a sync
    // succeeded with (no Description: the service gives none); 'import': a catalog file;
    // 'edit': Settings. An import files learnt names under the entry they are the Value or
    // Description of. Rows from before were learnt unless they carried a Description.
    version: 8,
    up(db) {
      db.exec(`
        ALTER TABLE call_types ADD COLUMN source TEXT NOT NULL DEFAULT 'sync' CHECK (source IN ('sync', 'import', 'edit'));
        UPDATE call_types SET source = 'import' WHERE description <> '';
      `)
    }
  },
  {
    // Version 9: the call's time on its annotation and tag rows, so a review filter's first
    // page walks an index of the annotated calls in date order (status, tag, or all of them)
    // and joins only the page's calls, instead of reading every candidate's calls row and
    // sorting (docs/review.md, "In search"). NULL while the call is not in the cache;
    // triggers on calls keep it (an annotation can exist before its call is synced, and a
    // clear then a sync writes the calls again). annotation_tags gets an index by call for
    // the save path's "replace this call's tags".
    version: 9,
    up(db) {
      // Idempotent, like migration 6: a cache rolled back to an older user_version (the
      // migration tests do) keeps its review tables.
      for (const table of ['annotations', 'annotation_tags']) {
        const cols = db.prepare(`SELECT name FROM pragma_table_info('${table}')`).pluck().all() as string[]
        if (!cols.includes('call_at')) db.exec(`ALTER TABLE ${table} ADD COLUMN call_at INTEGER`)
      }
      db.exec(`
        UPDATE annotations SET call_at = (SELECT c.call_at FROM calls c WHERE c.call_id = annotations.call_id);
        UPDATE annotation_tags SET call_at = (SELECT a.call_at FROM annotations a WHERE a.call_id = annotation_tags.call_id);
        CREATE INDEX IF NOT EXISTS annotations_by_status_time ON annotations(status, call_at, call_id);
        CREATE INDEX IF NOT EXISTS annotations_by_time ON annotations(call_at, call_id);
        CREATE INDEX IF NOT EXISTS annotation_tags_by_time ON annotation_tags(tag, call_at, call_id);
        CREATE INDEX IF NOT EXISTS annotation_tags_by_call ON annotation_tags(call_id);
        CREATE TRIGGER IF NOT EXISTS calls_review_time_insert AFTER INSERT ON calls
        WHEN EXISTS (SELECT 1 FROM annotations WHERE call_id = NEW.call_id)
        BEGIN
          UPDATE annotations SET call_at = NEW.call_at WHERE call_id = NEW.call_id;
          UPDATE annotation_tags SET call_at = NEW.call_at WHERE call_id = NEW.call_id;
        END;
        CREATE TRIGGER IF NOT EXISTS calls_review_time_update AFTER UPDATE OF call_at ON calls
        WHEN NEW.call_at IS NOT OLD.call_at AND EXISTS (SELECT 1 FROM annotations WHERE call_id = NEW.call_id)
        BEGIN
          UPDATE annotations SET call_at = NEW.call_at WHERE call_id = NEW.call_id;
          UPDATE annotation_tags SET call_at = NEW.call_at WHERE call_id = NEW.call_id;
        END;
      `)
    }
  },
  {
    // Version 10: when a sync found that the service no longer returns an annotated call
    // (a full pass over a window of a scope the call was a member of, without it), distinct
    // from a call not in the cache (docs/review.md). NULL while the service returns it.
    version: 10,
    up(db) {
      const cols = db.prepare(`SELECT name FROM pragma_table_info('annotations')`).pluck().all() as string[]
      if (!cols.includes('service_dropped_at')) db.exec('ALTER TABLE annotations ADD COLUMN service_dropped_at INTEGER')
    }
  },
  {
    // Version 11: the call's row id (calls.id) on its annotation, so search keeps every
    // annotation in memory as a byte per call id (docs/review.md, "In search") reading the
    // annotations table alone, without a lookup of each call by call_id. NULL while the call
    // is not cached; the insert trigger of migration 9 now sets it too, and clear() empties it
    // (a clear renumbers the calls). A call's row id never changes otherwise: rows are
    // updated in place and never deleted one by one.
    version: 11,
    up(db) {
      const cols = db.prepare(`SELECT name FROM pragma_table_info('annotations')`).pluck().all() as string[]
      if (!cols.includes('call_row')) db.exec('ALTER TABLE annotations ADD COLUMN call_row INTEGER')
      db.exec(`
        UPDATE annotations SET call_row = (SELECT c.id FROM calls c WHERE c.call_id = annotations.call_id);
        DROP TRIGGER IF EXISTS calls_review_time_insert;
        CREATE TRIGGER calls_review_time_insert AFTER INSERT ON calls
        WHEN EXISTS (SELECT 1 FROM annotations WHERE call_id = NEW.call_id)
        BEGIN
          UPDATE annotations SET call_at = NEW.call_at, call_row = NEW.id WHERE call_id = NEW.call_id;
          UPDATE annotation_tags SET call_at = NEW.call_at WHERE call_id = NEW.call_id;
        END;
      `)
    }
  },
  {
    // Version 12: a full-text index being built beside a first bulk pull (deferred-index.ts).
    // The row exists from before the first batch written without index rows until the
    // transaction that copies the finished index in; while it does, the index is incomplete
    // and opening the cache finishes it (or refuses, while the pull still runs).
    version: 12,
    up(db) {
      db.exec(`
        CREATE TABLE IF NOT EXISTS index_build (
          id INTEGER PRIMARY KEY CHECK (id = 1),
          side_file TEXT NOT NULL,
          started_at INTEGER NOT NULL
        );
      `)
    }
  },
  {
    // Version 13: a run's last progress as the sync screen showed it (sync-runs.ts), so the
    // panel shows the account's last run again after a restart.
    version: 13,
    up(db) {
      // As the migrations before it, safe to run again on a cache that has it already.
      const columns = db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('sync_runs')
      if (!columns.includes('progress')) db.exec('ALTER TABLE sync_runs ADD COLUMN progress TEXT')
    }
  },
  {
    // Version 14: the team cache's generation a workstation pulled from (src/core/team/
    // generation.ts), so a pull notices a restored or reset team cache and starts over. NULL
    // for caches pulled before it was recorded: the next pull records it.
    version: 14,
    up(db) {
      const columns = db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('team_source')
      if (!columns.includes('generation')) db.exec('ALTER TABLE team_source ADD COLUMN generation TEXT')
    }
  },
  {
    // Version 15: the outbox of review changes for the team cache, the team's values last
    // seen, conflicts and others' evaluations (review/share-schema.ts, docs/review.md).
    version: 15,
    up(db) {
      db.exec(REVIEW_SHARE_TABLES_V15)
    }
  },
  {
    // Version 16: assignments of review lists' calls to reviewers, and calibration sessions
    // (docs/review.md). Idempotent (IF NOT
    // EXISTS), like the review tables.
    version: 16,
    up(db) {
      db.exec(REVIEW_TABLES_V16)
    }
  },
  {
    // Version 17 replaced FTS5's prefix indexes (prefix='1 2' of version 7) with the
    // short-prefix index (ingest/short-prefixes.ts): a position-free table of each call's
    // distinct one- and two-letter word beginnings. FTS5's prefix index held every posting
    // of every word, positions included, twice more: over half of the full-text index's
    // bytes and a sixth of ingest time, where the new table answers the same first
    // keystrokes as one doclist for a small part of both (docs/search.md). Both indexes are
    // written again from the stored text, as migration 7 did; the migration's transaction
    // makes a killed run start over from the version before.
    version: 17,
    up(db, progress) {
      db.exec(`
        DROP TABLE IF EXISTS calls_fts_vocab;
        DROP TABLE IF EXISTS calls_fts;
        DROP TABLE IF EXISTS ${SHORT_INDEX_TABLE};
        CREATE VIRTUAL TABLE calls_fts USING fts5(
          title, summary, analysis,
          content='', contentless_delete=1,
          tokenize='unicode61 remove_diacritics 0'
        );
        CREATE VIRTUAL TABLE calls_fts_vocab USING fts5vocab(calls_fts, 'row');
        ${SHORT_INDEX_SQL};
      `)
      reindexAll(db, progress)
    }
  },
  {
    // Version 18: the window of a team cache a workstation holds (src/core/team/window.ts):
    // the chosen last N days (NULL: everything), the call date from which it holds every call
    // up to its cursor (NULL: everything), and a widening under way (JSON, NULL when none),
    // which a pull killed mid-way continues. One row; absent until a pull records it.
    version: 18,
    up(db) {
      db.exec(`
        CREATE TABLE IF NOT EXISTS team_window (
          id INTEGER PRIMARY KEY CHECK (id = 1),
          days INTEGER,
          held_from INTEGER,
          backfill TEXT
        );
      `)
    }
  },
  {
    // Version 19: a call's analysis items as one short list of value ids, the (key, value)
    // pairs stored once in a dictionary (analysis-lists.ts): ten rows of ~20 bytes an item
    // became one of ~25 bytes a call, a fifth of the pulled file (docs/cache.md, "Analysis").
    version: 19,
    up(db, progress) {
      migrateToAnalysisLists(db, progress)
    }
  },
  {
    // Version 20: the worker scopes a team cache's window holds (src/core/team/pull-scopes.ts):
    // a JSON list of {name, key}, NULL for every scope. A cache held at an older schema on
    // purpose may lack the table (it holds everything), and one whose version was set back
    // may have the column already.
    version: 20,
    up(db) {
      const table = db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'team_window'").get()
      const column = db.prepare("SELECT 1 FROM pragma_table_info('team_window') WHERE name = 'scopes'").get()
      if (table !== undefined && column === undefined) db.exec('ALTER TABLE team_window ADD COLUMN scopes TEXT')
    }
  }
]

export const SCHEMA_VERSION = migrations.reduce((v, m) => Math.max(v, m.version), 0)
