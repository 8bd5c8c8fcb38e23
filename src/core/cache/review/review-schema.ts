/**
 * The review tables as cache migration 6 created them (docs/review.md): annotations, their
 * history, scorecards and review lists. Kept beside the review stores that read and write
 * them; like every migration's text, never edited once released (a change is a new version).
 */
export const REVIEW_TABLES_V6 = `
        CREATE TABLE IF NOT EXISTS annotations (
          call_id TEXT PRIMARY KEY,
          id TEXT NOT NULL UNIQUE,
          author TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          status TEXT NOT NULL DEFAULT 'new' CHECK (status IN ('new','in_review','reviewed','follow_up')),
          status_at INTEGER NOT NULL,
          tags TEXT NOT NULL DEFAULT '[]',
          tags_at INTEGER NOT NULL,
          note TEXT NOT NULL DEFAULT '',
          -- The note folded (Turkish-correct, as the index folds), for the note filter.
          note_folded TEXT NOT NULL DEFAULT '',
          note_at INTEGER NOT NULL,
          scorecard_id TEXT,
          scorecard_version INTEGER,
          answers TEXT,
          total REAL,
          failed INTEGER NOT NULL DEFAULT 0,
          score_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL,
          updated_by TEXT NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS annotations_by_status ON annotations(status, call_id);
        CREATE INDEX IF NOT EXISTS annotations_by_total ON annotations(total, call_id) WHERE total IS NOT NULL;
        CREATE INDEX IF NOT EXISTS annotations_by_scorecard ON annotations(scorecard_id, call_id) WHERE scorecard_id IS NOT NULL;
        CREATE INDEX IF NOT EXISTS annotations_by_reviewer ON annotations(updated_by, call_id);

        -- One row per (tag, call): the tag filter and the tag counts read it by tag.
        CREATE TABLE IF NOT EXISTS annotation_tags (
          tag TEXT NOT NULL,
          call_id TEXT NOT NULL,
          PRIMARY KEY (tag, call_id)
        ) WITHOUT ROWID;

        -- Every change of a field, with the value before, for undo.
        CREATE TABLE IF NOT EXISTS annotation_history (
          seq INTEGER PRIMARY KEY,
          call_id TEXT NOT NULL,
          field TEXT NOT NULL CHECK (field IN ('status','tags','note','score')),
          before TEXT,
          before_at INTEGER NOT NULL,
          after TEXT,
          at INTEGER NOT NULL,
          author TEXT NOT NULL,
          undone INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX IF NOT EXISTS annotation_history_by_call ON annotation_history(call_id, seq);

        -- A change to a scorecard makes a new version; scores keep the version they answered.
        CREATE TABLE IF NOT EXISTS scorecards (
          id TEXT NOT NULL,
          version INTEGER NOT NULL,
          name TEXT NOT NULL,
          criteria TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          author TEXT NOT NULL,
          PRIMARY KEY (id, version)
        ) WITHOUT ROWID;

        CREATE TABLE IF NOT EXISTS review_lists (
          id TEXT PRIMARY KEY,
          name TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          author TEXT NOT NULL,
          source TEXT NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS review_list_items (
          list_id TEXT NOT NULL,
          position INTEGER NOT NULL,
          call_id TEXT NOT NULL,
          PRIMARY KEY (list_id, position)
        ) WITHOUT ROWID;
        CREATE UNIQUE INDEX IF NOT EXISTS review_list_items_by_call ON review_list_items(call_id, list_id);
`

/**
 * Migration 16: assignments of a list's calls to reviewers, and calibration sessions with
 * their answers, kept apart from the calls' annotations (a calibration score is never a
 * call's review score). Reviewers are names: the analyst's PostgreSQL role on a team
 * account, the reviewer name the app writes annotations as on a local one.
 */
export const REVIEW_TABLES_V16 = `
        -- One reviewer per (list, call); the list's items stay the list's.
        CREATE TABLE IF NOT EXISTS review_assignments (
          list_id TEXT NOT NULL,
          call_id TEXT NOT NULL,
          reviewer TEXT NOT NULL,
          assigned_by TEXT NOT NULL,
          assigned_at INTEGER NOT NULL,
          PRIMARY KEY (list_id, call_id)
        ) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS review_assignments_by_reviewer ON review_assignments(reviewer, list_id);

        -- call_ids and reviewers: JSON arrays in the session's order; reference: the lead's
        -- answers, JSON {callId: {criterionId: answer}}.
        CREATE TABLE IF NOT EXISTS calibration_sessions (
          id TEXT PRIMARY KEY,
          name TEXT NOT NULL,
          scorecard_id TEXT NOT NULL,
          scorecard_version INTEGER NOT NULL,
          call_ids TEXT NOT NULL,
          reviewers TEXT NOT NULL,
          reference TEXT NOT NULL DEFAULT '{}',
          created_at INTEGER NOT NULL,
          created_by TEXT NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS calibration_answers (
          session_id TEXT NOT NULL,
          reviewer TEXT NOT NULL,
          call_id TEXT NOT NULL,
          criterion_id TEXT NOT NULL,
          answer INTEGER,
          at INTEGER NOT NULL,
          PRIMARY KEY (session_id, reviewer, call_id, criterion_id)
        ) WITHOUT ROWID;
        -- A reviewer's answers are final once submitted; only then are the others' shown to them.
        CREATE TABLE IF NOT EXISTS calibration_submissions (
          session_id TEXT NOT NULL,
          reviewer TEXT NOT NULL,
          submitted_at INTEGER NOT NULL,
          PRIMARY KEY (session_id, reviewer)
        ) WITHOUT ROWID;
`
