import { q } from './connection'

/** The chunk of 2^16 numbered calls the count's postings are kept by (meta can say otherwise, for tests). */
export const DEFAULT_CHUNK_BITS = 16

/**
 * Version 11: the count's postings (team-postings-build.ts, team-postings-count.ts), so that
 * an exact count never reads the calls' rows.
 *
 * - `count_posts`: per term and chunk, the calls of the chunk that have the term.
 * - `count_dirty`: chunks whose postings are stale. Statement-level triggers with transition
 *   tables mark the chunks a write to `calls` or `scope_members` touched, in the writer's own
 *   transaction, bumping a version: a builder removes a chunk's mark only at the version it
 *   read before reading the rows, so a write that lands during a build leaves the chunk dirty.
 * - `calls.num` and the triggers come with the team cache search (numberCallsSql): a cache
 *   whose search is off carries neither, so its size per call stays what it was, and
 *   `team search enable` / `disable` add and drop them with the search columns.
 */
export function countPostingsV11(schema: string): string {
  const s = q(schema)
  const searchOn = `EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = '${s}.calls'::regclass AND attname = 'search' AND NOT attisdropped)
      AND coalesce((SELECT value FROM ${s}.meta WHERE key = 'search'), 'on') <> 'off'`
  return `${countTablesSql(schema)}
    ${numberCallsSql(schema, searchOn)}
  `
}

/** The postings' tables and the triggers' functions: every cache from version 11 has them. */
function countTablesSql(schema: string): string {
  const s = q(schema)
  return `
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
    -- A truncated table leaves no postings behind (TRUNCATE fires no row or transition triggers).
    CREATE FUNCTION ${s}.count_calls_truncated() RETURNS trigger LANGUAGE plpgsql AS $f$
    BEGIN
      DELETE FROM ${s}.count_posts;
      DELETE FROM ${s}.count_dirty;
      RETURN NULL;
    END $f$;
  `
}

/**
 * The statement triggers that mark the chunks a write touched (the functions are
 * countTablesSql's): made by numberCallsSql, dropped by unnumberCallsSql.
 */
function countTriggers(s: string): Array<{ name: string; table: string; create: string }> {
  const events: Array<[table: string, event: string, transition: string, fn: string]> = [
    ['calls', 'INSERT', 'NEW TABLE AS count_new', 'count_calls_changed'],
    ['calls', 'UPDATE', 'OLD TABLE AS count_old NEW TABLE AS count_new', 'count_calls_changed'],
    ['calls', 'DELETE', 'OLD TABLE AS count_old', 'count_calls_changed'],
    // TRUNCATE has no transition tables.
    ['calls', 'TRUNCATE', '', 'count_calls_truncated'],
    ['scope_members', 'INSERT', 'NEW TABLE AS count_new', 'count_members_changed'],
    ['scope_members', 'UPDATE', 'OLD TABLE AS count_old NEW TABLE AS count_new', 'count_members_changed'],
    ['scope_members', 'DELETE', 'OLD TABLE AS count_old', 'count_members_changed']
  ]
  return events.map(([table, event, transition, fn]) => {
    const name = `${table}_count_${event.toLowerCase()}`
    const referencing = transition === '' ? '' : ` REFERENCING ${transition}`
    return {
      name,
      table,
      create: `CREATE TRIGGER ${name} AFTER ${event} ON ${s}.${table}${referencing} FOR EACH STATEMENT EXECUTE FUNCTION ${s}.${fn}();`
    }
  })
}

/**
 * The calls numbered and the chunk marks kept, when `condition` holds (SQL; the migration asks
 * whether search is on, `team search enable` always): `calls.num`, a dense number per call
 * from its own sequence (existing rows in `call_at` order, new ones by the column's DEFAULT;
 * an upsert that updates a row keeps its number, as the writer never names the column), its
 * unique index, the triggers, and every chunk marked for its first build. A chunk is
 * `num >> bits` (meta `count_chunk_bits`, 16 unless set). Runs again without harm.
 */
