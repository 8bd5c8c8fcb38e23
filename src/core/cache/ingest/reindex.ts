import type Database from 'better-sqlite3'
import { hasAnalysisLists, valueDictionary } from '../analysis-lists'
import { foldForIndex } from '../fold'
import { hasShortIndex, SHORT_INDEX_TABLE, shortPrefixesOf } from './short-prefixes'
import { segmentsByLevel } from './fts-structure'
import { clearTermList, fillTermList } from './term-list'

/** Calls re-indexed per statement: one JSON array each. */
const BATCH = 5000

/**
 * Writes every call's index row again, from the stored title, summary and analysis values
 * (in item order, joined by spaces: what ingest indexes), in id order, then merges the index
 * into one segment. For migrations that must recreate the contentless index, and a pull's
 * index build that was left unfinished. The short-prefix index (short-prefixes.ts), where the
 * schema has it, is written from the same folded text in the same statements; the kept term
 * list (term-list.ts) from the finished index.
 */
export function reindexAll(db: Database.Database, progress: (done: number, total: number) => void = () => {}): void {
  const total = (db.prepare('SELECT count(*) FROM calls').pluck().get() as number) + 1
  const short = hasShortIndex(db)
  // Migrations 7 and 17 run before the lists exist (version 19): they read the item rows.
  const lists = hasAnalysisLists(db)
  const dictionary = lists ? valueDictionary(db) : null
  const read = db
    .prepare<[number, number]>(
      lists
        ? `SELECT c.id, c.title, c.summary, l.items FROM calls c LEFT JOIN analysis_lists l ON l.call = c.id WHERE c.id > ? ORDER BY c.id LIMIT ?`
        : `SELECT c.id, c.title, c.summary, (SELECT group_concat(a.value, ' ' ORDER BY a.ord) FROM analysis a WHERE a.call = c.id) AS analysis
     FROM calls c WHERE c.id > ? ORDER BY c.id LIMIT ?`
    )
    .raw()
  const insert = db.prepare<[string]>(
    'INSERT INTO calls_fts (rowid, title, summary, analysis) SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3 FROM json_each(?)'
  )
  const insertShort = short
    ? db.prepare<[string]>(`INSERT INTO ${SHORT_INDEX_TABLE} (rowid, p) SELECT value ->> 0, value ->> 4 FROM json_each(?)`)
    : null
  let done = 0
  for (let after = 0; ;) {
    const rows = read.all(after, BATCH) as Array<[number, string, string, string | null]>
    if (rows.length === 0) break
    const json = JSON.stringify(
      rows.map(([id, title, summary, analysis]) => {
        const values =
          analysis === null
            ? ''
            : dictionary
              ? dictionary
                  .ids(analysis)
                  .map((v) => dictionary.valueOf[v]!)
                  .join(' ')
              : analysis
        const texts = [foldForIndex(title), foldForIndex(summary), foldForIndex(values)]
        return short ? [id, ...texts, shortPrefixesOf(texts)] : [id, ...texts]
      })
    )
    insert.run(json)
    insertShort?.run(json)
    after = rows[rows.length - 1]![0]
    done += rows.length
    progress(done, total)
  }
  // The merge into one segment counts as the last step.
  db.exec("INSERT INTO calls_fts (calls_fts) VALUES ('optimize')")
  if (short) db.exec(`INSERT INTO ${SHORT_INDEX_TABLE} (${SHORT_INDEX_TABLE}) VALUES ('optimize')`)
  fillTermList(db)
  // A cache with no calls (a file just created) had nothing to rebuild: nothing to say.
  if (done > 0) progress(total, total)
}

/** Empties the full-text indexes (calls_fts, and the short-prefix index and term list where the schema has them). */
export function clearIndex(db: Database.Database): void {
  db.exec("INSERT INTO calls_fts (calls_fts) VALUES ('delete-all')")
  if (hasShortIndex(db)) db.exec(`INSERT INTO ${SHORT_INDEX_TABLE} (${SHORT_INDEX_TABLE}) VALUES ('delete-all')`)
  clearTermList(db)
}

/** The cache's full-text indexes: calls_fts, and the short-prefix index where the schema has it. */
function fullTextIndexes(db: Database.Database): string[] {
  return hasShortIndex(db) ? ['calls_fts', SHORT_INDEX_TABLE] : ['calls_fts']
}

/** Merges one full-text index into one segment. */
function optimizeIndex(db: Database.Database, table: string): void {
  db.exec(`INSERT INTO ${table} (${table}) VALUES ('optimize')`)
}

