import { foldText } from '../../../shared/text/fold'
import { connectionOf, type CallCache } from '../call-cache'
import { SqliteColumnReads } from './column-reads'
import { SqliteDataReads, SqliteMatchReads } from './data-reads'
import { SqliteFacetSqlReads, SqliteTotalsReads } from './facet-reads'
import { SqliteRankReads } from './rank-reads'
import { SqliteRowReads } from './row-reads'
import { StatementCache } from './statements'
import { SqliteViewReads } from './view-reads'
import type { SearchReader } from './types'

export { QUARTER_MS } from './column-reads'
export { parseIntList } from './int-list'
export * from './types'

/** The read side of one cache for search: its parts share one statement cache. */
export function createSearchReader(cache: CallCache): SearchReader {
  // Analysis equals compares folded values (case and diacritics, Turkish i), as text does.
  connectionOf(cache).function('fold_text', { deterministic: true }, (v: unknown) => (typeof v === 'string' ? foldText(v) : v))
  const statements = new StatementCache(connectionOf(cache))
  const data = new SqliteDataReads(cache, statements)
  return {
    data,
    catalog: data,
    matches: new SqliteMatchReads(statements),
    rows: new SqliteRowReads(cache, statements),
    columns: new SqliteColumnReads(statements),
    totals: new SqliteTotalsReads(statements),
    facetSql: new SqliteFacetSqlReads(statements),
    view: new SqliteViewReads(statements, cache),
    rank: new SqliteRankReads(connectionOf(cache), statements)
  }
}