export function numberCallsSql(schema: string, condition = 'true'): string {
  const s = q(schema)
  const seq = `${s}.call_numbers`
  return `
    DO $number$
    DECLARE grantee text;
    BEGIN
      -- Before version 11 (a switch run on an older schema) the migration numbers them later.
      IF to_regprocedure('${s}.count_calls_changed()') IS NULL OR NOT (${condition}) OR EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = '${s}.calls'::regclass AND attname = 'num' AND NOT attisdropped) THEN
        RETURN;
      END IF;
      CREATE SEQUENCE ${seq} AS bigint;
      ALTER TABLE ${s}.calls ADD COLUMN num bigint;
      UPDATE ${s}.calls c SET num = r.n
        FROM (SELECT call_id, row_number() OVER (ORDER BY call_at, call_id COLLATE "C") AS n FROM ${s}.calls) r
        WHERE r.call_id = c.call_id;
      PERFORM setval('${seq}', coalesce(max(num), 0) + 1, false) FROM ${s}.calls;
      ALTER TABLE ${s}.calls ALTER COLUMN num SET DEFAULT nextval('${seq}'), ALTER COLUMN num SET NOT NULL;
      ALTER SEQUENCE ${seq} OWNED BY ${s}.calls.num;
      -- Whoever may insert calls (the writer role team init granted) draws their numbers.
      FOR grantee IN
        SELECT DISTINCT a.grantee::regrole::text FROM pg_class k, aclexplode(k.relacl) a
        WHERE k.oid = '${s}.calls'::regclass AND a.privilege_type = 'INSERT' AND a.grantee <> 0
      LOOP
        EXECUTE format('GRANT USAGE, SELECT ON SEQUENCE %s TO %s', '${seq}', grantee);
      END LOOP;
      CREATE UNIQUE INDEX calls_by_num ON ${s}.calls (num);
      ${membersByCallSql(s)}
      ${countTriggers(s)
        .map((t) => t.create)
        .join('\n      ')}
      -- The rows there were before: all of their chunks still to build.
      INSERT INTO ${s}.count_dirty (chunk)
        SELECT DISTINCT (num >> ${s}.count_chunk_bits())::integer FROM ${s}.calls
        ON CONFLICT (chunk) DO UPDATE SET version = ${s}.count_dirty.version + 1;
    END
    $number$;
  `
}

/**
 * The postings' builder reads a chunk's memberships by call (team-postings-build.ts): without
 * this index each chunk's read scanned every membership of the cache, a cost that grew with
 * the cache times its chunks (at 1,000,000 calls and 1.2 memberships a call, 0.7 s a chunk
 * against 0.3 s with it; five times the memberships at 5,000,000). Kept while the search is on
 * only: about 29 bytes a membership that a cache without search does not need.
 */
export const MEMBERS_BY_CALL = 'scope_members_by_call'

export function membersByCallSql(s: string): string {
  return `CREATE INDEX IF NOT EXISTS ${MEMBERS_BY_CALL} ON ${s}.scope_members (call_id);`
}

/** What numberCallsSql added, taken away with the search columns; the postings emptied. */
export function unnumberCallsSql(schema: string): string {
  const s = q(schema)
  return `
    ${countTriggers(s)
      .map((t) => `DROP TRIGGER IF EXISTS ${t.name} ON ${s}.${t.table};`)
      .join('\n    ')}
    DROP INDEX IF EXISTS ${s}.calls_by_num;
    DROP INDEX IF EXISTS ${s}.${MEMBERS_BY_CALL};
    -- Its sequence goes with it (owned by the column).
    ALTER TABLE ${s}.calls DROP COLUMN IF EXISTS num;
    DO $unnumber$
    BEGIN
      IF to_regclass('${s}.count_posts') IS NOT NULL THEN
        TRUNCATE ${s}.count_posts, ${s}.count_dirty;
      END IF;
    END
    $unnumber$;
  `
}
