import type { AgentField } from '../../../shared/review-team'
import type { ReviewFilter } from '../../../shared/review'
import { emptyFilters, emptyReview, type SearchFilters } from './query'
import { drillPeriod } from './queryChips'

/**
 * The lead's view counts every annotation, whatever the current search: its drill-downs
 * start Search afresh (every call type and result) with the chart's condition alone, on the
 * scored calls (score 0–100).
 */
function fresh(filters: SearchFilters, review: Partial<ReviewFilter>): void {
  Object.assign(filters, emptyFilters(), { results: 'all', review: { ...emptyReview(), scoreMin: 0, scoreMax: 100, ...review } })
}

/** The calls a reviewer scored (last changed by them, as the chart counts). */
export function drillReviewer(filters: SearchFilters, reviewer: string): void {
  fresh(filters, { reviewer })
}

/** The scored calls of one agent, by the agent field the chart read. */
export function drillAgent(filters: SearchFilters, field: AgentField, agent: string): void {
  fresh(filters, {})
  if (field.kind === 'field') filters.fields = [{ kind: 'equals', field: field.name, value: agent }]
  else filters.analysis = [{ kind: 'equals', key: field.key, value: agent }]
}

/** A scorecard's calls that scored 0: a failed critical criterion makes the total 0. */
export function drillFailed(filters: SearchFilters, scorecardId: string): void {
  fresh(filters, { scorecardId, scoreMin: 0, scoreMax: 0 })
}

/** The scored calls of one week (Monday to Sunday, in the zone). */
export function drillWeek(filters: SearchFilters, week: string, zone: string): void {
  fresh(filters, {})
  drillPeriod(filters, week, 'week', zone)
}

/** A review list's calls. */
export function drillList(filters: SearchFilters, listId: string): void {
  fresh(filters, { listId, scoreMin: null, scoreMax: null })
}
