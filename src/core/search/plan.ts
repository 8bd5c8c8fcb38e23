import type Database from 'better-sqlite3'
import type { CompiledQuery } from './compile'

/**
 * How one query is answered.
 *  - scan: no text; walk the date index (calls_by_date) in sort order, filters per row.
 *  - walk: text and date order, common term; walk the date index and ask FTS5 about each
 *    row (a rowid-bounded doclist seek). The first page stops after `limit` hits.
 *  - fts:  text and date order, rare term; take the matches from FTS5, then sort them.
 *  - relevance: matches from FTS5 ordered by bm25 (FTS5's rank), ties by rowid.
 */
export type PlanKind = 'scan' | 'walk' | 'fts' | 'relevance'


/**
 * The rule. Walking costs about limit × N / m probes (N calls, m matches), each ~3× the
 * cost of taking one match from FTS5 and sorting it; FTS-first costs about m. So walk when
 * m² > 3 × limit × N, i.e. m > walkThreshold. With N = 1,000,000 and a page of 100 that is
 * m > ~17,000 (1.7%). m is counted, not guessed: the matches of the whole expression are
 * counted up to the threshold and no further (see Estimator), so the check costs at most
 * the threshold's worth of doclist reading and accounts for words that occur together.
 */
export const WALK_FACTOR = 3

export function walkThreshold(total: number, limit: number): number {
  return Math.ceil(Math.sqrt(WALK_FACTOR * Math.max(1, limit) * Math.max(1, total)))
}

export function choosePlan(q: CompiledQuery, estimate: number, total: number, limit: number): PlanKind {
  if (q.match === null) return 'scan'
  if (q.sort === 'relevance' && q.hasUserText) return 'relevance'
  return estimate > walkThreshold(total, limit) ? 'walk' : 'fts'
}

/** Above every code point, so `term < prefix + TOP` bounds a prefix range in binary order. */
const TOP = '\u{10FFFF}'

export class Estimator {
  private readonly bounded: Database.Statement<[string, number], [number, string | null]>

  private readonly terms: Database.Statement<[string, string, number], string>

  constructor(db: Database.Database) {
    this.terms = db.prepare<[string, string, number], string>('SELECT term FROM calls_fts_vocab WHERE term >= ? AND term < ? LIMIT ?').pluck()
    this.bounded = db.prepare<[string, number], [number, string | null]>(
      'SELECT count(*), group_concat(rowid) FROM (SELECT rowid FROM calls_fts WHERE calls_fts MATCH ? LIMIT ?)'
    ).raw(true)
  }

  private readonly expansions = new Map<string, string[] | null>()
  private expansionStamp = Number.NaN

  /**
   * The terms under a prefix when there are at most `max`, else null. Kept per data state
   * (`stamp`): fts5vocab computes each listed term's document count, i.e. reads its whole
   * doclist (~25 ms for a word in 90% of 1,000,000 calls), and typing repeats prefixes.
   */
  expand(prefix: string, stamp: number, max = 8): string[] | null {
    if (stamp !== this.expansionStamp) {
      this.expansions.clear()
      this.expansionStamp = stamp
    }
    const key = `${max}:${prefix}`
    let terms = this.expansions.get(key)
    if (terms === undefined) {
      const found = this.terms.all(prefix, prefix + TOP, max + 1)
      terms = found.length > max ? null : found
      if (this.expansions.size > 1000) this.expansions.clear()
      this.expansions.set(key, terms)
    }
    return terms
  }

  /**
   * The number of matches of a MATCH expression, counted up to `cap`. fts5vocab's document
   * counts were measured to cost a scan of the whole doclist (~17 ms for a term in 90% of
   * 1,000,000 calls), while counting stops at the cap; the vocabulary serves prefix
   * expansion instead, where it lists the covered terms.
   */
  boundedCount(match: string, cap: number): Estimate {
    const [n, ids] = this.bounded.get(match, cap) ?? [0, null]
    // Under the cap the list is every match: the FTS plans then need not ask FTS5 again.
    return { n, ids: n < cap ? `[${ids ?? ''}]` : null }
  }}

export type SortKey = [number, string] | [number, number]

/** Matches of a MATCH expression counted up to a cap; `ids` (a JSON array) when all were counted. */
export interface Estimate {
  n: number
  ids: string | null
}

export interface SqlPiece {
  sql: string
  params: unknown[]
}

/**
 * One SELECT for a plan: `cols` over c (and calls_fts for the FTS plans), rows strictly
 * after `after` in sort order, in sort order. `tail` is appended (LIMIT / OFFSET).
 */
export function buildSelect(q: CompiledQuery, plan: PlanKind, cols: string, after: SortKey | null, tail = '', matchIds: string | null = null): SqlPiece {
  const params: unknown[] = []
  const where: string[] = []
  const desc = q.sort !== 'date_asc'
  let from: string
  let order: string
  if (plan === 'scan' || plan === 'walk') {
    from = 'calls c INDEXED BY calls_by_date'
    where.push(...q.where)
    params.push(...q.params)
    if (plan === 'walk') {
      where.push('EXISTS (SELECT 1 FROM calls_fts WHERE calls_fts MATCH ? AND calls_fts.rowid = c.id)')
      params.push(q.match)
    }
  } else if (plan === 'fts' && matchIds !== null) {
    // The matches are known (Estimate.ids): read them by id instead of evaluating MATCH again.
    from = 'calls c'
    where.push('c.id IN (SELECT value FROM json_each(?))', ...q.where)
    params.push(matchIds, ...q.params)
  } else {
    from = 'calls_fts CROSS JOIN calls c ON c.id = calls_fts.rowid'
    where.push('calls_fts MATCH ?', ...q.where)
    params.push(q.match, ...q.params)
  }
  if (plan === 'relevance') {
    order = 'calls_fts.rank, c.id'
    if (after) {
      where.push('(calls_fts.rank, c.id) > (?, ?)')
      params.push(after[0], after[1])
    }
  } else {
    order = desc ? 'c.call_at DESC, c.call_id DESC' : 'c.call_at, c.call_id'
    if (after) {
      where.push(`(c.call_at, c.call_id) ${desc ? '<' : '>'} (?, ?)`)
      params.push(after[0], after[1])
    }
  }
  const sql = `SELECT ${cols} FROM ${from}${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY ${order} ${tail}`
  return { sql, params }
}

/** The columns that make a row's sort key, in the order SortKey holds them. */
export function keyColumns(plan: PlanKind): string {
  return plan === 'relevance' ? 'calls_fts.rank AS k0, c.id AS k1' : 'c.call_at AS k0, c.call_id AS k1'
}
