import { q } from './connection'
import { leadGroup } from './pg-migration-5'

/** The tombstone kind of one call removed from a review list (`id` the list, `call_id` the call). */
export const LIST_CALL = 'list-call'

/**
 * Version 10: a lead's removal of calls from a review list is shared, as the deletion of a
 * whole list is (version 9).
 *
 * `review_tombstones` gains `call_id`: '' for a deleted list or round, the removed call for a
 * `list-call` tombstone (its `id` the list), so the key becomes (kind, id, call_id). A BEFORE
 * INSERT trigger on the list's items (named to fire after `_alive` and before the numbering
 * one) drops a row of a removed call, so an older queued change pushed later — a list whose
 * calls were queued before the removal — does not bring the call back.
 *
 * A call removed and then added again on purpose is the lead's later decision: a lead may
 * delete a `list-call` tombstone (the push of a list whose change adds the call, when that
 * change is newer than the removal), and the call's row goes in again with a new number.
 * Only the lead group removes calls, as only it writes the lists: version 9's INSERT policy
 * and the items' DELETE grant say so; this version adds the lead's DELETE of `list-call`
 * tombstones and the INSERT of the new column.
 */
export function reviewListCallsV10(schema: string): string {
  const s = q(schema)
  const lit = (v: string): string => `'${v.replace(/'/g, "''")}'`
  const isLead = `pg_has_role(current_user, ${lit(leadGroup(schema))}, 'MEMBER')`
  return `
    ALTER TABLE ${s}.review_tombstones ADD COLUMN call_id text NOT NULL DEFAULT '' CHECK (octet_length(call_id) <= 800);
    ALTER TABLE ${s}.review_tombstones DROP CONSTRAINT review_tombstones_pkey;
    ALTER TABLE ${s}.review_tombstones ADD PRIMARY KEY (kind, id, call_id);
    ALTER TABLE ${s}.review_tombstones DROP CONSTRAINT review_tombstones_kind_check;
    ALTER TABLE ${s}.review_tombstones ADD CONSTRAINT review_tombstones_kind_check
      CHECK (kind IN ('list', 'calibration', ${lit(LIST_CALL)}));
    ALTER TABLE ${s}.review_tombstones ADD CONSTRAINT review_tombstones_call_check
      CHECK ((kind = ${lit(LIST_CALL)}) = (call_id <> ''));

    CREATE POLICY lead_readds ON ${s}.review_tombstones FOR DELETE USING (kind = ${lit(LIST_CALL)} AND ${isLead});

    -- Runs as the writer: every analyst reads the tombstones.
    CREATE FUNCTION ${s}.review_call_not_removed() RETURNS trigger LANGUAGE plpgsql AS $f$
    BEGIN
      IF EXISTS (SELECT 1 FROM ${s}.review_tombstones WHERE kind = ${lit(LIST_CALL)} AND id = NEW.list_id AND call_id = NEW.call_id) THEN
        RETURN NULL;
      END IF;
      RETURN NEW;
    END $f$;
    CREATE TRIGGER team_review_list_items_kept BEFORE INSERT ON ${s}.team_review_list_items
      FOR EACH ROW EXECUTE FUNCTION ${s}.review_call_not_removed();
  `
}

/** The grants of version 10 (every `team init`, after version 9's). */
export function reviewGrantsV10Sql(schema: string): string {
  const s = q(schema)
  return `
    GRANT INSERT (call_id), DELETE ON ${s}.review_tombstones TO "${leadGroup(schema)}";
  `
}
