import { q } from './connection'

/** The chunk of 2^16 numbered calls the count's postings are kept by (meta can say otherwise, for tests). */
export const DEFAULT_CHUNK_BITS = 16

/**
 * Version 11: the count's postings (team-postings-build.ts, team-postings-count.ts), so that
 * an exact count never reads the calls' rows.
 *
 * - `calls.num`: a dense number per call, from its own sequence: existing rows numbered in
 *   `call_at` order, new ones by the column's DEFAULT; an upsert that updates a row keeps its
 *   number (the writer never names the column). A chunk is `num >> bits` (meta
 *   `count_chunk_bits`, 16 unless set).
 * - `count_posts`: per term and chunk, the calls of the chunk that have the term.
 * - `count_dirty`: chunks whose postings are stale. Statement-level triggers with transition
 *   tables mark the chunks a write to `calls` or `scope_members` touched, in the writer's own
 *   transaction, bumping a version: a builder removes a chunk's mark only at the version it
 *   read before reading the rows, so a write that lands during a build leaves the chunk dirty.
 */
export function countPostingsV11(schema: string): string {
  const s = q(schema)
  return `
    CREATE SEQUENCE ${s}.call_numbers AS bigint;
    ALTER TABLE ${s}.calls ADD COLUMN num bigint;
    UPDATE ${s}.calls c SET num = r.n
      FROM (SELECT call_id, row_number() OVER (ORDER BY call_at, call_id COLLATE "C") AS n FROM ${s}.calls) r
      WHERE r.call_id = c.call_id;
    SELECT setval('${s}.call_numbers', coalesce(max(num), 0) + 1, false) FROM ${s}.calls;
    ALTER TABLE ${s}.calls ALTER COLUMN num SET DEFAULT nextval('${s}.call_numbers'), ALTER COLUMN num SET NOT NULL;
    ALTER SEQUENCE ${s}.call_numbers OWNED BY ${s}.calls.num;
    CREATE UNIQUE INDEX calls_by_num ON ${s}.calls (num);

    CREATE TABLE ${s}.count_posts (
      term text COLLATE "C" NOT NULL,
      chunk integer NOT NULL,
      -- In-chunk offsets: sorted uint16 LE when few, else a bitmap of the whole chunk.
      posts bytea NOT NULL,
      PRIMARY KEY (term, chunk)
    );
    CREATE INDEX count_posts_by_chunk ON ${s}.count_posts (chunk);
    CREATE TABLE ${s}.count_dirty (
      chunk integer PRIMARY KEY,
      version bigint NOT NULL DEFAULT 1
    );

    CREATE FUNCTION ${s}.count_chunk_bits() RETURNS integer LANGUAGE sql STABLE AS $f$
      SELECT coalesce((SELECT value::integer FROM ${s}.meta WHERE key = 'count_chunk_bits'), ${DEFAULT_CHUNK_BITS})
    $f$;

    -- Chunks in order: two writers marking the same chunks lock them in the same order.
    CREATE FUNCTION ${s}.count_calls_changed() RETURNS trigger LANGUAGE plpgsql AS $f$
    DECLARE b integer := ${s}.count_chunk_bits();
    BEGIN
      IF TG_OP = 'INSERT' OR TG_OP = 'UPDATE' THEN
        INSERT INTO ${s}.count_dirty AS d (chunk)
          SELECT DISTINCT (num >> b)::integer FROM count_new ORDER BY 1
          ON CONFLICT (chunk) DO UPDATE SET version = d.version + 1;
      END IF;
      IF TG_OP = 'UPDATE' OR TG_OP = 'DELETE' THEN
        INSERT INTO ${s}.count_dirty AS d (chunk)
          SELECT DISTINCT (num >> b)::integer FROM count_old ORDER BY 1
          ON CONFLICT (chunk) DO UPDATE SET version = d.version + 1;
      END IF;
      RETURN NULL;
    END $f$;
    CREATE TRIGGER calls_count_insert AFTER INSERT ON ${s}.calls
      REFERENCING NEW TABLE AS count_new FOR EACH STATEMENT EXECUTE FUNCTION ${s}.count_calls_changed();
    CREATE TRIGGER calls_count_update AFTER UPDATE ON ${s}.calls
      REFERENCING OLD TABLE AS count_old NEW TABLE AS count_new FOR EACH STATEMENT EXECUTE FUNCTION ${s}.count_calls_changed();
    CREATE TRIGGER calls_count_delete AFTER DELETE ON ${s}.calls
      REFERENCING OLD TABLE AS count_old FOR EACH STATEMENT EXECUTE FUNCTION ${s}.count_calls_changed();

    CREATE FUNCTION ${s}.count_members_changed() RETURNS trigger LANGUAGE plpgsql AS $f$
    DECLARE b integer := ${s}.count_chunk_bits();
    BEGIN
      IF TG_OP = 'INSERT' OR TG_OP = 'UPDATE' THEN
        INSERT INTO ${s}.count_dirty AS d (chunk)
          SELECT DISTINCT (c.num >> b)::integer FROM count_new m JOIN ${s}.calls c ON c.call_id = m.call_id ORDER BY 1
          ON CONFLICT (chunk) DO UPDATE SET version = d.version + 1;
      END IF;
      IF TG_OP = 'UPDATE' OR TG_OP = 'DELETE' THEN
        INSERT INTO ${s}.count_dirty AS d (chunk)
          SELECT DISTINCT (c.num >> b)::integer FROM count_old m JOIN ${s}.calls c ON c.call_id = m.call_id ORDER BY 1
          ON CONFLICT (chunk) DO UPDATE SET version = d.version + 1;
      END IF;
      RETURN NULL;
    END $f$;
    CREATE TRIGGER scope_members_count_insert AFTER INSERT ON ${s}.scope_members
      REFERENCING NEW TABLE AS count_new FOR EACH STATEMENT EXECUTE FUNCTION ${s}.count_members_changed();
    CREATE TRIGGER scope_members_count_update AFTER UPDATE ON ${s}.scope_members
      REFERENCING OLD TABLE AS count_old NEW TABLE AS count_new FOR EACH STATEMENT EXECUTE FUNCTION ${s}.count_members_changed();
    CREATE TRIGGER scope_members_count_delete AFTER DELETE ON ${s}.scope_members
      REFERENCING OLD TABLE AS count_old FOR EACH STATEMENT EXECUTE FUNCTION ${s}.count_members_changed();

    -- A truncated table leaves no postings behind (TRUNCATE fires no row or transition triggers).
    CREATE FUNCTION ${s}.count_calls_truncated() RETURNS trigger LANGUAGE plpgsql AS $f$
    BEGIN
      DELETE FROM ${s}.count_posts;
      DELETE FROM ${s}.count_dirty;
      RETURN NULL;
    END $f$;
    CREATE TRIGGER calls_count_truncate AFTER TRUNCATE ON ${s}.calls
      FOR EACH STATEMENT EXECUTE FUNCTION ${s}.count_calls_truncated();

    -- The rows there were before: all of their chunks still to build.
    INSERT INTO ${s}.count_dirty (chunk)
      SELECT DISTINCT (num >> ${s}.count_chunk_bits())::integer FROM ${s}.calls;
  `
}
