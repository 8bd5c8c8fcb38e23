/** Filters shared by local search, remote search and sync scopes; pages and coverage. */
import { z } from 'zod'
import { CallRecord, CallRow, ReviewStatus, RowCells } from './records'
import { EpochMs } from './time'

/**
 * The service's `results` field. 'answered' = field absent (the service's default, Answered
 * calls only); 'all' = field sent as null; a list = those numeric results.
 */
export const ResultsFilter = z.union([z.literal('answered'), z.literal('all'), z.array(z.number().int()).min(1).max(50)])
export type ResultsFilter = z.infer<typeof ResultsFilter>

/**
 * One default for `results` in sync, local search, remote search, export and the app: the
 * service's own (the field absent: Answered calls only), so the same flags give the same set.
 */
export const DEFAULT_RESULTS = 'answered' as const satisfies ResultsFilter

export const AnalysisFilter = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('equals'), key: z.string().min(1).max(200), value: z.string().max(500) }),
  z
    .object({
      kind: z.literal('range'),
      key: z.string().min(1).max(200),
      min: z.number().finite().nullable().default(null),
      max: z.number().finite().nullable().default(null)
    })
    .refine((f) => f.min === null || f.max === null || f.min <= f.max, { message: 'min must not exceed max' })
])
export type AnalysisFilter = z.infer<typeof AnalysisFilter>

/**
 * A filter on one of the extra fields a service sends with each call (agent, team, duration):
 * its text value exactly, or its number within [min, max]. Local only, like analysis filters;
 * Insight's breakdown drills into Search with one.
 */
export const FieldFilter = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('equals'),
    field: z.string().regex(/^[A-Za-z0-9_]{1,100}$/),
    value: z.string().max(500),
    /** Compared folded (case, accents, Turkish i), as a typed `agent:hakan çınar` is; exact when absent. */
    folded: z.boolean().optional()
  }),
  z
    .object({
      kind: z.literal('range'),
      field: z.string().regex(/^[A-Za-z0-9_]{1,100}$/),
      min: z.number().finite().nullable().default(null),
      max: z.number().finite().nullable().default(null)
    })
    .refine((f) => f.min === null || f.max === null || f.min <= f.max, { message: 'min must not exceed max' })
])
export type FieldFilter = z.infer<typeof FieldFilter>

/**
 * Local search over the user's review annotations (docs/review.md). Each set field is one
 * more condition: status one of `statuses` ('new' also matches calls never annotated), every
 * tag in `tags`, in the review list, a note or none, total within [scoreMin, scoreMax],
 * scored with the scorecard, last changed by the reviewer, and every word of `noteText` in
 * the note (folded as the full-text index folds).
 */
export const ReviewFilter = z
  .object({
    statuses: z.array(ReviewStatus).max(4).default([]),
    tags: z.array(z.string().trim().min(1).max(60)).max(20).default([]),
    listId: z.string().min(1).max(100).nullable().default(null),
    hasNote: z.boolean().nullable().default(null),
    scoreMin: z.number().finite().nullable().default(null),
    scoreMax: z.number().finite().nullable().default(null),
    scorecardId: z.string().min(1).max(64).nullable().default(null),
    reviewer: z.string().min(1).max(320).nullable().default(null),
    noteText: z.string().max(200).default(''),
    /** true: calls the service no longer returns (docs/review.md); false: none of those. */
    serviceDropped: z.boolean().nullable().default(null),
    /**
     * The score range, scorecard and reviewer are met by any one evaluation of the call: this
     * workstation's or one pulled from the team cache (each with its author). Set by the
     * search itself on an account that shares review work; absent or false: this
     * workstation's annotations only.
     */
    team: z.boolean().optional()
  })
  .refine((f) => f.scoreMin === null || f.scoreMax === null || f.scoreMin <= f.scoreMax, {
    message: 'min must not exceed max',
    path: ['scoreMin']
  })
export type ReviewFilter = z.infer<typeof ReviewFilter>
export type ReviewFilterInput = z.input<typeof ReviewFilter>

export const SearchSort = z.enum(['date_desc', 'date_asc', 'relevance'])
export type SearchSort = z.infer<typeof SearchSort>

/**
 * One query object for local search, and (minus the text and analysis filters) remote
 * search. Dates are instants; the UI picks them in the display zone.
 * Locally, the scope filters (callTypes, direction, results, hasNewRequest) are answered
 * from scope membership: a call matches when a synced scope with those filters returned it.
 * Locally, results 'all' means "no filter"; absent means answered only, as for the service.
 */
export const SearchQuery = z
  .object({
    text: z.string().max(500).default(''),
    /** Inclusive. */
    from: EpochMs.nullable().default(null),
    /** Exclusive. */
    to: EpochMs.nullable().default(null),
    callTypes: z.array(z.string().min(1).max(200)).max(200).default([]),
    direction: z.number().int().nullable().default(null),
    results: ResultsFilter.default(DEFAULT_RESULTS),
    hasNewRequest: z.boolean().nullable().default(null),
    analysis: z.array(AnalysisFilter).max(20).default([]),
    /** Extra fields of the call record (agent, team, …): local only. */
    fields: z.array(FieldFilter).max(20).optional(),
    sort: SearchSort.default('date_desc'),
    /** Local only: the review annotations (the service knows nothing of them). */
    review: ReviewFilter.optional()
  })
  .refine((q) => q.from === null || q.to === null || q.from <= q.to, {
    message: 'The start of the range is after its end',
    path: ['from']
  })
