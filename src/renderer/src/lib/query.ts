import type { AnalysisFilter, CallRecord, CallRow, FieldFilter, ReviewFilter, SearchQuery, SearchSort } from '../../../shared/domain'

/**
 * shared/domain's SUMMARY_PREVIEW_CHARS, restated: importing a value from domain.ts would pull
 * zod into the renderer's bundle for one number. A unit test keeps the two equal.
 */
export const PREVIEW_CHARS = 240

/** What the filter bar edits. Dates are instants already read in the display zone. */
export interface SearchFilters {
  text: string
  from: number | null
  to: number | null
  callTypes: string[]
  direction: number | null
  results: 'all' | 'answered'
  analysis: AnalysisFilter[]
  /** Extra-field filters (agent, team, …), added by drilling into Insight's breakdown. */
  fields: FieldFilter[]
  sort: SearchSort
  /** Set while from/to are a "last N days" preset, so saving keeps the range relative. */
  relativeDays: number | null
  /** Review filters (local only; docs/review.md). */
  review: ReviewFilter
}

export function emptyReview(): ReviewFilter {
  return {
    statuses: [],
    tags: [],
    listId: null,
    hasNote: null,
    scoreMin: null,
    scoreMax: null,
    scorecardId: null,
    reviewer: null,
    noteText: '',
    serviceDropped: null
  }
}

/** How many review conditions are set (the filter button's badge); 0: none, and the query carries no review filter. */
export function reviewFilterCount(r: ReviewFilter): number {
  return (
    (r.statuses.length > 0 ? 1 : 0) +
    (r.tags.length > 0 ? 1 : 0) +
    (r.listId !== null ? 1 : 0) +
    (r.hasNote !== null ? 1 : 0) +
    (r.scoreMin !== null || r.scoreMax !== null ? 1 : 0) +
    (r.scorecardId !== null ? 1 : 0) +
    (r.reviewer !== null && r.reviewer.trim() !== '' ? 1 : 0) +
    (r.noteText.trim() !== '' ? 1 : 0) +
    (r.serviceDropped !== null ? 1 : 0)
  )
}

/** The review filter as sent: a reversed score range is put in order, an empty reviewer is none. */
function reviewOf(r: ReviewFilter): ReviewFilter | undefined {
  if (reviewFilterCount(r) === 0) return undefined
  const [lo, hi] =
    r.scoreMin !== null && r.scoreMax !== null && r.scoreMin > r.scoreMax ? [r.scoreMax, r.scoreMin] : [r.scoreMin, r.scoreMax]
  const reviewer = r.reviewer?.trim() ? r.reviewer.trim() : null
  return { ...r, statuses: [...r.statuses], tags: [...r.tags], scoreMin: lo, scoreMax: hi, reviewer, noteText: r.noteText.trim() }
}

/** shared/domain's DEFAULT_RESULTS, restated like PREVIEW_CHARS (a unit test keeps them equal). */
export const DEFAULT_RESULTS = 'answered' as const

export function emptyFilters(): SearchFilters {
  return {
    text: '',
    from: null,
    to: null,
    callTypes: [],
    direction: null,
    results: DEFAULT_RESULTS,
    analysis: [],
    fields: [],
    sort: 'date_desc',
    relativeDays: null,
    review: emptyReview()
  }
}

/** Relevance only means something with text; without it the list falls back to newest first. */
export function effectiveSort(sort: SearchSort, text: string): SearchSort {
  return sort === 'relevance' && text.trim() === '' ? 'date_desc' : sort
}

/** Analysis filters the user has not finished (no key, or a range with neither end) are left out. */
export function completeAnalysis(filters: readonly AnalysisFilter[]): AnalysisFilter[] {
  return filters.filter((f) => f.key !== '' && (f.kind === 'equals' ? f.value.trim() !== '' : f.min !== null || f.max !== null))
}

export function buildQuery(f: SearchFilters): SearchQuery {
  return {
    text: f.text.trim().slice(0, 500),
    from: f.from,
    to: f.to,
    callTypes: [...f.callTypes],
    direction: f.direction,
    results: f.results,
    hasNewRequest: null,
    analysis: completeAnalysis(f.analysis).map((a) => ({ ...a })),
    ...(f.fields.length > 0 ? { fields: f.fields.map((x) => ({ ...x })) } : {}),
    sort: effectiveSort(f.sort, f.text),
    ...(reviewOf(f.review) ? { review: reviewOf(f.review) } : {})
  }
}

export function filtersFromQuery(q: SearchQuery): SearchFilters {
  return {
    text: q.text,
    from: q.from,
    to: q.to,
    callTypes: [...q.callTypes],
    direction: q.direction,
    results: q.results === 'answered' ? 'answered' : 'all',
    analysis: q.analysis.map((a) => ({ ...a })),
    fields: (q.fields ?? []).map((x) => ({ ...x })),
    sort: q.sort,
    relativeDays: null,
    review: q.review ? { ...emptyReview(), ...q.review, statuses: [...q.review.statuses], tags: [...q.review.tags] } : emptyReview()
  }
}

/** Filters the service cannot apply, so service mode can say they are ignored. */
export function hasLocalOnlyFilters(f: SearchFilters): boolean {
  return f.text.trim() !== '' || completeAnalysis(f.analysis).length > 0 || f.fields.length > 0 || reviewFilterCount(f.review) > 0
}

/** A full record shown in the same table as local rows. */
export function recordToRow(r: CallRecord): CallRow {
  return {
    callId: r.callId,
    callAt: r.callAt,
    callDate: r.callDate,
    title: r.title,
    summaryPreview: r.summary.slice(0, PREVIEW_CHARS),
    analysisCount: r.analysis.length
  }
}
