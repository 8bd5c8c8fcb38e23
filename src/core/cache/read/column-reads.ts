import { itemsOfKeys, valueDictionary } from '../analysis-lists'
import { parseIntList } from './int-list'
import type { StatementCache } from './statements'
import type { CallSpan, ColumnReads, Since, SqlPiece } from './types'

/** Facet days are folded from quarter hours: every zone offset in use is a multiple of 15 minutes. */
export const QUARTER_MS = 15 * 60_000

/** ⌊call_at / 15 min⌋ in SQL: SQLite's integer division truncates toward zero, so instants before 1970 need the shift. */
const QUARTER_SQL = `CASE WHEN call_at >= 0 THEN call_at / ${QUARTER_MS} ELSE (call_at - ${QUARTER_MS - 1}) / ${QUARTER_MS} END`

const idList = (ids: readonly number[]): string => ids.map((n) => String(Math.trunc(n))).join(',')

/** `col` of the calls added from `since.from` on or touched: one SQL condition and its parameters. */
function sinceWhere(col: string, since: Since): { sql: string; params: unknown[] } {
  return { sql: `(${col} >= ? OR ${col} IN (SELECT value FROM json_each(?)))`, params: [since.from, JSON.stringify(since.touched)] }
}

/**
 * Reads for the in-memory facet columns (search/columns.ts), each as one `group_concat`
 * string: a million values move out of SQLite as one string in ~50 ms, as rows in 200 ms
 * to 1 s, because the driver builds a JS value per cell.
 */
export class SqliteColumnReads implements ColumnReads {
  constructor(private readonly statements: StatementCache) {}

  quarters(since: Since | null): { maxId: number; ids: Int32Array; quarters: Int32Array } {
    const where = since === null ? { sql: '1', params: [] } : sinceWhere('id', since)
    const row = this.statements
      .get(
        `SELECT coalesce((SELECT max(id) FROM calls), 0), group_concat(id), group_concat(${QUARTER_SQL}) FROM calls WHERE ${where.sql}`,
        'raw'
      )
      .get(...where.params) as [number, string | null, string | null]
    return { maxId: row[0], ids: parseIntList(row[1]), quarters: parseIntList(row[2]) }
  }

  idsByDate(): Int32Array {
    return parseIntList(
      this.statements
        .get('SELECT group_concat(id) FROM (SELECT id FROM calls INDEXED BY calls_by_date ORDER BY call_at, call_id)', 'pluck')
        .get() as string | null
    )
  }

  idsByDateIn(from: number, to: number): Int32Array {
    return parseIntList(
      this.statements
        .get(
          'SELECT group_concat(id) FROM (SELECT id FROM calls INDEXED BY calls_by_date WHERE call_at >= ? AND call_at < ? ORDER BY call_at, call_id)',
          'pluck'
        )
        .get(from, to) as string | null
    )
  }

  newestByDate(w: number, desc: boolean): Int32Array {
    const dir = desc ? 'DESC' : 'ASC'
    const ids = parseIntList(
      this.statements
        .get(
          `SELECT group_concat(id) FROM (SELECT id FROM calls INDEXED BY calls_by_date ORDER BY call_at ${dir}, call_id ${dir} LIMIT ?)`,
          'pluck'
        )
        .get(Math.max(0, Math.trunc(w))) as string | null
    )
    return desc ? ids.reverse() : ids
  }

  idBounds(): CallSpan | null {
    // Each its own subquery: SQLite seeks one end of the table for a min() or max() alone, but
    // scans every row for the pair.
    const [lo, hi] = this.statements.get('SELECT (SELECT min(id) FROM calls), (SELECT max(id) FROM calls)', 'raw').get() as [
      number | null,
      number | null
    ]
    return lo === null || hi === null ? null : { lo, hi }
  }

