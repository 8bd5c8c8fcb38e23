import type { CallRow, SearchQuery, TeamCount, TeamCountMode } from '../../../shared/domain'
import { call } from '../api'

/**
 * The team cache as a search source: the query answered by PostgreSQL in place (IPC
 * `team.search`), for calls this workstation's window does not hold. It sorts by date only
 * and knows nothing of annotations (they live on workstations), so a query is sent without
 * them; the count is asked once the first page is up, as locally, in two requests: an
 * estimate (quick), then the exact count (teamResults.ts).
 */

/** The team cache's largest page over IPC. */
const TEAM_PAGE_MAX = 500

export interface TeamPage {
  rows: CallRow[]
  /** Calls the team cache has not indexed yet: no text or analysis term finds them. */
  unindexed: boolean
}

/** The query as the team cache can answer it: by date (relevance is the local index's), without review filters. */
export function teamQuery(q: SearchQuery): SearchQuery {
  const out: SearchQuery = { ...q, sort: q.sort === 'date_asc' ? 'date_asc' : 'date_desc' }
  delete out.review
  return out
}

export async function teamPage(q: SearchQuery, offset: number, limit: number): Promise<TeamPage> {
  const r = await call('team.search', { query: teamQuery(q), offset, limit: Math.min(TEAM_PAGE_MAX, Math.max(1, limit)), count: null })
  return { rows: r.page.rows, unindexed: r.unindexed }
}

export async function teamCount(q: SearchQuery, mode: TeamCountMode): Promise<TeamCount> {
  const r = await call('team.search', { query: teamQuery(q), offset: 0, limit: 1, count: mode })
  return r.total ?? { kind: 'exact', n: 0 }
}
