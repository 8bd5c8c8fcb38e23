import { q } from './connection'

/**
 * Migration 3: a membership's scope is checked once per statement instead of once per row.
 *
 * Schema 1 gave `scope_members.scope_id` a foreign key to `scopes`. PostgreSQL checks a foreign
 * key row by row (an after-row trigger that runs a locking `SELECT` through SPI for every
 * membership), and in a bulk sync that check was 16 % of the server's CPU for the whole write
 * (measured: 42 against 35.5 µs a call; docs/perf-log.md, 2026-11-27). The same guarantees, per
 * statement:
 * - an insert or update of memberships fails (SQLSTATE 23503, as the foreign key did) unless
 *   every scope it names exists; the check locks those scopes `FOR KEY SHARE` as the foreign
 *   key did, so a concurrent delete of one waits for the writer and then sees its memberships.
 *   One transition table and one join per statement: a bulk sync's statements each carry a
 *   few thousand memberships of one scope;
 * - a scope that still has memberships cannot be deleted, nor have its id changed, nor
 *   `scopes` be truncated while memberships exist.
 * Deletes of memberships need no check (the foreign key did none either).
 */
export function membershipsCheckedPerStatement(schema: string): string {
  const s = q(schema)
  return `
    ALTER TABLE ${s}.scope_members DROP CONSTRAINT IF EXISTS scope_members_scope_id_fkey;

    CREATE FUNCTION ${s}.scope_members_have_scopes() RETURNS trigger LANGUAGE plpgsql AS $f$
    DECLARE
      missing integer;
    BEGIN
      SELECT n.scope_id INTO missing
        FROM (SELECT DISTINCT scope_id FROM new_members) n
        LEFT JOIN (SELECT id FROM ${s}.scopes WHERE id IN (SELECT scope_id FROM new_members) FOR KEY SHARE) k ON k.id = n.scope_id
       WHERE k.id IS NULL
       LIMIT 1;
      IF FOUND THEN
        RAISE EXCEPTION 'a membership names scope id %, which does not exist', missing USING ERRCODE = 'foreign_key_violation';
      END IF;
      RETURN NULL;
    END
    $f$;
    CREATE TRIGGER scope_members_inserted AFTER INSERT ON ${s}.scope_members
      REFERENCING NEW TABLE AS new_members FOR EACH STATEMENT EXECUTE FUNCTION ${s}.scope_members_have_scopes();
    CREATE TRIGGER scope_members_updated AFTER UPDATE ON ${s}.scope_members
      REFERENCING NEW TABLE AS new_members FOR EACH STATEMENT EXECUTE FUNCTION ${s}.scope_members_have_scopes();

    CREATE FUNCTION ${s}.scopes_keep_members() RETURNS trigger LANGUAGE plpgsql AS $f$
    BEGIN
      IF TG_OP = 'TRUNCATE' THEN
        IF EXISTS (SELECT 1 FROM ${s}.scope_members) THEN
          RAISE EXCEPTION 'scopes cannot be truncated while scope_members has rows' USING ERRCODE = 'foreign_key_violation';
        END IF;
        RETURN NULL;
      END IF;
      IF TG_OP = 'UPDATE' AND NEW.id = OLD.id THEN
        RETURN NEW;
      END IF;
      IF EXISTS (SELECT 1 FROM ${s}.scope_members WHERE scope_id = OLD.id) THEN
        RAISE EXCEPTION 'scope % (id %) still has memberships', OLD.scope_key, OLD.id USING ERRCODE = 'foreign_key_violation';
      END IF;
      RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
    END
    $f$;
    CREATE TRIGGER scopes_keep_members BEFORE DELETE OR UPDATE OF id ON ${s}.scopes
      FOR EACH ROW EXECUTE FUNCTION ${s}.scopes_keep_members();
    CREATE TRIGGER scopes_keep_members_truncate BEFORE TRUNCATE ON ${s}.scopes
      FOR EACH STATEMENT EXECUTE FUNCTION ${s}.scopes_keep_members();
  `
}
