import { q } from './connection'
import { analystGroup, leadGroup } from './pg-migration-5'

/** The channel every review change is announced on; the payload is `schema:change number`. */
export const REVIEW_CHANNEL = 'callsight_review'

/** The tables whose writes are announced (version 5's shared ones and version 7's). */
const ANNOUNCED = [
  'review_fields',
  'evaluations',
  'review_conflicts',
  'team_scorecards',
  'team_review_lists',
  'team_review_list_items',
  'team_calibrations',
  'calibration_answers',
  'calibration_submissions'
] as const

/**
 * Version 7: assignments and calibration rounds shared, and every review change announced.
 *
 * - `team_review_list_items.assigned_at`: when the lead assigned the call (the assignee is
 *   version 5's column; only the lead group writes lists and their items).
 * - `team_calibrations`: a round, created by a lead only; `reviewers` a JSON array of roles.
 * - `calibration_answers`: one row per round, author and call (the answers as JSON). A
 *   reviewer of the round writes only their own and only until they submit; a lead who is
 *   not a reviewer of it writes the reference (an answer whose author is not a reviewer).
 *   **Blind in the database**: a row is readable by its author, by whoever has submitted in
 *   that round, and by a lead who is not one of its reviewers — never by another reviewer
 *   still answering, nor by the shared reader.
 * - `calibration_submissions`: a reviewer's answers are final; a reviewer submits only as themself.
 *
 * A submission makes rows readable that the submitter's pulls have passed already, so the
 * submission's trigger numbers the round's answers again (SECURITY DEFINER, as the tables'
 * owner, whom row-level security does not bind on these tables): the next pull brings them.
 *
 * Announcements: a statement trigger on each shared table sends `NOTIFY callsight_review`
 * with the schema and the last change number, delivered at commit, so a workstation holding a
 * listening connection pulls at once instead of on its schedule.
 */
