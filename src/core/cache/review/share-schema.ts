/**
 * Migration 15: what a workstation keeps to share its review work through the team cache
 * (docs/review.md, "Shared with the team").
 *
 * - `review_outbox`: each change saved here and not yet in the team cache, in save order,
 *   with the id the team cache knows it by (a push retried after a crash is recognised) and,
 *   for a team field, the value this workstation last saw there (`base`): a push whose base
 *   is no longer the team's value and differs from its own is a conflict. `refused` holds why
 *   the team cache refused it (a removed role): kept, never pushed again until retried.
 * - `review_team_seen`: the team's value of each field as last pulled or pushed (the base of
 *   the next change).
 * - `review_conflicts`: conflicts of either kind, both values, who and when, until resolved.
 * - `team_evaluations`: other reviewers' scores and notes, one per call and author.
 * - `review_share`: the pull's cursor, the role this cache pushes as, and whether sharing is on.
 */
export const REVIEW_SHARE_TABLES_V15 = `
  CREATE TABLE IF NOT EXISTS review_outbox (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    change_id TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    call_id TEXT NOT NULL,
    field TEXT,
    value TEXT,
    base TEXT,
    at INTEGER NOT NULL,
    refused TEXT
  );
  CREATE INDEX IF NOT EXISTS review_outbox_by_field ON review_outbox (call_id, field, seq);
  CREATE TABLE IF NOT EXISTS review_team_seen (
    call_id TEXT NOT NULL,
    field TEXT NOT NULL,
    value TEXT NOT NULL,
    author TEXT NOT NULL,
    at INTEGER NOT NULL,
    PRIMARY KEY (call_id, field)
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS review_conflicts (
    id TEXT PRIMARY KEY,
    call_id TEXT NOT NULL,
    field TEXT NOT NULL,
    theirs TEXT NOT NULL,
    their_author TEXT NOT NULL,
    their_at INTEGER NOT NULL,
    mine TEXT NOT NULL,
    my_author TEXT NOT NULL,
    my_at INTEGER NOT NULL,
    resolved_value TEXT,
    resolved_by TEXT,
    resolved_at INTEGER
  );
  CREATE INDEX IF NOT EXISTS review_conflicts_by_call ON review_conflicts (call_id);
  CREATE TABLE IF NOT EXISTS team_evaluations (
    call_id TEXT NOT NULL,
    author TEXT NOT NULL,
    score TEXT,
    note TEXT NOT NULL,
    changed_at INTEGER NOT NULL,
    PRIMARY KEY (call_id, author)
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS review_share (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );
`
