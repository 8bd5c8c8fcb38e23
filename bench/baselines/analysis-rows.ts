/**
 * The analysis reads of schema 18 (one row per item, before migration 19's lists), kept as
 * SQL so the bench compares them with today's reads on the same calls in the same run.
 */
import type Database from 'better-sqlite3'
import { valueDictionary } from '../../src/core/cache/analysis-lists'

const idList = (ids: readonly number[]): string => ids.map((n) => String(Math.trunc(n))).join(',')

/** The in-memory facet column of text keys, as SqliteColumnReads.textItems read it. */
export function rowsTextItems(db: Database.Database, keyIds: readonly number[]): { calls: number; values: string[] } {
  const row = db
    .prepare(`SELECT group_concat(call), group_concat(value, char(31)) FROM analysis WHERE key_id IN (${idList(keyIds)})`)
    .raw()
    .get() as [string | null, string | null]
  return { calls: row[0] === null ? 0 : row[0].split(',').length, values: row[1] === null ? [] : row[1].split('\u001f') }
}

/** An analysis predicate as query-sql compiled it. */
export function rowsExists(keyIds: readonly number[], cond: string): string {
  return `EXISTS (SELECT 1 FROM analysis a WHERE a.call = c.id AND a.key_id IN (${idList(keyIds)}) AND ${cond})`
}

/** A facet's values over matches, as SqliteFacetSqlReads.textValues read them. */
export function rowsTextValues(db: Database.Database, keyIds: readonly number[], matchesSql: string): string[] {
  return db
    .prepare(`SELECT a.value FROM (${matchesSql}) x CROSS JOIN analysis a ON a.call = x.id AND a.key_id IN (${idList(keyIds)}) WHERE 1`)
    .pluck()
    .all() as string[]
}

/** Export hydration: the named items of a batch of calls, as SqliteRowReads read them. */
export function rowsNamedItems(db: Database.Database, ids: readonly number[]): number {
  return db
    .prepare(
      `SELECT a.call, k.key, k.friendly_name, a.value FROM analysis a JOIN analysis_keys k ON k.id = a.key_id
       WHERE a.call IN (SELECT value FROM json_each(?)) ORDER BY a.call, a.ord`
    )
    .raw()
    .all(JSON.stringify(ids)).length
}

/**
 * The items of a schema 19 file as rows again, in a temporary table `analysis` of this
 * connection (what naive SQL baselines, bench/search.ts, query), made from the lists.
 */
export function itemRowsAsTemp(db: Database.Database): void {
  if (db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'analysis_lists'").get() === undefined) return
  db.exec(`DROP TABLE IF EXISTS temp.analysis;
    CREATE TEMP TABLE analysis (key_id INTEGER, call INTEGER, ord INTEGER, value TEXT, value_num REAL, PRIMARY KEY (call, ord)) WITHOUT ROWID`)
  const d = valueDictionary(db)
  const put = db.prepare('INSERT INTO temp.analysis (key_id, call, ord, value, value_num) VALUES (?, ?, ?, ?, ?)')
  const lists = db.prepare('SELECT call, items FROM analysis_lists ORDER BY call').raw().all() as Array<[number, string]>
  db.transaction(() => {
    for (const [call, items] of lists)
      d.ids(items).forEach((id, ord) => put.run(d.keyOf[id], call, ord, d.valueOf[id], d.numOf[id] ?? null))
  })()
}