export type SearchQuery = z.infer<typeof SearchQuery>
export type SearchQueryInput = z.input<typeof SearchQuery>

/**
 * What of a query no synced scope answers: the filters to sync (call type Values, `[]` for
 * any), whether with analysis, and the part of the range, `[from, to)`. from/to are null only
 * when the cache has no covered range at all to measure an open-ended query against.
 */
export const CoverageGap = z.object({
  callTypes: z.array(z.string()),
  direction: z.number().int().nullable(),
  results: ResultsFilter,
  hasNewRequest: z.boolean().nullable(),
  /** The query reads analysis items: only a scope synced with analysis answers it. */
  analysis: z.boolean(),
  from: EpochMs.nullable(),
  to: EpochMs.nullable()
})
export type CoverageGap = z.infer<typeof CoverageGap>

/**
 * Whether a local answer is the service's: complete when synced scopes (one, or the
 * intersection of several on their common coverage) answer every filter of the query over
 * its whole range (an open end: the span the scopes cover). docs/cache.md, "Coverage".
 */
/**
 * Why part of a query's range is not on this computer at all: the cache holds a window of a
 * team cache (docs/team.md, "Windows"), the calls dated from `windowStart` on. Other kinds
 * may follow (an answer from the team cache itself).
 */
export const CoverageNotice = z.object({
  kind: z.literal('outside-window'),
  /** Null for a window of chosen scopes over every date. */
  windowStart: EpochMs.nullable(),
  /** The window's length in days ("last 90 days"); null when it is being widened to everything. */
  days: z.number().int().positive().nullable(),
  /**
   * The worker scopes the window holds, when it holds chosen ones: a query whose filters no
   * held scope answers is outside it.
   */
  scopes: z.array(z.string()).optional()
})
export type CoverageNotice = z.infer<typeof CoverageNotice>

export const QueryCoverage = z.object({
  complete: z.boolean(),
  /** The range judged: the query's, open ends closed by the covered span. */
  from: EpochMs.nullable(),
  to: EpochMs.nullable(),
  missing: z.array(CoverageGap).max(200),
  /**
   * The range runs past what the cache holds ("up to now"): the answer is judged up to the
   * newest moment every filter of the query is synced, this instant. Null for a range that
   * ends inside it.
   */
  asOf: EpochMs.nullable().optional(),
  /** What the query asks for that this computer does not hold by design (its window). */
  notices: z.array(CoverageNotice).max(10).optional()
})
export type QueryCoverage = z.infer<typeof QueryCoverage>

export const SearchPage = z.object({
  offset: z.number().int().nonnegative(),
  rows: z.array(CallRow),
  /** The chosen columns' values for these rows, when columns were asked for. */
  cells: RowCells.optional()
})
export type SearchPage = z.infer<typeof SearchPage>

export const Facets = z.object({
  total: z.number().int().nonnegative(),
  perType: z.array(z.object({ value: z.string(), count: z.number().int() })),
  /** Day in the requested zone, YYYY-MM-DD. */
  perDay: z.array(z.object({ day: z.string(), count: z.number().int() })),
  /** Per value of the chosen analysis key; numeric keys come as ranges. */
  perValue: z.array(
    z.object({
      value: z.string(),
      min: z.number().nullable(),
      max: z.number().nullable(),
      count: z.number().int(),
      /** The last numeric range holds its max too: [min, max] instead of [min, max). */
      closed: z.boolean().optional()
    })
  )
})
export type Facets = z.infer<typeof Facets>

export const AnalysisKeyInfo = z.object({
  key: z.string(),
  friendlyName: z.string(),
  numeric: z.boolean(),
  calls: z.number().int()
})
export type AnalysisKeyInfo = z.infer<typeof AnalysisKeyInfo>

/**
 * What the analysis filter's value box offers for one key, counted over a result set: a text
 * key's values that exist (case and accent variants of one value counted together, as equals
 * compares them), most first; a numeric key's observed smallest and largest value.
 */
export const ValueSuggestions = z.object({
  key: z.string(),
  numeric: z.boolean(),
  /** Items of the key counted (a call may hold a key more than once). */
  items: z.number().int().nonnegative(),
  values: z.array(z.object({ value: z.string(), count: z.number().int().nonnegative() })).max(100),
  range: z.object({ min: z.number(), max: z.number() }).nullable()
})
export type ValueSuggestions = z.infer<typeof ValueSuggestions>

export const RemotePage = z.object({
  skip: z.number().int().nonnegative(),
  /** The take that was asked for after clamping to the service's bounds. */
  take: z.number().int().nonnegative(),
  records: z.array(CallRecord),
  /** From the envelope, when the service sent one. */
  totalCount: z.number().int().nonnegative().nullable(),
  /** The page was shortened by the 10,000 cap, not by the end of the results. */
  loweredByCap: z.boolean(),
  /** No more pages can be had: the end of the results, or the 10,000 window. */
  exhausted: z.boolean(),
  /** Records the client could not use (no callId or callDate). */
  malformed: z.number().int().nonnegative()
})
export type RemotePage = z.infer<typeof RemotePage>
