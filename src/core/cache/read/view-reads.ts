import { itemsOfKeys, valueDictionary } from '../analysis-lists'
import { parseIntList } from './int-list'
import type { StatementCache } from './statements'
import type { ViewReads } from './types'
import type { CallCache } from '../call-cache'

/** A JSON path to a top-level member: the name is quoted, so any field name the column allows is taken literally. */
const memberPath = (field: string): string => `$."${field.replace(/["\\]/g, '')}"`

/** Reads for the results list's chosen columns: their values per page, and whole columns to sort by. */
export class SqliteViewReads implements ViewReads {
  constructor(
    private readonly statements: StatementCache,
    private readonly cache: Pick<CallCache, 'reviewVersion'>
  ) {}

  reviewVersion(): number {
    return this.cache.reviewVersion
  }

  reviewColumn(field: 'status' | 'tags' | 'score'): { calls: Int32Array; values: Array<string | number> } {
    const value = { status: 'a.status', tags: "(SELECT group_concat(j.value, ', ') FROM json_each(a.tags) j)", score: 'a.total' }[field]
    const rows = this.statements
      .get(
        `SELECT c.id, v FROM (SELECT call_id, ${value} AS v FROM annotations a) x JOIN calls c ON c.call_id = x.call_id WHERE v IS NOT NULL AND v <> ''`,
        'raw'
      )
      .all() as Array<[number, string | number]>
    return { calls: Int32Array.from(rows, (r) => r[0]), values: rows.map((r) => r[1]) }
  }

  extraFields(sample: number): Array<{ field: string; numeric: boolean }> {
    // The newest calls stand for the rest: the fields a service sends do not change per call.
    const rows = this.statements
      .get(
        `SELECT j.key, min(j.type IN ('integer', 'real')) FROM (SELECT extra FROM calls ORDER BY id DESC LIMIT ?) c, json_each(c.extra) j WHERE j.type IN ('integer', 'real', 'text') GROUP BY j.key ORDER BY j.key`,
        'raw'
      )
      .all(Math.max(1, Math.trunc(sample))) as Array<[string, number]>
    return rows.map(([field, numeric]) => ({ field, numeric: numeric === 1 }))
  }

  extraColumn(field: string): { calls: Int32Array; values: string[] } {
    // One group_concat string each, as the facet columns are read (column-reads.ts): a million
    // values leave SQLite as one string far faster than as rows.
    const path = memberPath(field)
    const row = this.statements
      .get(
        `SELECT group_concat(id), group_concat(v, char(31)) FROM (SELECT id, json_extract(extra, ?) AS v FROM calls) WHERE v IS NOT NULL AND v <> ''`,
        'raw'
      )
      .get(path) as [string | null, string | null]
    const calls = parseIntList(row[0])
    const values = row[1] === null ? [] : row[1].split('\u001f')
    if (values.length === calls.length) return { calls, values }
    const rows = this.statements
      .get(`SELECT id, json_extract(extra, ?) AS v FROM calls WHERE v IS NOT NULL AND v <> ''`, 'raw')
      .all(path) as Array<[number, unknown]>
    return { calls: Int32Array.from(rows, (r) => r[0]), values: rows.map((r) => String(r[1])) }
  }

  cells(
    callIds: readonly string[],
    extraFields: readonly string[],
    keyIds: readonly number[]
  ): {
    calls: Array<{ id: number; callId: string; extra: unknown[] }>
    items: Array<[number, number, string, number | null]>
    members: Array<[number, number]>
  } {
    const json = JSON.stringify(callIds)
    const extraCols = extraFields.map((_, i) => `, json_extract(c.extra, ?) AS x${i}`).join('')
    const calls = (
      this.statements
        .get(`SELECT c.id, c.call_id${extraCols} FROM calls c WHERE c.call_id IN (SELECT value FROM json_each(?))`, 'raw')
        .all(...extraFields.map(memberPath), json) as unknown[][]
    ).map((r) => ({ id: r[0] as number, callId: r[1] as string, extra: r.slice(2) }))
    const ids = JSON.stringify(calls.map((c) => c.id))
    const items: Array<[number, number, string, number | null]> = []
    if (keyIds.length > 0) {
      const row = this.statements
        .get(
          `SELECT group_concat(call), group_concat(items, ',') FROM (SELECT call, items FROM analysis_lists WHERE call IN (SELECT value FROM json_each(?)) ORDER BY call)`,
          'raw'
        )
        .get(ids) as [string | null, string | null]
      const d = valueDictionary(this.statements.db)
      itemsOfKeys(d, parseIntList(row[0]), row[1], keyIds, (call, id) =>
        items.push([call, d.keyOf[id]!, d.valueOf[id]!, d.numOf[id] ?? null])
      )
    }
    const members = this.statements
      .get('SELECT call, scope FROM scope_members WHERE call IN (SELECT value FROM json_each(?))', 'raw')
      .all(ids) as Array<[number, number]>
    return { calls, items, members }
  }
}
