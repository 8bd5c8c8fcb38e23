import type { SearchPage } from '../../../shared/domain'
import { matchedIn, reachesAnalysis } from '../../../shared/query'
import { parseNumeric, type SearchReader } from '../../cache'
import type { CompiledQuery } from './compile'

/**
 * Each row says which analysis keys the query found it through ("matched in"), when the query
 * has a term analysis items can hold: one read of the page's items, evaluated in memory.
 */
export function withMatchedIn(page: SearchPage, q: CompiledQuery, reader: SearchReader): SearchPage {
  if (!reachesAnalysis(q.node) || page.rows.length === 0) return page
  const items = reader.rows.items(page.rows.map((r) => r.callId))
  return {
    offset: page.offset,
    rows: page.rows.map((r) => {
      const names = matchedIn(q.node, items.get(r.callId) ?? [], parseNumeric)
      return names.length > 0 ? { ...r, matchedIn: names } : r
    })
  }
}
