import type Database from 'better-sqlite3'
import { ANALYSIS_LISTS_SQL, hasAnalysisLists, SINGLE_MAX } from '../analysis-lists'

/** Calls converted per statement, so a large cache reports its progress. */
const BATCH = 20_000

/**
 * An id's code points in SQL, as analysis-lists.ts's idCode writes them (a test holds the two
 * equal): one code point from ',' + 1 on, skipping the surrogates, or a lead and a tail.
 */
export const CODE_SQL = `CASE WHEN v.id <= ${SINGLE_MAX}
  THEN char(v.id + 44 + CASE WHEN v.id + 44 >= 55296 THEN 2048 ELSE 0 END)
  ELSE char(983040 + (v.id - ${SINGLE_MAX} - 1) / 65536, 1048576 + (v.id - ${SINGLE_MAX} - 1) % 65536) END`

/**
 * Version 19: analysis items as one list of value ids per call (analysis-lists.ts) instead
 * of one row per item. The dictionary gets the most frequent pairs first, so they take the
 * shortest codes; the lists are written in batches of calls, in item order, and the item
 * rows dropped. The migration's transaction makes a killed run start over from version 18.
 */
export function migrateToAnalysisLists(db: Database.Database, progress: (done: number, total: number) => void): void {
  // As the migrations before it, safe to run again on a cache that has it already (tests
  // lower user_version on a file of today's layout).
  if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'analysis'").get() === undefined) {
    if (!hasAnalysisLists(db)) db.exec(ANALYSIS_LISTS_SQL)
    return
  }
  db.exec(`
    DROP TABLE IF EXISTS analysis_lists;
    DROP TABLE IF EXISTS analysis_values;
    ${ANALYSIS_LISTS_SQL}
    INSERT INTO analysis_values (key_id, value, value_num)
      SELECT key_id, value, max(value_num) FROM analysis GROUP BY key_id, value ORDER BY count(*) DESC, key_id, value;
  `)
  const [lo, hi] = db.prepare('SELECT coalesce(min(call), 1), coalesce(max(call), 0) FROM analysis').raw().get() as [number, number]
  const convert = db.prepare<[number, number]>(
    `INSERT INTO analysis_lists (call, items)
       SELECT a.call, group_concat(${CODE_SQL}, '' ORDER BY a.ord)
       FROM analysis a JOIN analysis_values v ON v.key_id = a.key_id AND v.value = a.value
       WHERE a.call BETWEEN ? AND ? GROUP BY a.call`
  )
  const total = Math.max(0, hi - lo + 1) + 1
  for (let from = lo; from <= hi; from += BATCH) {
    convert.run(from, Math.min(hi, from + BATCH - 1))
    progress(Math.min(hi, from + BATCH - 1) - lo + 1, total)
  }
  db.exec('DROP TABLE analysis')
  if (hi >= lo) progress(total, total)
}
