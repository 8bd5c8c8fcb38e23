import { q } from './connection'

/** The tenant's group roles: every analyst's login is a member of the first, a lead's of both. */
export const analystGroup = (schema: string): string => `${schema}_analyst`
export const leadGroup = (schema: string): string => `${schema}_lead`

/**
 * Version 5: review data shared by the team (docs/team.md, "Review as a team"). Additive:
 * pulls of calls read nothing new, so `min_reader_version` stays.
 *
 * - `review_fields`: the team's fields of a call (status, tags), one row per call and field,
 *   the last writer as author.
 * - `evaluations`: a score and a note, one per call and author.
 * - `review_conflicts`: a push whose base was not the field's value any more, kept with both
 *   values until a person resolves it.
 * - `review_applied`: every change id applied, so a push retried after a crash never applies twice.
 * - `team_scorecards`, `team_review_lists`, `team_review_list_items`: the lead's.
 *
 * Every row takes the next number of `review_changes` and its author (`current_user`) in a
 * trigger, under the lock of `review_write_lock` taken by the trigger itself: numbers follow
 * commit order whoever writes, so a pull that has applied up to N needs exactly seq > N.
 * Authors are never a client's value: the column is left out of the analysts' INSERT and
 * UPDATE grants, and row-level security checks `author = current_user` on top.
 */