  datedOutside(key: readonly [number, string], span: CallSpan, desc: boolean): boolean {
    // The date index's entries from the order's end to the key's second, each tested by its
    // id alone (the index holds it): no row is read. The whole second, not the exact key: a
    // comparison of (call_at, call_id) per entry costs twice as much, and a call of the same
    // second outside the span only makes the answer cautious.
    const cmp = desc ? '>=' : '<='
    return (
      this.statements
        .get(`SELECT 1 FROM calls INDEXED BY calls_by_date WHERE call_at ${cmp} ? AND id NOT BETWEEN ? AND ? LIMIT 1`, 'pluck')
        .get(key[0], Math.trunc(span.lo), Math.trunc(span.hi)) !== undefined
    )
  }

  datedRows(rows: SqlPiece): Array<[number, number, string]> {
    return this.statements.get(rows.sql, 'raw').all(...rows.params) as Array<[number, number, string]>
  }

  quartersIn(span: CallSpan): { ids: Int32Array; quarters: Int32Array } {
    const row = this.statements
      .get(`SELECT group_concat(id), group_concat(${QUARTER_SQL}) FROM calls WHERE id BETWEEN ? AND ?`, 'raw')
      .get(Math.trunc(span.lo), Math.trunc(span.hi)) as [string | null, string | null]
    return { ids: parseIntList(row[0]), quarters: parseIntList(row[1]) }
  }

  membersIn(scopeIds: readonly number[], span: CallSpan): Int32Array {
    return parseIntList(
      this.statements
        .get(`SELECT group_concat(call) FROM scope_members WHERE call BETWEEN ? AND ? AND scope IN (${idList(scopeIds)})`, 'pluck')
        .get(Math.trunc(span.lo), Math.trunc(span.hi)) as string | null
    )
  }

  membersOf(scopeIds: readonly number[]): Int32Array {
    return parseIntList(
      this.statements.get(`SELECT group_concat(call) FROM scope_members WHERE scope IN (${idList(scopeIds)})`, 'pluck').get() as
        string | null
    )
  }

  membershipsSince(since: Since): Array<[number, number]> {
    const where = sinceWhere('call', since)
    return this.statements.get(`SELECT call, scope FROM scope_members WHERE ${where.sql}`, 'raw').all(...where.params) as Array<
      [number, number]
    >
  }

  textItems(keyIds: readonly number[], since: Since | CallSpan | null): { calls: Int32Array; values: string[] } {
    const d = valueDictionary(this.statements.db)
    const calls: number[] = []
    const values: string[] = []
    this.eachItem(keyIds, since, (call, id) => {
      calls.push(call)
      values.push(d.valueOf[id]!)
    })
    return { calls: Int32Array.from(calls), values }
  }

  numericItems(keyIds: readonly number[], since: Since | CallSpan | null): { calls: Int32Array; nums: Float64Array } {
    const d = valueDictionary(this.statements.db)
    const calls: number[] = []
    const nums: number[] = []
    this.eachItem(keyIds, since, (call, id) => {
      calls.push(call)
      nums.push(d.numOf[id] ?? Number.NaN)
    })
    return { calls: Int32Array.from(calls), nums: Float64Array.from(nums) }
  }

  /**
   * The items of the keys, in call and item order, from one read of the calls' lists (the
   * codes never hold ',', so one `group_concat` string carries them all, parsed in JS).
   */
  private eachItem(keyIds: readonly number[], since: Since | CallSpan | null, each: (call: number, id: number) => void): void {
    const where = this.itemsWhere(since)
    const row = this.statements
      .get(`SELECT group_concat(call), group_concat(items, ',') FROM analysis_lists WHERE ${where.sql}`, 'raw')
      .get(...where.params) as [string | null, string | null]
    itemsOfKeys(valueDictionary(this.statements.db), parseIntList(row[0]), row[1], keyIds, each)
  }

  private itemsWhere(since: Since | CallSpan | null): { sql: string; params: unknown[] } {
    if (since === null) return { sql: '1', params: [] }
    // Lists are keyed by call: a span is a range of the table, not a pass over all of it.
    if ('lo' in since) return { sql: 'call >= ? AND call <= ?', params: [since.lo, since.hi] }
    return sinceWhere('call', since)
  }
}
