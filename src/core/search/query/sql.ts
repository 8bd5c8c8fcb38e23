import type { SortKey, SqlPiece } from '../../cache'
import type { CompiledQuery } from './compile'
import type { CountPlan, SelectPlan } from '../plan/plan'

/**
 * The SQL of a plan, built from a compiled query: pure string building, so each shape can be
 * read (and tested) without a database. The cache layer's reader prepares and runs it.
 */

const and = (conds: readonly string[]): string => conds.join(' AND ')

const SHORT = 'calls_fts_short'

/** The per-row test of the query's text on c, and its parameter: the short-prefix index's when it answers (compile.ts, shortMatch). */
function probe(q: CompiledQuery): [string, unknown] {
  if (q.shortMatch != null) return [`EXISTS (SELECT 1 FROM ${SHORT} WHERE ${SHORT} MATCH ? AND ${SHORT}.rowid = c.id)`, q.shortMatch]
  return ['EXISTS (SELECT 1 FROM calls_fts WHERE calls_fts MATCH ? AND calls_fts.rowid = c.id)', q.match]
}

/** The full-text table that lists the query's matches (unranked), and its MATCH parameter. */
function lister(q: CompiledQuery): { t: string; match: unknown } {
  return q.shortMatch != null ? { t: SHORT, match: q.shortMatch } : { t: 'calls_fts', match: q.match }
}

/**
 * One SELECT for a plan: `cols` over c (and calls_fts for the FTS plans), rows strictly
 * after `after` in sort order, in sort order. `tail` is appended (LIMIT / OFFSET).
 */
export function buildSelect(q: CompiledQuery, plan: SelectPlan, cols: string, after: SortKey | null, tail = ''): SqlPiece {
  const { from, where, params, order } = selectParts(q, plan, after)
  const sql = `SELECT ${cols} FROM ${from}${where.length ? ` WHERE ${and(where)}` : ''} ORDER BY ${order} ${tail}`
  return { sql, params }
}

/** The FROM, WHERE and ORDER BY of a plan's SELECT. */
function selectParts(
  q: CompiledQuery,
  plan: SelectPlan,
  after: SortKey | null
): { from: string; where: string[]; params: unknown[]; order: string } {
  const params: unknown[] = []
  const where: string[] = []
  const desc = q.order !== 'date_asc'
  let from: string
  if (plan.kind === 'review') {
    // The review index in date order (d), each row joined to its call through call_id's
    // unique index; its call_at is the call's (triggers keep it, migration 9).
    const d = q.reviewDriver!
    from = `${d.from} CROSS JOIN calls c ON c.call_id = d.call_id`
    where.push(...d.where, 'd.call_at IS NOT NULL')
    params.push(...d.params)
    if (q.from !== null) {
      where.push('d.call_at >= ?')
      params.push(q.from)
    }
    if (q.to !== null) {
      where.push('d.call_at < ?')
      params.push(q.to)
    }
    where.push(...q.where)
    params.push(...q.params)
    if (q.match !== null) {
      const [test, param] = probe(q)
      where.push(test)
      params.push(param)
    }
  } else if (plan.kind === 'scan' || plan.kind === 'walk') {
    from = 'calls c INDEXED BY calls_by_date'
    where.push(...q.where)
    params.push(...q.params)
    if (plan.kind === 'walk') {
      const [test, param] = probe(q)
      where.push(test)
      params.push(param)
    }
  } else if (plan.kind === 'fts' && plan.ids !== null) {
    // The matches are known (the bounded count listed them): read them by id instead of
    // evaluating MATCH again.
    from = 'calls c'
    where.push('c.id IN (SELECT value FROM json_each(?))', ...q.where)
    params.push(plan.ids, ...q.params)
  } else if (plan.kind === 'relevance') {
    // Ranked by calls_fts's bm25: always calls_fts.
    from = 'calls_fts CROSS JOIN calls c ON c.id = calls_fts.rowid'
    where.push('calls_fts MATCH ?', ...q.where)
    params.push(q.match, ...q.params)
  } else {
    const { t, match } = lister(q)
    from = `${t} CROSS JOIN calls c ON c.id = ${t}.rowid`
    where.push(`${t} MATCH ?`, ...q.where)
    params.push(match, ...q.params)
  }
  let order: string
  if (plan.kind === 'relevance') {
    order = 'calls_fts.rank, c.id'
    // A date range first bounds the rowids FTS5 reads and ranks: the smallest and largest id
    // of the calls in the range (from the date index, which holds the id). Exact whatever the
    // ids' order (every call of the range lies within the bounds, and the range is still
    // checked per row); it narrows the ranking to the range when ids grow with call time, as
    // they do for calls synced in time order, instead of ranking every match in the cache.
    if (q.from !== null || q.to !== null) {
      const range = and([...(q.from !== null ? ['r.call_at >= ?'] : []), ...(q.to !== null ? ['r.call_at < ?'] : [])])
      const bound = (f: string): string => `(SELECT ${f}(r.id) FROM calls r INDEXED BY calls_by_date WHERE ${range})`
      where.push(`calls_fts.rowid >= ${bound('min')}`, `calls_fts.rowid <= ${bound('max')}`)
      for (let k = 0; k < 2; k++) params.push(...(q.from !== null ? [q.from] : []), ...(q.to !== null ? [q.to] : []))
    }
    if (after) {
      where.push('(calls_fts.rank, c.id) > (?, ?)')
      params.push(after[0], after[1])
    }
  } else {
    // The review plan orders by the index's own columns (equal to c's) so that it is walked.
    const t = plan.kind === 'review' ? 'd' : 'c'
    order = desc ? `${t}.call_at DESC, ${t}.call_id DESC` : `${t}.call_at, ${t}.call_id`
    if (after) {
      where.push(`(${t}.call_at, ${t}.call_id) ${desc ? '<' : '>'} (?, ?)`)
      params.push(after[0], after[1])
    }
  }
  return { from, where, params, order }
}

