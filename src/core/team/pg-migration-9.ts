import { q } from './connection'
import { analystGroup, leadGroup } from './pg-migration-5'

/** What a tombstone may name: a review list (with its items) or a calibration round (with its answers and submissions). */
export const TOMBSTONE_KINDS = ['list', 'calibration'] as const
export type TombstoneKind = (typeof TOMBSTONE_KINDS)[number]

/**
 * Version 9: a lead's deletion of a review list or a calibration round is shared.
 *
 * `review_tombstones` holds one row per deleted list or round: what it was, its id, when and
 * by whom it was deleted, numbered by the same trigger as every review row, so a pull meets
 * the deletion in change-number order after whatever it deleted. The deleted rows themselves
 * go (the list's items and the round's answers and submissions with them, by their foreign
 * keys): the tombstone is small and outlives them, where a `deleted` column would keep
 * every deleted list's calls, assignees and answers in the team cache for good.
 *
 * A tombstone is final: a BEFORE INSERT trigger on each of the five tables (named to fire
 * before the numbering one) drops a row of a deleted list or round, so an older queued
 * change pushed from another workstation (or by an older Callsight, or by hand) never brings
 * it back. Only the lead group writes tombstones and deletes rounds, as only it writes them.
 */
export function reviewTombstonesV9(schema: string): string {
  const s = q(schema)
  const lit = (v: string): string => `'${v.replace(/'/g, "''")}'`
  const isLead = `pg_has_role(current_user, ${lit(leadGroup(schema))}, 'MEMBER')`
  const guarded: Array<[table: string, kind: TombstoneKind, column: string]> = [
    ['team_review_lists', 'list', 'id'],
    ['team_review_list_items', 'list', 'list_id'],
    ['team_calibrations', 'calibration', 'id'],
    ['calibration_answers', 'calibration', 'session_id'],
    ['calibration_submissions', 'calibration', 'session_id']
  ]
  return `
    CREATE TABLE ${s}.review_tombstones (
      kind text NOT NULL CHECK (kind IN (${TOMBSTONE_KINDS.map(lit).join(', ')})),
      id uuid NOT NULL,
      deleted_at bigint NOT NULL,
      author text NOT NULL DEFAULT current_user,
      seq bigint NOT NULL,
      PRIMARY KEY (kind, id)
    );
    CREATE INDEX review_tombstones_by_seq ON ${s}.review_tombstones (seq);
    CREATE TRIGGER review_tombstones_stamp BEFORE INSERT OR UPDATE ON ${s}.review_tombstones
      FOR EACH ROW EXECUTE FUNCTION ${s}.review_stamp('own');
    CREATE TRIGGER review_tombstones_announce AFTER INSERT OR UPDATE ON ${s}.review_tombstones
      FOR EACH STATEMENT EXECUTE FUNCTION ${s}.review_announce();

    ALTER TABLE ${s}.review_tombstones ENABLE ROW LEVEL SECURITY;
    ALTER TABLE ${s}.review_tombstones FORCE ROW LEVEL SECURITY;
    CREATE POLICY read_all ON ${s}.review_tombstones FOR SELECT USING (true);
    CREATE POLICY lead_deletes ON ${s}.review_tombstones FOR INSERT WITH CHECK (author = current_user AND ${isLead});
    CREATE POLICY lead_deletes ON ${s}.team_calibrations FOR DELETE USING (${isLead});

    -- Runs as the writer: every analyst reads the tombstones.
    CREATE FUNCTION ${s}.review_not_deleted() RETURNS trigger LANGUAGE plpgsql AS $f$
    BEGIN
      IF EXISTS (SELECT 1 FROM ${s}.review_tombstones WHERE kind = TG_ARGV[0] AND id = (to_jsonb(NEW) ->> TG_ARGV[1])::uuid) THEN
        RETURN NULL;
      END IF;
      RETURN NEW;
    END $f$;
    ${guarded
      .map(
        ([t, kind, col]) =>
          `CREATE TRIGGER ${t}_alive BEFORE INSERT ON ${s}.${t} FOR EACH ROW EXECUTE FUNCTION ${s}.review_not_deleted(${lit(kind)}, ${lit(col)});`
      )
      .join('\n    ')}
  `
}

/** The grants of version 9 (every `team init`, after version 7's). */
export function reviewGrantsV9Sql(schema: string, writer: string): string {
  const s = q(schema)
  return `
    REVOKE ALL ON ${s}.review_tombstones FROM "${writer}";
    GRANT SELECT ON ${s}.review_tombstones TO "${analystGroup(schema)}";
    GRANT INSERT (kind, id, deleted_at) ON ${s}.review_tombstones TO "${leadGroup(schema)}";
    GRANT DELETE ON ${s}.team_calibrations TO "${leadGroup(schema)}";
  `
}
