import type { AnalysisKeyInfo, CallRecord, ExportSelection } from '../../../shared/domain'
import type { MatchReads, RowReads, SqlPiece } from '../../cache'
import type { CompiledQuery } from '../query/compile'
import type { ExportPlan } from '../plan/plan'
import { buildSelect, callsByIds, NO_CALLS } from '../query/sql'

/** Below this many records, export lists exactly the analysis keys the selection holds. */
const EXACT_KEYS_LIMIT = 50_000

export interface ExportIteration {
  total: number
  analysisKeys: Array<{ key: string; friendlyName: string }>
  records: Iterable<CallRecord>
}

/** What an export of a query needs from search: the query compiled, its plan and its count. */
export interface QueryExport {
  q: CompiledQuery
  plan: ExportPlan
  count: () => number
}

/**
 * Streams a selection's records in query order (ids: the order given, once each, unknown
 * ids skipped). Its `analysisKeys` are the keys the selection holds when it has at most
 * EXACT_KEYS_LIMIT calls, otherwise every key in the cache (a superset, to avoid a pass over
 * the selection before streaming).
 */
export function exportIteration(
  selection: Exclude<ExportSelection, { kind: 'ranges' }>,
  reads: { rows: RowReads; matches: MatchReads },
  allKeys: readonly AnalysisKeyInfo[],
  ofQuery: (query: Extract<ExportSelection, { kind: 'query' }>['query']) => QueryExport
): ExportIteration {
  let calls: SqlPiece
  let total: number
  if (selection.kind === 'ids') {
    const sel = callsByIds(JSON.stringify(selection.ids))
    total = reads.matches.count(sel.count)
    calls = sel.rows
  } else {
    const { q, plan, count } = ofQuery(selection.query)
    total = plan.kind === 'nothing' ? 0 : count()
    calls = plan.kind === 'nothing' ? NO_CALLS : buildSelect(q, plan, 'c.*', null)
  }
  const named = (k: AnalysisKeyInfo): { key: string; friendlyName: string } => ({ key: k.key, friendlyName: k.friendlyName })
  let keys: Array<{ key: string; friendlyName: string }>
  if (total > EXACT_KEYS_LIMIT) keys = allKeys.map(named)
  else {
    const present = new Set(reads.rows.keysIn(calls))
    keys = allKeys.filter((k) => present.has(k.key)).map(named)
  }
  return { total, analysisKeys: keys, records: reads.rows.records(calls) }
}
