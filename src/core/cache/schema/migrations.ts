import { reindexAll } from '../ingest/reindex'
import { SHORT_INDEX_SQL, SHORT_INDEX_TABLE } from '../ingest/short-prefixes'
import type { Migration } from './migrate'
import { migrateToAnalysisLists } from './migration-19'
import { addTermList } from './migration-21'
import { MIGRATIONS_1_TO_5 } from './migrations-1-5'
import { MIGRATIONS_6_TO_12 } from './migrations-6-12'
import { REVIEW_TABLES_V16 } from '../review/review-schema'
import { REVIEW_SHARE_TABLES_V15 } from '../review/share-schema'

/**
 * Every schema version's change, in order (migrate.ts applies them; docs/cache.md): the
 * older ones from their range's module, the later ones here. A new version is appended here.
 */
export const migrations: readonly Migration[] = [
  ...MIGRATIONS_1_TO_5,
  ...MIGRATIONS_6_TO_12,
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
  },
  {
    // Version 21: the kept term list (ingest/term-list.ts), which prefix expansion reads
    // instead of fts5vocab, filled from the index once here.
    version: 21,
    up(db) {
      addTermList(db)
    }
  }
]

export const SCHEMA_VERSION = migrations.reduce((v, m) => Math.max(v, m.version), 0)