export function reviewTablesV5(schema: string): string {
  const s = q(schema)
  const analyst = analystGroup(schema)
  const lead = leadGroup(schema)
  const lit = (v: string): string => `'${v.replace(/'/g, "''")}'`
  return `
    DO $$ BEGIN
      IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = ${lit(analyst)}) THEN CREATE ROLE "${analyst}" NOLOGIN; END IF;
      IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = ${lit(lead)}) THEN CREATE ROLE "${lead}" NOLOGIN; END IF;
    END $$;
    GRANT "${analyst}" TO "${lead}";

    CREATE SEQUENCE ${s}.review_changes AS bigint;
    CREATE TABLE ${s}.review_write_lock (id integer PRIMARY KEY);

    -- Runs as the writer (not SECURITY DEFINER): current_user is the analyst's own role.
    CREATE FUNCTION ${s}.review_stamp() RETURNS trigger LANGUAGE plpgsql AS $f$
    BEGIN
      LOCK TABLE ${s}.review_write_lock IN EXCLUSIVE MODE;
      NEW.seq := nextval(${lit(`${schema}.review_changes`)});
      IF TG_ARGV[0] = 'last_writer' OR TG_OP = 'INSERT' THEN
        NEW.author := current_user;
      ELSE
        NEW.author := OLD.author;
      END IF;
      IF TG_ARGV[0] = 'resolver' AND TG_OP = 'UPDATE' THEN
        NEW.resolved_by := current_user;
      END IF;
      RETURN NEW;
    END $f$;

    CREATE TABLE ${s}.review_fields (
      call_id text NOT NULL CHECK (octet_length(call_id) BETWEEN 1 AND 800),
      field text NOT NULL CHECK (field IN ('status', 'tags')),
      value text NOT NULL CHECK (octet_length(value) <= 65536),
      author text NOT NULL DEFAULT current_user,
      changed_at bigint NOT NULL,
      change_id uuid NOT NULL,
      seq bigint NOT NULL,
      PRIMARY KEY (call_id, field)
    );
    CREATE INDEX review_fields_by_seq ON ${s}.review_fields (seq);
    CREATE TRIGGER review_fields_stamp BEFORE INSERT OR UPDATE ON ${s}.review_fields
      FOR EACH ROW EXECUTE FUNCTION ${s}.review_stamp('last_writer');

    CREATE TABLE ${s}.evaluations (
      call_id text NOT NULL CHECK (octet_length(call_id) BETWEEN 1 AND 800),
      author text NOT NULL DEFAULT current_user,
      -- JSON {scorecardId, version, answers, total, failed}; NULL: no score.
      score text CHECK (octet_length(score) <= 65536),
      scorecard_id text,
      scorecard_version integer,
      note text NOT NULL DEFAULT '' CHECK (octet_length(note) <= 65536),
      created_at bigint NOT NULL,
      changed_at bigint NOT NULL,
      change_id uuid NOT NULL,
      seq bigint NOT NULL,
      PRIMARY KEY (call_id, author)
    );
    CREATE INDEX evaluations_by_seq ON ${s}.evaluations (seq);
    CREATE TRIGGER evaluations_stamp BEFORE INSERT OR UPDATE ON ${s}.evaluations
      FOR EACH ROW EXECUTE FUNCTION ${s}.review_stamp('own');

    CREATE TABLE ${s}.review_conflicts (
      id uuid PRIMARY KEY,
      call_id text NOT NULL,
      field text NOT NULL,
      theirs text NOT NULL,
      their_author text NOT NULL,
      their_at bigint NOT NULL,
      mine text NOT NULL,
      author text NOT NULL DEFAULT current_user,
      mine_at bigint NOT NULL,
      resolved_value text,
      resolved_by text,
      resolved_at bigint,
      seq bigint NOT NULL
    );
    CREATE INDEX review_conflicts_by_seq ON ${s}.review_conflicts (seq);
    CREATE TRIGGER review_conflicts_stamp BEFORE INSERT OR UPDATE ON ${s}.review_conflicts
      FOR EACH ROW EXECUTE FUNCTION ${s}.review_stamp('resolver');

    CREATE TABLE ${s}.review_applied (
      change_id uuid PRIMARY KEY,
      author text NOT NULL DEFAULT current_user
    );

    CREATE TABLE ${s}.team_scorecards (
      id text NOT NULL,
      version integer NOT NULL,
      name text NOT NULL,
      criteria text NOT NULL,
      author text NOT NULL DEFAULT current_user,
      created_at bigint NOT NULL,
      seq bigint NOT NULL,
      PRIMARY KEY (id, version)
    );
    CREATE TRIGGER team_scorecards_stamp BEFORE INSERT OR UPDATE ON ${s}.team_scorecards
      FOR EACH ROW EXECUTE FUNCTION ${s}.review_stamp('own');
    CREATE TABLE ${s}.team_review_lists (
      id uuid PRIMARY KEY,
      name text NOT NULL,
      source text NOT NULL,
      author text NOT NULL DEFAULT current_user,
      created_at bigint NOT NULL,
      seq bigint NOT NULL
    );
    CREATE TRIGGER team_review_lists_stamp BEFORE INSERT OR UPDATE ON ${s}.team_review_lists
      FOR EACH ROW EXECUTE FUNCTION ${s}.review_stamp('own');
    CREATE TABLE ${s}.team_review_list_items (
      list_id uuid NOT NULL REFERENCES ${s}.team_review_lists (id) ON DELETE CASCADE,
      position integer NOT NULL,
      call_id text NOT NULL,
      assignee text,
      author text NOT NULL DEFAULT current_user,
      seq bigint NOT NULL,
      PRIMARY KEY (list_id, position),
      UNIQUE (list_id, call_id)
    );
    CREATE TRIGGER team_review_list_items_stamp BEFORE INSERT OR UPDATE ON ${s}.team_review_list_items
      FOR EACH ROW EXECUTE FUNCTION ${s}.review_stamp('last_writer');

    -- Row-level security, forced so that the tables' owner is bound too. A group's own name
    -- is never an author: a member who SET ROLEs to it writes as nobody.
    ALTER TABLE ${s}.review_fields ENABLE ROW LEVEL SECURITY;
    ALTER TABLE ${s}.review_fields FORCE ROW LEVEL SECURITY;
    CREATE POLICY read_all ON ${s}.review_fields FOR SELECT USING (true);
    CREATE POLICY write_as_self ON ${s}.review_fields FOR INSERT
      WITH CHECK (author = current_user AND author NOT IN (${lit(analyst)}, ${lit(lead)}));
    CREATE POLICY change_as_self ON ${s}.review_fields FOR UPDATE USING (true)
      WITH CHECK (author = current_user AND author NOT IN (${lit(analyst)}, ${lit(lead)}));

    ALTER TABLE ${s}.evaluations ENABLE ROW LEVEL SECURITY;
    ALTER TABLE ${s}.evaluations FORCE ROW LEVEL SECURITY;
    CREATE POLICY read_all ON ${s}.evaluations FOR SELECT USING (true);
    CREATE POLICY insert_own ON ${s}.evaluations FOR INSERT
      WITH CHECK (author = current_user AND author NOT IN (${lit(analyst)}, ${lit(lead)}));
    -- USING (true): another's row is found, and its author (kept by the trigger) fails the
    -- check with an error, rather than an UPDATE of nothing that looks like success.
    CREATE POLICY update_own ON ${s}.evaluations FOR UPDATE USING (true) WITH CHECK (author = current_user);

    ALTER TABLE ${s}.review_conflicts ENABLE ROW LEVEL SECURITY;
    ALTER TABLE ${s}.review_conflicts FORCE ROW LEVEL SECURITY;
    CREATE POLICY read_all ON ${s}.review_conflicts FOR SELECT USING (true);
    CREATE POLICY insert_own ON ${s}.review_conflicts FOR INSERT WITH CHECK (author = current_user);
    CREATE POLICY resolve_as_self ON ${s}.review_conflicts FOR UPDATE USING (resolved_at IS NULL)
      WITH CHECK (resolved_by = current_user);

    ALTER TABLE ${s}.review_applied ENABLE ROW LEVEL SECURITY;
    ALTER TABLE ${s}.review_applied FORCE ROW LEVEL SECURITY;
    CREATE POLICY own ON ${s}.review_applied USING (author = current_user) WITH CHECK (author = current_user);

    ALTER TABLE ${s}.team_scorecards ENABLE ROW LEVEL SECURITY;
    ALTER TABLE ${s}.team_review_lists ENABLE ROW LEVEL SECURITY;
    ALTER TABLE ${s}.team_review_list_items ENABLE ROW LEVEL SECURITY;
    CREATE POLICY read_all ON ${s}.team_scorecards FOR SELECT USING (true);
    CREATE POLICY read_all ON ${s}.team_review_lists FOR SELECT USING (true);
    CREATE POLICY read_all ON ${s}.team_review_list_items FOR SELECT USING (true);
    CREATE POLICY lead_writes ON ${s}.team_scorecards FOR ALL USING (pg_has_role(current_user, ${lit(lead)}, 'MEMBER'))
      WITH CHECK (pg_has_role(current_user, ${lit(lead)}, 'MEMBER'));
    CREATE POLICY lead_writes ON ${s}.team_review_lists FOR ALL USING (pg_has_role(current_user, ${lit(lead)}, 'MEMBER'))
      WITH CHECK (pg_has_role(current_user, ${lit(lead)}, 'MEMBER'));
    CREATE POLICY lead_writes ON ${s}.team_review_list_items FOR ALL USING (pg_has_role(current_user, ${lit(lead)}, 'MEMBER'))
      WITH CHECK (pg_has_role(current_user, ${lit(lead)}, 'MEMBER'));
  `
}

