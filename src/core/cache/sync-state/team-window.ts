import type Database from 'better-sqlite3'
import { z } from 'zod'
import { forEachId } from '../analysis-lists'
import { SQL_HOUR_OF } from '../totals'
import { deleteCachedCalls } from '../cache-contents'

/**
 * The window of a team cache this cache holds (migration 18; src/core/team/window.ts says
 * what each field means). Written in the transaction of the batch it describes, so a pull
 * killed at any moment finds it exactly as far as its calls are.
 */
export interface Backfill {
  from: number | null
  to: number
  upTo: number
  after: number
}

export interface WindowState {
  days: number | null
  heldFrom: number | null
  backfill: Backfill | null
}

const BackfillJson = z.object({
  from: z.number().int().nullable(),
  to: z.number().int(),
  upTo: z.number().int().nonnegative(),
  after: z.number().int().nonnegative()
})
const Row = z.object({
  days: z.number().int().positive().nullable(),
  held_from: z.number().int().nullable(),
  backfill: z.string().nullable()
})

/** What the cache holds; a cache never windowed holds everything. */
export function readWindow(db: Database.Database): WindowState {
  // A cache opened at an older schema on purpose (benches' baselines, migration tests) has no
  // window table: it holds everything it has.
  const table = db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'team_window'").get()
  if (table === undefined) return { days: null, heldFrom: null, backfill: null }
  const raw = db.prepare('SELECT days, held_from, backfill FROM team_window WHERE id = 1').get()
  if (raw === undefined) return { days: null, heldFrom: null, backfill: null }
  const r = Row.parse(raw)
  return { days: r.days, heldFrom: r.held_from, backfill: r.backfill === null ? null : BackfillJson.parse(JSON.parse(r.backfill)) }
}

/** A worker scope a window holds: the name the user chose it by and the scope key it stands for. */
export interface WindowScope {
  name: string
  key: string
}

const ScopesJson = z.array(z.object({ name: z.string(), key: z.string() }))

/** The worker scopes the window holds; null: every scope (also for a cache never windowed). */
export function readWindowScopes(db: Database.Database): WindowScope[] | null {
  const column = db.prepare("SELECT 1 FROM pragma_table_info('team_window') WHERE name = 'scopes'").get()
  if (column === undefined) return null
  const raw = db.prepare('SELECT scopes FROM team_window WHERE id = 1').pluck().get() as string | null | undefined
  return raw === null || raw === undefined ? null : ScopesJson.parse(JSON.parse(raw))
}

/** Inside the caller's transaction: the other fields of the window are kept (a new row holds everything by date). */
export function writeWindowScopes(db: Database.Database, scopes: readonly WindowScope[] | null): void {
  db.prepare(
    `INSERT INTO team_window (id, days, held_from, backfill, scopes) VALUES (1, NULL, NULL, NULL, ?)
     ON CONFLICT (id) DO UPDATE SET scopes = excluded.scopes`
  ).run(scopes === null ? null : JSON.stringify(scopes))
}

/** Inside the caller's transaction. */
export function writeWindow(db: Database.Database, w: WindowState): void {
  db.prepare(
    `INSERT INTO team_window (id, days, held_from, backfill) VALUES (1, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET days = excluded.days, held_from = excluded.held_from, backfill = excluded.backfill`
  ).run(w.days, w.heldFrom, w.backfill === null ? null : JSON.stringify(w.backfill))
}

/**
 * Deletes the calls dated before `before` with everything derived from them (items, memberships,
 * full-text rows, facet totals, key counters), inside the caller's transaction, set-based.
 * Annotations and the rest of the review data stay: only their link to the call's row goes,
 * as after a clear; the row comes back with the call if a wider window brings it again.
 * Returns how many calls went.
 */
