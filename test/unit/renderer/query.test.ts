import { describe, expect, it } from 'vitest'
import {
  DEFAULT_RESULTS as SHARED_DEFAULT_RESULTS,
  SUMMARY_PREVIEW_CHARS,
  SearchQuery,
  SyncScope,
  CallRow,
  type CallRecord
} from '../../../src/shared/domain'
import {
  DEFAULT_RESULTS,
  PREVIEW_CHARS,
  buildQuery,
  completeAnalysis,
  effectiveSort,
  emptyReview,
  emptyFilters,
  filtersFromQuery,
  hasLocalOnlyFilters,
  recordToRow
} from '../../../src/renderer/src/lib/query'

describe('query building', () => {
  it('the "no longer returned by the service" review filter counts, is sent as the contract takes it, and comes back', () => {
    const f = { ...emptyFilters(), review: { ...emptyReview(), serviceDropped: true } }
    expect(SearchQuery.parse(buildQuery(f)).review).toMatchObject({ serviceDropped: true })
    expect(filtersFromQuery(buildQuery(f)).review.serviceDropped).toBe(true)
    expect(hasLocalOnlyFilters(f)).toBe(true)
    expect(buildQuery(emptyFilters()).review).toBeUndefined()
    expect(SearchQuery.parse(buildQuery({ ...f, review: { ...emptyReview(), serviceDropped: false } })).review?.serviceDropped).toBe(false)
  })

  it("one default for results: the app, local search and sync all take the service's (answered only)", () => {
    expect(DEFAULT_RESULTS).toBe(SHARED_DEFAULT_RESULTS)
    expect(emptyFilters().results).toBe('answered')
    expect(SearchQuery.parse({}).results).toBe('answered')
    expect(SyncScope.parse({ from: 0, to: 1 }).results).toBe('answered')
  })

  it('the default filters make a query the contract accepts unchanged', () => {
    const q = buildQuery(emptyFilters())
    expect(SearchQuery.parse(q)).toEqual(q)
  })

  it('relevance needs text; without it the sort is newest first', () => {
    expect(effectiveSort('relevance', '  ')).toBe('date_desc')
    expect(effectiveSort('relevance', 'fatura')).toBe('relevance')
    expect(effectiveSort('date_asc', '')).toBe('date_asc')
  })

  it('leaves out analysis filters that are not finished yet', () => {
    const kept = completeAnalysis([
      { kind: 'equals', key: '', value: 'x' },
      { kind: 'equals', key: 'topic', value: '  ' },
      { kind: 'range', key: 'score', min: null, max: null },
      { kind: 'range', key: 'score', min: 0.5, max: null },
      { kind: 'equals', key: 'topic', value: 'Fatura' }
    ])
    expect(kept).toEqual([
      { kind: 'range', key: 'score', min: 0.5, max: null },
      { kind: 'equals', key: 'topic', value: 'Fatura' }
    ])
  })

  it('a full query round-trips through the filters and passes the contract', () => {
    const filters = {
      ...emptyFilters(),
      text: ' İstanbul fatura ',
      from: 1_700_000_000_000,
      to: 1_700_086_400_000,
      callTypes: ['Billing'],
      direction: 1,
      results: 'answered' as const,
      analysis: [{ kind: 'range' as const, key: 'score', min: 0.2, max: 0.8 }],
      sort: 'relevance' as const
    }
    const q = buildQuery(filters)
    expect(q.text).toBe('İstanbul fatura')
    expect(SearchQuery.parse(q)).toEqual(q)
    expect(buildQuery(filtersFromQuery(q))).toEqual(q)
    expect(hasLocalOnlyFilters(filters)).toBe(true)
    expect(hasLocalOnlyFilters(emptyFilters())).toBe(false)
  })

  it('shows a service record as a table row that matches the row schema', () => {
    expect(PREVIEW_CHARS).toBe(SUMMARY_PREVIEW_CHARS)
    const record: CallRecord = {
      callId: 'C1',
      callAt: 1_700_000_000_000,
      callDate: '2023-11-14T22:13:20',
      title: 'Başlık',
      summary: 'x'.repeat(1000),
      analysis: [{ key: 'k', friendlyName: 'K', value: '1' }],
      extra: {}
    }
    const row = recordToRow(record)
    expect(CallRow.parse(row)).toEqual(row)
    expect(row.summaryPreview).toHaveLength(SUMMARY_PREVIEW_CHARS)
    expect(row.analysisCount).toBe(1)
  })
})