/** The columns that make a row's sort key, in the order SortKey holds them. */
export function keyColumns(plan: SelectPlan): string {
  if (plan.kind === 'relevance') return 'calls_fts.rank AS k0, c.id AS k1'
  return plan.kind === 'review' ? 'd.call_at AS k0, d.call_id AS k1' : 'c.call_at AS k0, c.call_id AS k1'
}

/** The ids of all matching calls, in no particular order; null when every call matches. */
export function matchedIds(q: CompiledQuery): SqlPiece | null {
  if (q.match === null) {
    if (q.where.length === 0) return null
    return { sql: `SELECT c.id AS id FROM calls c WHERE ${and(q.where)}`, params: q.params }
  }
  const { t, match } = lister(q)
  if (q.where.length === 0) return { sql: `SELECT rowid AS id FROM ${t} WHERE ${t} MATCH ?`, params: [match] }
  return {
    sql: `SELECT c.id AS id FROM ${t} CROSS JOIN calls c ON c.id = ${t}.rowid WHERE ${and([`${t} MATCH ?`, ...q.where])}`,
    params: [match, ...q.params]
  }
}

/** The ids among these that pass the query's conditions other than its text (the text is known to match them). */
export function passingAmong(q: CompiledQuery, idsJson: string): SqlPiece {
  return {
    sql: `SELECT c.id AS id FROM calls c WHERE ${and(['c.id IN (SELECT value FROM json_each(?))', ...q.where])}`,
    params: [idsJson, ...q.params]
  }
}

/**
 * The first `limit` of these ids (a JSON array, the text known to match them) that pass the
 * query's other conditions, in date order: (id, call_at, call_id) rows, as datedRows reads them.
 */
export function datedAmong(q: CompiledQuery, idsJson: string, desc: boolean, limit: number): SqlPiece {
  const order = desc ? 'c.call_at DESC, c.call_id DESC' : 'c.call_at, c.call_id'
  return {
    sql: `SELECT c.id, c.call_at, c.call_id FROM calls c WHERE ${and(['c.id IN (SELECT value FROM json_each(?))', ...q.where])} ORDER BY ${order} LIMIT ?`,
    params: [idsJson, ...q.params, limit]
  }
}

/** Which of the given call ids (a JSON array) the query matches: its filters and text asked per row. */
export function matchedAmong(q: CompiledQuery, idsJson: string): SqlPiece {
  const passing = passingAmong(q, idsJson)
  if (q.match === null) return passing
  const [test, param] = probe(q)
  return { sql: `${passing.sql} AND ${test}`, params: [...passing.params, param] }
}

/** The `SELECT count(*)` of a count plan that counts in SQL. */
export function countSql(q: CompiledQuery, plan: Extract<CountPlan, { kind: 'scan' | 'fts' | 'review' }>): SqlPiece {
  if (plan.kind === 'review') {
    const { from, where, params } = selectParts(q, plan, null)
    return { sql: `SELECT count(*) FROM ${from} WHERE ${and(where)}`, params }
  }
  if (plan.kind === 'scan')
    return { sql: `SELECT count(*) FROM calls c${q.where.length ? ` WHERE ${and(q.where)}` : ''}`, params: q.params }
  if (q.match === null) {
    // Review candidates listed by the estimate (choosePlan gives fts only with ids then).
    return {
      sql: `SELECT count(*) FROM calls c WHERE ${and(['c.id IN (SELECT value FROM json_each(?))', ...q.where])}`,
      params: [plan.ids, ...q.params]
    }
  }
  const { t, match } = lister(q)
  if (q.where.length === 0) return { sql: `SELECT count(*) FROM ${t} WHERE ${t} MATCH ?`, params: [match] }
  // Few matches (many are counted from the match list): start from them.
  return {
    sql: `SELECT count(*) FROM ${t} CROSS JOIN calls c ON c.id = ${t}.rowid WHERE ${t} MATCH ? AND ${and(q.where)}`,
    params: [match, ...q.params]
  }
}

/** The calls of a hand-picked id list (a JSON array of callIds), in the order given, each once. */
export function callsByIds(idsJson: string): { rows: SqlPiece; count: SqlPiece } {
  const from = 'FROM (SELECT value AS call_id, min(key) AS pos FROM json_each(?) GROUP BY value) j JOIN calls c ON c.call_id = j.call_id'
  return {
    rows: { sql: `SELECT c.* ${from} ORDER BY j.pos`, params: [idsJson] },
    count: { sql: `SELECT count(*) ${from}`, params: [idsJson] }
  }
}

/** Selects no call (an export of a query that can match nothing). */
export const NO_CALLS: SqlPiece = { sql: 'SELECT * FROM calls WHERE 0', params: [] }