export function deleteCallsBefore(db: Database.Database, before: number): number {
  db.exec(
    'CREATE TEMP TABLE IF NOT EXISTS window_dropped (id INTEGER PRIMARY KEY, hour INTEGER NOT NULL); DELETE FROM temp.window_dropped;'
  )
  const n = db
    .prepare(`INSERT INTO temp.window_dropped (id, hour) SELECT id, ${SQL_HOUR_OF('call_at')} FROM calls WHERE call_at < ?`)
    .run(before).changes
  if (n === 0) return 0
  db.exec(`
    UPDATE agg_hours SET n = n - (SELECT count(*) FROM temp.window_dropped d WHERE d.hour = agg_hours.hour)
      WHERE hour IN (SELECT hour FROM temp.window_dropped);
    DELETE FROM agg_hours WHERE n <= 0;
    CREATE TEMP TABLE IF NOT EXISTS window_scope_hours (scope INTEGER, hour INTEGER, n INTEGER, PRIMARY KEY (scope, hour));
    DELETE FROM temp.window_scope_hours;
    INSERT INTO temp.window_scope_hours SELECT m.scope, d.hour, count(*) FROM temp.window_dropped d JOIN scope_members m ON m.call = d.id GROUP BY m.scope, d.hour;
    UPDATE agg_scope_hours SET n = n - (SELECT w.n FROM temp.window_scope_hours w WHERE w.scope = agg_scope_hours.scope AND w.hour = agg_scope_hours.hour)
      WHERE (scope, hour) IN (SELECT scope, hour FROM temp.window_scope_hours);
    DELETE FROM agg_scope_hours WHERE n <= 0;
    CREATE TEMP TABLE IF NOT EXISTS window_values (key_id INTEGER, value TEXT, n INTEGER, numeric INTEGER, PRIMARY KEY (key_id, value));
    DELETE FROM temp.window_values;
  `)
  // The dropped calls' items, counted per value id from their lists (analysis-lists.ts).
  const perValue = new Map<number, number>()
  const lists = db
    .prepare('SELECT l.items FROM temp.window_dropped d JOIN analysis_lists l ON l.call = d.id')
    .pluck()
    .iterate() as Iterable<string>
  for (const list of lists) forEachId(list, (id) => perValue.set(id, (perValue.get(id) ?? 0) + 1))
  db.prepare(
    `INSERT INTO temp.window_values SELECT v.key_id, v.value, j.value ->> 1, CASE WHEN v.value_num IS NULL THEN 0 ELSE j.value ->> 1 END
     FROM json_each(?) j JOIN analysis_values v ON v.id = j.value ->> 0`
  ).run(JSON.stringify([...perValue]))
  db.exec(`
    UPDATE agg_values SET n = n - (SELECT w.n FROM temp.window_values w WHERE w.key_id = agg_values.key_id AND w.value = agg_values.value)
      WHERE (key_id, value) IN (SELECT key_id, value FROM temp.window_values);
    DELETE FROM agg_values WHERE n <= 0;
    UPDATE analysis_keys SET
      items = items - (SELECT coalesce(sum(w.n), 0) FROM temp.window_values w WHERE w.key_id = analysis_keys.id),
      numeric_items = numeric_items - (SELECT coalesce(sum(w.numeric), 0) FROM temp.window_values w WHERE w.key_id = analysis_keys.id)
      WHERE id IN (SELECT key_id FROM temp.window_values);
    DELETE FROM calls_fts WHERE rowid IN (SELECT id FROM temp.window_dropped);
    DELETE FROM analysis_lists WHERE call IN (SELECT id FROM temp.window_dropped);
    DELETE FROM scope_members WHERE call IN (SELECT id FROM temp.window_dropped);
    UPDATE annotations SET call_row = NULL WHERE call_row IN (SELECT id FROM temp.window_dropped);
    DELETE FROM calls WHERE id IN (SELECT id FROM temp.window_dropped);
    DELETE FROM temp.window_dropped; DELETE FROM temp.window_scope_hours; DELETE FROM temp.window_values;
  `)
  return n
}

/**
 * Drops the calls dated before `before` (when not null) and records `state`, in one
 * transaction; how many calls went.
 */
export function narrowWindow(db: Database.Database, state: WindowState, before: number | null): number {
  return db
    .transaction(() => {
      const dropped = before === null ? 0 : deleteCallsBefore(db, before)
      writeWindow(db, state)
      return dropped
    })
    .immediate()
}

/** Records the worker scopes the window holds and empties the cache of what was pulled, in one transaction. */
export function chooseWindowScopes(db: Database.Database, scopes: readonly WindowScope[] | null): void {
  db.transaction(() => {
    deleteCachedCalls(db)
    writeWindowScopes(db, scopes)
  }).immediate()
}