export function reviewTablesV7(schema: string): string {
  const s = q(schema)
  const lead = leadGroup(schema)
  const lit = (v: string): string => `'${v.replace(/'/g, "''")}'`
  const isLead = `pg_has_role(current_user, ${lit(lead)}, 'MEMBER')`
  return `
    ALTER TABLE ${s}.team_review_list_items ADD COLUMN assigned_at bigint NOT NULL DEFAULT 0;
    CREATE INDEX IF NOT EXISTS team_scorecards_by_seq ON ${s}.team_scorecards (seq);
    CREATE INDEX IF NOT EXISTS team_review_lists_by_seq ON ${s}.team_review_lists (seq);
    CREATE INDEX IF NOT EXISTS team_review_list_items_by_seq ON ${s}.team_review_list_items (seq);

    CREATE TABLE ${s}.team_calibrations (
      id uuid PRIMARY KEY,
      name text NOT NULL CHECK (octet_length(name) <= 1024),
      scorecard_id text NOT NULL CHECK (octet_length(scorecard_id) <= 256),
      scorecard_version integer NOT NULL,
      call_ids text NOT NULL CHECK (octet_length(call_ids) <= 65536),
      reviewers jsonb NOT NULL CHECK (jsonb_typeof(reviewers) = 'array' AND octet_length(reviewers::text) <= 65536),
      created_at bigint NOT NULL,
      author text NOT NULL DEFAULT current_user,
      seq bigint NOT NULL
    );
    CREATE INDEX team_calibrations_by_seq ON ${s}.team_calibrations (seq);
    CREATE TRIGGER team_calibrations_stamp BEFORE INSERT OR UPDATE ON ${s}.team_calibrations
      FOR EACH ROW EXECUTE FUNCTION ${s}.review_stamp('own');

    CREATE TABLE ${s}.calibration_answers (
      session_id uuid NOT NULL REFERENCES ${s}.team_calibrations (id) ON DELETE CASCADE,
      author text NOT NULL DEFAULT current_user,
      call_id text NOT NULL CHECK (octet_length(call_id) BETWEEN 1 AND 800),
      answers text NOT NULL CHECK (octet_length(answers) <= 65536),
      changed_at bigint NOT NULL,
      seq bigint NOT NULL,
      PRIMARY KEY (session_id, author, call_id)
    );
    CREATE INDEX calibration_answers_by_seq ON ${s}.calibration_answers (seq);
    CREATE TRIGGER calibration_answers_stamp BEFORE INSERT OR UPDATE ON ${s}.calibration_answers
      FOR EACH ROW EXECUTE FUNCTION ${s}.review_stamp('own');

    CREATE TABLE ${s}.calibration_submissions (
      session_id uuid NOT NULL REFERENCES ${s}.team_calibrations (id) ON DELETE CASCADE,
      author text NOT NULL DEFAULT current_user,
      submitted_at bigint NOT NULL,
      seq bigint NOT NULL,
      PRIMARY KEY (session_id, author)
    );
    CREATE INDEX calibration_submissions_by_seq ON ${s}.calibration_submissions (seq);
    CREATE TRIGGER calibration_submissions_stamp BEFORE INSERT OR UPDATE ON ${s}.calibration_submissions
      FOR EACH ROW EXECUTE FUNCTION ${s}.review_stamp('own');

    -- Read by the policies, as the current user (not SECURITY DEFINER).
    CREATE FUNCTION ${s}.calibration_reviewer(sid uuid) RETURNS boolean LANGUAGE sql STABLE AS $f$
      SELECT EXISTS (SELECT 1 FROM ${s}.team_calibrations WHERE id = sid AND reviewers ? current_user::text)
    $f$;
    CREATE FUNCTION ${s}.calibration_submitted(sid uuid) RETURNS boolean LANGUAGE sql STABLE AS $f$
      SELECT EXISTS (SELECT 1 FROM ${s}.calibration_submissions WHERE session_id = sid AND author = current_user)
    $f$;

    CREATE FUNCTION ${s}.calibration_reveal() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
      SET search_path = pg_catalog, pg_temp AS $f$
    BEGIN
      UPDATE ${s}.calibration_answers SET seq = 0 WHERE session_id = NEW.session_id;
      RETURN NULL;
    END $f$;
    REVOKE ALL ON FUNCTION ${s}.calibration_reveal() FROM PUBLIC;
    CREATE TRIGGER calibration_submissions_reveal AFTER INSERT ON ${s}.calibration_submissions
      FOR EACH ROW EXECUTE FUNCTION ${s}.calibration_reveal();

    ALTER TABLE ${s}.team_calibrations ENABLE ROW LEVEL SECURITY;
    CREATE POLICY read_all ON ${s}.team_calibrations FOR SELECT USING (true);
    CREATE POLICY lead_creates ON ${s}.team_calibrations FOR INSERT WITH CHECK (author = current_user AND ${isLead});

    ALTER TABLE ${s}.calibration_answers ENABLE ROW LEVEL SECURITY;
    CREATE POLICY blind_read ON ${s}.calibration_answers FOR SELECT USING (
      author = current_user
      OR ${s}.calibration_submitted(session_id)
      OR (${isLead} AND NOT ${s}.calibration_reviewer(session_id))
    );
    CREATE POLICY answer_own ON ${s}.calibration_answers FOR INSERT WITH CHECK (
      author = current_user AND (
        (${s}.calibration_reviewer(session_id) AND NOT ${s}.calibration_submitted(session_id))
        OR (${isLead} AND NOT ${s}.calibration_reviewer(session_id))
      )
    );
    CREATE POLICY change_own ON ${s}.calibration_answers FOR UPDATE USING (author = current_user) WITH CHECK (
      author = current_user AND (
        (${s}.calibration_reviewer(session_id) AND NOT ${s}.calibration_submitted(session_id))
        OR (${isLead} AND NOT ${s}.calibration_reviewer(session_id))
      )
    );

    ALTER TABLE ${s}.calibration_submissions ENABLE ROW LEVEL SECURITY;
    CREATE POLICY read_all ON ${s}.calibration_submissions FOR SELECT USING (true);
    CREATE POLICY submit_own ON ${s}.calibration_submissions FOR INSERT
      WITH CHECK (author = current_user AND ${s}.calibration_reviewer(session_id));

    CREATE FUNCTION ${s}.review_announce() RETURNS trigger LANGUAGE plpgsql AS $f$
    BEGIN
      PERFORM pg_notify(${lit(REVIEW_CHANNEL)}, TG_TABLE_SCHEMA || ':' || currval(${lit(`${schema}.review_changes`)}));
      RETURN NULL;
    EXCEPTION WHEN object_not_in_prerequisite_state THEN
      -- No row was numbered in this session (a statement that changed nothing): nothing to say.
      RETURN NULL;
    END $f$;
    ${ANNOUNCED.map(
      (t) => `CREATE TRIGGER ${t}_announce AFTER INSERT OR UPDATE ON ${s}.${t} FOR EACH STATEMENT EXECUTE FUNCTION ${s}.review_announce();`
    ).join('\n    ')}
  `
}

/** Version 7's tables, for the grants. */
export const REVIEW_TABLES_V7 = ['team_calibrations', 'calibration_answers', 'calibration_submissions'] as const

/** The grants of version 7's tables (every `team init`, after version 5's). */
export function reviewGrantsV7Sql(schema: string, writer: string): string {
  const s = q(schema)
  const analyst = `"${analystGroup(schema)}"`
  const lead = `"${leadGroup(schema)}"`
  return `
    REVOKE ALL ON ${REVIEW_TABLES_V7.map((t) => `${s}.${t}`).join(', ')} FROM "${writer}";
    GRANT SELECT ON ${REVIEW_TABLES_V7.map((t) => `${s}.${t}`).join(', ')} TO ${analyst};
    GRANT INSERT (session_id, call_id, answers, changed_at), UPDATE (answers, changed_at) ON ${s}.calibration_answers TO ${analyst};
    GRANT INSERT (session_id, submitted_at) ON ${s}.calibration_submissions TO ${analyst};
    GRANT INSERT (id, name, scorecard_id, scorecard_version, call_ids, reviewers, created_at) ON ${s}.team_calibrations TO ${lead};
    GRANT INSERT (assigned_at), UPDATE (assigned_at) ON ${s}.team_review_list_items TO ${lead};
  `
}