/** The review tables (the worker's writer role gets none of them but read). */
export const REVIEW_TABLES = [
  'review_fields',
  'evaluations',
  'review_conflicts',
  'review_applied',
  'review_write_lock',
  'team_scorecards',
  'team_review_lists',
  'team_review_list_items'
] as const

/**
 * The grants of the review tables, applied by every `team init` after its own (which grant
 * the writer every table): the worker touches none of them, the reader only reads, analysts
 * write the columns that are theirs to write, leads also the lists and scorecards.
 */
export function reviewGrantsSql(schema: string, writer: string, reader: string, database: string): string {
  const s = q(schema)
  const analyst = `"${analystGroup(schema)}"`
  const lead = `"${leadGroup(schema)}"`
  const all = REVIEW_TABLES.map((t) => `${s}.${t}`).join(', ')
  return `
    REVOKE ALL ON ${all} FROM "${writer}";
    REVOKE ALL ON ${s}.review_changes FROM "${writer}";
    REVOKE ALL ON ${s}.review_applied, ${s}.review_write_lock FROM "${reader}", "${writer}";
    GRANT CONNECT ON DATABASE "${database.replace(/"/g, '""')}" TO ${analyst}, ${lead};
    GRANT USAGE ON SCHEMA ${s} TO ${analyst}, ${lead};
    GRANT SELECT ON ALL TABLES IN SCHEMA ${s} TO ${analyst};
    REVOKE SELECT ON ${s}.checkpoints FROM ${analyst};
    GRANT USAGE ON SEQUENCE ${s}.review_changes TO ${analyst};
    GRANT UPDATE ON ${s}.review_write_lock TO ${analyst};
    GRANT INSERT (call_id, field, value, changed_at, change_id), UPDATE (value, changed_at, change_id) ON ${s}.review_fields TO ${analyst};
    GRANT INSERT (call_id, score, scorecard_id, scorecard_version, note, created_at, changed_at, change_id),
      UPDATE (score, scorecard_id, scorecard_version, note, changed_at, change_id) ON ${s}.evaluations TO ${analyst};
    GRANT INSERT (id, call_id, field, theirs, their_author, their_at, mine, mine_at),
      UPDATE (resolved_value, resolved_at) ON ${s}.review_conflicts TO ${analyst};
    GRANT INSERT (change_id) ON ${s}.review_applied TO ${analyst};
    GRANT INSERT (id, version, name, criteria, created_at) ON ${s}.team_scorecards TO ${lead};
    GRANT INSERT (id, name, source, created_at), UPDATE (name), DELETE ON ${s}.team_review_lists TO ${lead};
    GRANT INSERT (list_id, position, call_id, assignee), UPDATE (assignee, position), DELETE ON ${s}.team_review_list_items TO ${lead};
  `
}
