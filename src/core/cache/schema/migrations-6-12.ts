import { reindexAll } from '../ingest/reindex'
import { REVIEW_TABLES_V6 } from '../review/review-schema'
import type { Migration } from './migrate'

/** Versions 6 to 12 of the cache's schema: review, the prefix index, the catalog's sources (migrations.ts lists every version). */
export const MIGRATIONS_6_TO_12: readonly Migration[] = [
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
  }
]
