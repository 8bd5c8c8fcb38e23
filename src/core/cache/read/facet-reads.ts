import { itemsOfKeys, valueDictionary } from '../analysis-lists'
import type { StatementCache } from './statements'
import type { FacetSqlReads, SqlPiece, TotalsReads } from './types'

const idList = (ids: readonly number[]): string => ids.map((n) => String(Math.trunc(n))).join(',')

/** `col` is one of the matches (every call when `matches` is null). */
function member(col: string, matches: SqlPiece | null): SqlPiece {
  return matches === null ? { sql: '1', params: [] } : { sql: `${col} IN (${matches.sql})`, params: matches.params }
}

/** The running totals (migration 2) and the exact counts at the edges of a range. */
export class SqliteTotalsReads implements TotalsReads {
  constructor(private readonly statements: StatementCache) {}

  callBounds(): { lo: number; hi: number } | null {
    // Two subqueries: SQLite reads min() or max() from the index end only when the query has
    // just one of them; min and max together scan the whole index (7 ms per 100,000 calls).
    const b = this.statements.get('SELECT (SELECT min(call_at) FROM calls) AS lo, (SELECT max(call_at) FROM calls) AS hi').get() as {
      lo: number | null
      hi: number | null
    }
    return b.lo === null || b.hi === null ? null : { lo: b.lo, hi: b.hi }
  }

  hourTotals(hourFrom: number, hourTo: number): Array<[number, number]> {
    return this.statements
      .get('SELECT hour, n FROM agg_hours WHERE hour >= ? AND hour < ? AND n > 0 ORDER BY hour', 'raw')
      .all(hourFrom, hourTo) as Array<[number, number]>
  }

  callsBetween(from: number, to: number): number {
    return this.statements.get('SELECT count(*) FROM calls WHERE call_at >= ? AND call_at < ?', 'pluck').get(from, to) as number
  }

  scopeHourTotals(scopeIds: readonly number[], hourFrom: number, hourTo: number): Array<[number, number]> {
    return this.statements
      .get(
        `SELECT scope, sum(n) FROM agg_scope_hours WHERE scope IN (${idList(scopeIds)}) AND hour >= ? AND hour < ? GROUP BY scope`,
        'raw'
      )
      .all(hourFrom, hourTo) as Array<[number, number]>
  }

  scopeCallsBetween(scopeIds: readonly number[], from: number, to: number): Array<[number, number]> {
    return this.statements
      .get(
        `SELECT m.scope, count(*) FROM calls c INDEXED BY calls_by_date CROSS JOIN scope_members m ON m.call = c.id
         WHERE c.call_at >= ? AND c.call_at < ? AND m.scope IN (${idList(scopeIds)}) GROUP BY m.scope`,
        'raw'
      )
      .all(from, to) as Array<[number, number]>
  }

  valueTotals(keyIds: readonly number[]): Array<[string, number | null, number]> {
    return this.statements
      .get(`SELECT value, value_num, n FROM agg_values WHERE key_id IN (${idList(keyIds)}) AND n > 0`, 'raw')
      .all() as Array<[string, number | null, number]>
  }
}

/** Facets counted in SQL over a match set. */
export class SqliteFacetSqlReads implements FacetSqlReads {
  constructor(private readonly statements: StatementCache) {}

  perRange(ranges: ReadonlyArray<readonly [number, number]>, matches: SqlPiece | null): Array<{ i: number; n: number }> {
    // One index range per day, in day order: the day join streams, no sorting.
    const m = member('c.id', matches)
    return this.statements
      .get(
        `SELECT d.key AS i, count(*) AS n FROM json_each(?) d CROSS JOIN calls c INDEXED BY calls_by_date
         WHERE c.call_at >= json_extract(d.value, '$[0]') AND c.call_at < json_extract(d.value, '$[1]') AND ${m.sql} GROUP BY d.key`
      )
      .all(JSON.stringify(ranges), ...m.params) as Array<{ i: number; n: number }>
  }

  callTimes(matches: SqlPiece): number[] {
    return this.statements
      .get(`SELECT c.call_at FROM calls c WHERE c.id IN (${matches.sql}) ORDER BY c.call_at`, 'pluck')
      .all(...matches.params) as number[]
  }

  perType(pairs: ReadonlyArray<readonly [number, string]>, matches: SqlPiece | null): Array<{ value: string; count: number }> {
    const m = member('m.call', matches)
    const values = pairs.map(() => '(?, ?)').join(',')
    // A call is in a scope once; only a type vouched for by several scopes needs DISTINCT.
    const distinct = pairs.length > new Set(pairs.map((p) => p[1])).size ? 'DISTINCT ' : ''
    return this.statements
      .get(
        `WITH t(scope, type) AS (VALUES ${values})
         SELECT t.type AS value, count(${distinct}m.call) AS count
         FROM t CROSS JOIN scope_members m INDEXED BY scope_members_by_scope ON m.scope = t.scope
         WHERE ${m.sql} GROUP BY t.type ORDER BY count DESC, value`
      )
      .all(...pairs.flat(), ...m.params) as Array<{ value: string; count: number }>
  }

  // Values are counted in JS from one read: SQLite's GROUP BY sorts every item first, and a
  // sum() per bucket compares every item against every bucket (measured 4× slower).

  textValues(keyIds: readonly number[], matches: SqlPiece | null): string[] {
    const d = valueDictionary(this.statements.db)
    const out: string[] = []
    this.eachItem(keyIds, matches, (id) => out.push(d.valueOf[id]!))
    return out
  }

  numericValues(keyIds: readonly number[], matches: SqlPiece | null): number[] {
    const d = valueDictionary(this.statements.db)
    const out: number[] = []
    this.eachItem(keyIds, matches, (id) => {
      const n = d.numOf[id]
      if (n !== null && n !== undefined) out.push(n)
    })
    return out
  }

  /**
   * The value ids of the keys' items of each match (of every call when all match), from one
   * `group_concat` of their lists, each found by call.
   */
  private eachItem(keyIds: readonly number[], matches: SqlPiece | null, each: (id: number) => void): void {
    const from =
      matches === null
        ? { sql: 'FROM analysis_lists l', params: [] as unknown[] }
        : { sql: `FROM (${matches.sql}) x CROSS JOIN analysis_lists l ON l.call = x.id`, params: matches.params }
    const joined = this.statements.get(`SELECT group_concat(l.items, ',') ${from.sql}`, 'pluck').get(...from.params) as string | null
    itemsOfKeys(valueDictionary(this.statements.db), new Int32Array(0), joined, keyIds, (_, id) => each(id))
  }
}