/** Merges the full-text indexes into one segment each. */
export function optimizeIndexes(db: Database.Database): void {
  for (const table of fullTextIndexes(db)) optimizeIndex(db, table)
}

/** The highest call id: the cache's size as the index's share rules measure it (0 when empty). */
export function callSpan(db: Database.Database): number {
  return db.prepare('SELECT coalesce(max(id), 0) FROM calls').pluck().get() as number
}

/**
 * The share of the cache's calls a run must have written for its end to merge the whole index
 * into one segment: a tenth, so the full rewrite costs at most about ten times what the runs
 * since the last one wrote.
 */
export const OPTIMIZE_SHARE = 0.1

/**
 * Leaves of merge work a smaller run's end may do: several times what a run under the share
 * adds at a million calls, so the small segments are merged as they come.
 */
export const SMALL_RUN_MERGE_PAGES = 4000

/**
 * Housekeeping after a run that wrote `written` calls. A run that wrote a large share of the
 * cache (a first sync, a bulk pull) merges each index into one segment, as optimizeIndexes.
 * A smaller one must not: 'optimize' rewrites every posting of the index, about 8 s and
 * most of a gigabyte written at a million calls, for a sync that brought a hundred calls.
 * Its end merges only where a level holds FTS5's 'usermerge' (4) segments or more, with a
 * bounded amount of work: the small segments of the recent runs are merged among
 * themselves and the large one is left alone, so the segments a term is read from stay few
 * (a level at a time, as a log-structured index does) whatever the number of runs.
 * The cache keeps FTS5's own merging after each commit off during writes (fts-buffer.ts), so
 * without this small runs would pile up segments to FTS5's bound of 16 a level.
 * A long run (run-merging.ts: its segments were merged 64 at a time) may end with fewer
 * than one: see fewSegmentsLeft.
 */
export function settleIndexes(db: Database.Database, written: number, longRun = false): 'optimized' | 'merged' | 'none' {
  if (written <= 0) return 'none'
  const indexes = fullTextIndexes(db)
  if (written >= callSpan(db) * OPTIMIZE_SHARE) {
    let merged = 0
    for (const table of indexes) {
      if (longRun && fewSegmentsLeft(db, table)) merged++
      else optimizeIndex(db, table)
    }
    return merged > 0 ? 'merged' : 'optimized'
  }
  for (const table of indexes) db.prepare(`INSERT INTO ${table} (${table}, rank) VALUES ('merge', ?)`).run(SMALL_RUN_MERGE_PAGES)
  return 'merged'
}

/** The most segments a long run's end leaves in an index instead of merging it into one. */
export const LONG_RUN_LEFT_SEGMENTS = 15

/**
 * The end of a long run, for one index: when its segments are already few (at most
 * LONG_RUN_LEFT_SEGMENTS once the run's small ones are merged into one), only the small ones
 * are merged, and true is returned; false: the caller merges the whole index. A long run's
 * segments were merged 64 at a time (run-merging.ts), so at a million calls the index is a
 * few large segments and a pile of small ones: merging the small ones cost 0.8 s of CPU
 * against 5.6 s for the whole index, and the searches of the ingest bench on the result (9
 * segments) took 0.9–1.5× their time on one segment (docs/perf-log.md). Later runs' ends
 * merge the large ones a bounded amount at a time (SMALL_RUN_MERGE_PAGES).
 */
function fewSegmentsLeft(db: Database.Database, table: string): boolean {
  const levels = segmentsByLevel(db, table)
  const small = levels[0] ?? 0
  const larger = levels.reduce((a, b) => a + b, 0) - small
  if (small + larger <= LONG_RUN_LEFT_SEGMENTS) return true
  // FTS5 merges the level holding the most segments, at least 'usermerge' of them: with that
  // at 16 and each larger level below it, only the small ones, into one on the next level.
  if (small < 16 || larger >= LONG_RUN_LEFT_SEGMENTS) return false
  const usermerge = (db.prepare(`SELECT v FROM ${table}_config WHERE k = 'usermerge'`).pluck().get() as number | undefined) ?? 4
  db.exec(`INSERT INTO ${table} (${table}, rank) VALUES ('usermerge', 16)`)
  try {
    db.exec(`INSERT INTO ${table} (${table}, rank) VALUES ('merge', ${LONG_RUN_MERGE_PAGES})`)
  } finally {
    db.exec(`INSERT INTO ${table} (${table}, rank) VALUES ('usermerge', ${Math.trunc(usermerge)})`)
  }
  return true
}

/** A bound on the pages merging a long run's small segments writes: far more than 63 transactions' segments hold. */
const LONG_RUN_MERGE_PAGES = 1_000_000
