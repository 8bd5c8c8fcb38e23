import { z } from 'zod'
import { IANAZone } from 'luxon'
import { AppErrorInfo } from './errors'
import { TeamCacheSource } from './team'

/** A UTC instant in epoch milliseconds: unambiguous across IPC, zones and the database. */
export const EpochMs = z.number().int().min(0).max(8_640_000_000_000)
export type EpochMs = z.infer<typeof EpochMs>

export const IanaZone = z
  .string()
  .min(1)
  .refine((z) => IANAZone.isValidZone(z), { message: 'Not a known IANA time zone' })

/** The display zone may follow the operating system. */
export const DisplayZone = z.union([z.literal('system'), IanaZone])

// ---------------------------------------------------------------------------------------
// Call records
// ---------------------------------------------------------------------------------------

export const AnalysisItem = z.object({
  key: z.string(),
  friendlyName: z.string(),
  value: z.string()
})
export type AnalysisItem = z.infer<typeof AnalysisItem>

/** A call as cached: what the service sent, normalized, with unknown fields kept. */
export const CallRecord = z.object({
  callId: z.string().min(1),
  /** The call's instant, UTC epoch ms. */
  callAt: EpochMs,
  /** callDate exactly as the service served it. */
  callDate: z.string(),
  title: z.string(),
  summary: z.string(),
  analysis: z.array(AnalysisItem),
  /** Fields the app does not know, verbatim. */
  extra: z.record(z.string(), z.unknown()),
  firstSeenAt: EpochMs.optional(),
  lastChangedAt: EpochMs.optional()
})
export type CallRecord = z.infer<typeof CallRecord>

/** A call's review status (docs/review.md). */
export const REVIEW_STATUSES = ['new', 'in_review', 'reviewed', 'follow_up'] as const
export const ReviewStatus = z.enum(REVIEW_STATUSES)
export type ReviewStatus = z.infer<typeof ReviewStatus>

/** One row of a result table: light enough to page 100 at a time over IPC. */
export const CallRow = z.object({
  callId: z.string(),
  callAt: EpochMs,
  callDate: z.string(),
  title: z.string(),
  /** The start of the summary, at most SUMMARY_PREVIEW_CHARS characters. */
  summaryPreview: z.string(),
  analysisCount: z.number().int().nonnegative(),
  /** The call's review annotation, when it has one (docs/review.md). */
  review: z.object({ status: ReviewStatus, tags: z.array(z.string()), total: z.number().nullable() }).optional(),
  /** Names of the analysis keys whose items the query's terms found ("matched in"); absent when none. */
  matchedIn: z.array(z.string().max(300)).max(50).optional()
})
export type CallRow = z.infer<typeof CallRow>
export const SUMMARY_PREVIEW_CHARS = 240

/**
 * A column of the results list besides the fixed ones: the call type (from the single-type
 * scopes that returned the call), a field the service sends that the contract does not name
 * (`extra:agentName`, `extra:durationSeconds`), or an analysis key (`analysis:<key>`).
 */
export const ResultColumn = z
  .string()
  .max(210)
  .regex(/^(callType|extra:[A-Za-z0-9_]{1,100}|analysis:.{1,200})$/s, 'Not a known column')
export type ResultColumn = z.infer<typeof ResultColumn>

/** Sorting the results by a column: numbers numerically, text in Turkish collation; calls without a value last. */
export const ColumnSort = z.object({ column: ResultColumn, dir: z.enum(['asc', 'desc']) })
export type ColumnSort = z.infer<typeof ColumnSort>

/** A chosen column's value for one row: text, a number, or nothing. */
export const CellValue = z.union([z.string(), z.number(), z.null()])
export type CellValue = z.infer<typeof CellValue>

/** One page's rows with the chosen columns' values, by callId then column. */
export const RowCells = z.record(z.string(), z.record(z.string(), CellValue))
export type RowCells = z.infer<typeof RowCells>

/** A column the chooser can offer, with how it sorts. */
export const ColumnInfo = z.object({ column: ResultColumn, label: z.string(), numeric: z.boolean() })
export type ColumnInfo = z.infer<typeof ColumnInfo>

export const CallType = z.object({ value: z.string(), description: z.string() })
export type CallType = z.infer<typeof CallType>

// ---------------------------------------------------------------------------------------
// Filters shared by local search, remote search and sync scopes
// ---------------------------------------------------------------------------------------

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
    noteText: z.string().max(200).default('')
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
 * any) and the part of the range, `[from, to)`. from/to are null only when the cache has
 * no covered range at all to measure an open-ended query against.
 */
export const CoverageGap = z.object({
  callTypes: z.array(z.string()),
  direction: z.number().int().nullable(),
  results: ResultsFilter,
  hasNewRequest: z.boolean().nullable(),
  from: EpochMs.nullable(),
  to: EpochMs.nullable()
})
export type CoverageGap = z.infer<typeof CoverageGap>

/**
 * Whether a local answer is the service's: complete when synced scopes (one, or the
 * intersection of several on their common coverage) answer every filter of the query over
 * its whole range (an open end: the span the scopes cover). docs/cache.md, "Coverage".
 */
export const QueryCoverage = z.object({
  complete: z.boolean(),
  /** The range judged: the query's, open ends closed by the covered span. */
  from: EpochMs.nullable(),
  to: EpochMs.nullable(),
  missing: z.array(CoverageGap).max(200)
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
  perValue: z.array(z.object({ value: z.string(), min: z.number().nullable(), max: z.number().nullable(), count: z.number().int() }))
})
export type Facets = z.infer<typeof Facets>

export const AnalysisKeyInfo = z.object({
  key: z.string(),
  friendlyName: z.string(),
  numeric: z.boolean(),
  calls: z.number().int()
})
export type AnalysisKeyInfo = z.infer<typeof AnalysisKeyInfo>

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

// ---------------------------------------------------------------------------------------
// Sync
// ---------------------------------------------------------------------------------------

export const SyncScope = z
  .object({
    from: EpochMs,
    to: EpochMs,
    callTypes: z.array(z.string().min(1).max(200)).max(200).default([]),
    direction: z.number().int().nullable().default(null),
    results: ResultsFilter.default(DEFAULT_RESULTS),
    hasNewRequest: z.boolean().nullable().default(null),
    includeAnalysis: z.boolean().default(true)
  })
  .refine((s) => s.from < s.to, { message: 'The start of the range must be before its end', path: ['from'] })
export type SyncScope = z.infer<typeof SyncScope>
export type SyncScopeInput = z.input<typeof SyncScope>

/**
 * Which end of the range a sync fetches first: newest (the default, so a cancelled run leaves
 * the latest calls in the cache) or oldest.
 */
export const SyncOrder = z.enum(['newest', 'oldest'])
export type SyncOrder = z.infer<typeof SyncOrder>

export const SyncPhase = z.enum(['planning', 'fetching', 'waiting', 'done', 'failed', 'cancelled'])
export type SyncPhase = z.infer<typeof SyncPhase>

/** The pace of the tenant's requests against its configured limit (issue 12). */
export const SyncPace = z.object({
  /** Requests per minute the tenant's limiter lets go now (0 while the service holds us). */
  perMinute: z.number().nonnegative(),
  /** The configured limit, in requests per minute. */
  limitPerMinute: z.number().positive(),
  /** The service answered 429 lately and the pace has not climbed back to the limit yet. */
  throttled: z.boolean()
})
export type SyncPace = z.infer<typeof SyncPace>

export const SyncProgress = z.object({
  runId: z.string(),
  phase: SyncPhase,
  /** Records written to the cache by this run. */
  stored: z.number().int().nonnegative(),
  requests: z.number().int().nonnegative(),
  windowsDone: z.number().int().nonnegative(),
  /** How far through the range the run is, as an instant (moving back from `to` when newest first). */
  position: EpochMs.nullable(),
  from: EpochMs,
  to: EpochMs,
  /** The order the pass fetches in; absent means oldest first (runs stored before the option). */
  order: SyncOrder.optional(),
  requestsPerMinute: z.number().nonnegative(),
  recordsPerSecond: z.number().nonnegative(),
  /** Follows from the tenant's rate limit; null until it can be estimated. */
  etaSeconds: z.number().nonnegative().nullable(),
  /** While waiting on the rate limiter or a Retry-After. */
  waitSeconds: z.number().nonnegative().nullable(),
  /** Absent when the run has no limiter to ask (a pull from a team cache). */
  pace: SyncPace.optional(),
  warnings: z.array(z.string()),
  error: AppErrorInfo.optional()
})
export type SyncProgress = z.infer<typeof SyncProgress>

export const SyncOutcome = z.enum(['running', 'done', 'failed', 'cancelled', 'interrupted'])
export type SyncOutcome = z.infer<typeof SyncOutcome>

export const ScopeStatus = z.object({
  scopeKey: z.string(),
  /** The filters that define the scope (the range is its coverage). */
  filters: z.object({
    callTypes: z.array(z.string()),
    direction: z.number().int().nullable(),
    results: ResultsFilter,
    hasNewRequest: z.boolean().nullable(),
    includeAnalysis: z.boolean()
  }),
  coveredFrom: EpochMs.nullable(),
  coveredTo: EpochMs.nullable(),
  lastSuccessAt: EpochMs.nullable(),
  lastOutcome: SyncOutcome.nullable(),
  calls: z.number().int().nonnegative()
})
export type ScopeStatus = z.infer<typeof ScopeStatus>

// ---------------------------------------------------------------------------------------
// Accounts, session, settings
// ---------------------------------------------------------------------------------------

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1'])

/** https everywhere, plain http only for loopback (the demo and local test services). */
export function isAllowedBaseUrl(raw: string): boolean {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return false
  }
  if (url.username || url.password || url.search || url.hash) return false
  if (url.protocol === 'https:') return true
  const host = url.hostname.toLowerCase()
  return url.protocol === 'http:' && (LOOPBACK_HOSTS.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host))
}

export const BaseUrl = z
  .string()
  .trim()
  .max(2048)
  .refine(isAllowedBaseUrl, { message: 'Use an https:// address (plain http only for this computer)' })
  .transform((s) => s.replace(/\/+$/, ''))

export const RateLimit = z.object({
  requests: z.number().int().min(1).max(1_000_000),
  perSeconds: z.number().int().min(1).max(86_400)
})
export type RateLimit = z.infer<typeof RateLimit>
export { DEFAULT_RATE_LIMIT } from './service-limits'

export const Account = z.object({
  id: z.string().min(1).max(100),
  label: z.string().max(200),
  baseUrl: BaseUrl,
  username: z.string().min(1).max(320),
  /** The zone the service reads sent dates in and converts callDate to. */
  zone: IanaZone,
  rateLimit: RateLimit,
  demo: z.boolean().default(false),
  /** Calls come from the team cache (docs/team.md) instead of syncing from the service. */
  teamCache: TeamCacheSource.optional()
})
export type Account = z.infer<typeof Account>

export const SessionStatus = z.enum(['signedOut', 'signedIn', 'refreshing', 'reloginRequired'])
export type SessionStatus = z.infer<typeof SessionStatus>

export const SessionState = z.object({
  status: SessionStatus,
  account: Account.nullable(),
  /** Whether tokens survive a restart (false with no real OS keyring). */
  tokensPersisted: z.boolean(),
  /** Why the user will have to sign in again, when that is so. */
  notice: z.string().nullable()
})
export type SessionState = z.infer<typeof SessionState>

export const SignInRequest = z.object({
  baseUrl: BaseUrl,
  username: z.string().trim().min(1).max(320),
  password: z.string().min(1).max(1024),
  zone: IanaZone.optional(),
  rateLimit: RateLimit.optional()
})
export type SignInRequest = z.infer<typeof SignInRequest>

export const ExportFormat = z.enum(['csv', 'xlsx', 'json', 'ndjson'])
export type ExportFormat = z.infer<typeof ExportFormat>
/** `review`: the call's annotation (status, tags, note, score…; docs/review.md). */
export const ExportColumn = z.enum(['callId', 'callDate', 'title', 'summary', 'analysis', 'review'])
export type ExportColumn = z.infer<typeof ExportColumn>
export const AnalysisLayout = z.enum(['wide', 'long'])
export type AnalysisLayout = z.infer<typeof AnalysisLayout>

export const SavedSearch = z.object({
  id: z.string().min(1).max(100),
  name: z.string().trim().min(1).max(200),
  /**
   * "Last N days", kept relative: the query's from/to are then null in storage and the
   * range is read anew, up to the end of today, each time the search is applied.
   */
  relativeDays: z.number().int().min(1).max(3660).optional(),
  query: SearchQuery,
  createdAt: EpochMs
})
export type SavedSearch = z.infer<typeof SavedSearch>

export const Settings = z.object({
  accounts: z.array(Account).default([]),
  activeAccountId: z.string().nullable().default(null),
  displayZone: DisplayZone.default('system'),
  language: z.enum(['system', 'tr', 'en']).default('system'),
  theme: z.enum(['system', 'light', 'dark']).default('system'),
  sync: z
    .object({
      lookbackHours: z
        .number()
        .int()
        .min(0)
        .max(24 * 60)
        .default(48),
      includeAnalysis: z.boolean().default(true),
      results: z.enum(['answered', 'all']).default('answered'),
      presetDays: z.number().int().min(1).max(3660).default(30),
      /** Which end of the range a sync fetches first. */
      order: SyncOrder.default('newest')
    })
    .default({ lookbackHours: 48, includeAnalysis: true, results: 'answered', presetDays: 30, order: 'newest' }),
  export: z
    .object({
      format: ExportFormat.default('xlsx'),
      columns: z.array(ExportColumn).min(1).default(['callId', 'callDate', 'title', 'summary', 'analysis']),
      analysisLayout: AnalysisLayout.default('wide'),
      /** Write headers in English whatever the UI language, for tools that match them by name. */
      englishHeaders: z.boolean().default(false)
    })
    .default({
      format: 'xlsx',
      columns: ['callId', 'callDate', 'title', 'summary', 'analysis'],
      analysisLayout: 'wide',
      englishHeaders: false
    }),
  savedSearches: z.array(SavedSearch).max(500).default([]),
  /** The results list's chosen columns, per account id. */
  resultColumns: z.record(z.string(), z.array(ResultColumn).max(30)).default({})
})
export type Settings = z.infer<typeof Settings>

/** What the renderer may change directly. Accounts come from signing in. */
export const SettingsPatch = z.object({
  displayZone: DisplayZone.optional(),
  language: z.enum(['system', 'tr', 'en']).optional(),
  theme: z.enum(['system', 'light', 'dark']).optional(),
  sync: Settings.shape.sync.unwrap().partial().optional(),
  export: Settings.shape.export.unwrap().partial().optional(),
  account: z
    .object({ id: z.string().min(1), label: z.string().max(200).optional(), zone: IanaZone.optional(), rateLimit: RateLimit.optional() })
    .optional(),
  /** One account's chosen result columns. */
  resultColumns: z.object({ accountId: z.string().min(1).max(100), columns: z.array(ResultColumn).max(30) }).optional()
})
export type SettingsPatch = z.infer<typeof SettingsPatch>

// ---------------------------------------------------------------------------------------
// Export
// ---------------------------------------------------------------------------------------

/** Inclusive [first, last] offsets into a query's results, in its order. */
export const OffsetRange = z
  .tuple([z.number().int().min(0).max(100_000_000), z.number().int().min(0).max(100_000_000)])
  .refine(([first, last]) => first <= last, { message: 'A range must not end before it starts' })
export type OffsetRange = z.infer<typeof OffsetRange>

export const ExportSelection = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('ids'), ids: z.array(z.string().min(1).max(200)).min(1).max(1_000_000) }),
  z.object({ kind: z.literal('query'), query: SearchQuery }),
  /** A hand selection over a query's results, as the renderer holds it: core walks the ranges. */
  z.object({ kind: z.literal('ranges'), query: SearchQuery, ranges: z.array(OffsetRange).min(1).max(100_000) })
])
export type ExportSelection = z.infer<typeof ExportSelection>

/** The language an export writes its own words in (headers, metadata sheet). */
export const HeaderLanguage = z.enum(['en', 'tr'])
export type HeaderLanguage = z.infer<typeof HeaderLanguage>

export const ExportRequest = z.object({
  selection: ExportSelection,
  format: ExportFormat,
  columns: z.array(ExportColumn).min(1),
  analysisLayout: AnalysisLayout.default('wide'),
  headerLanguage: HeaderLanguage.default('en'),
  /** Zone for callDate cells; the display zone when absent. */
  zone: IanaZone.optional()
})
export type ExportRequest = z.infer<typeof ExportRequest>

/**
 * Browser mode (`callsight serve`): the finished export is fetched once from this same-origin
 * path and saved by the browser, so the page never names a path on the computer.
 */
export const ExportDownload = z.object({
  url: z.string().regex(/^\/downloads\/[A-Za-z0-9_-]{16,128}$/),
  name: z.string().min(1).max(255)
})
export type ExportDownload = z.infer<typeof ExportDownload>

export const ExportProgress = z.object({
  exportId: z.string(),
  phase: z.enum(['writing', 'done', 'failed', 'cancelled']),
  written: z.number().int().nonnegative(),
  total: z.number().int().nonnegative(),
  /** The final file, once done. */
  file: z.string().nullable(),
  /** Browser mode, once done: where the page downloads the file from. */
  download: ExportDownload.optional(),
  error: AppErrorInfo.optional()
})
export type ExportProgress = z.infer<typeof ExportProgress>

export const CacheInfo = z.object({
  path: z.string().nullable(),
  sizeBytes: z.number().int().nonnegative(),
  calls: z.number().int().nonnegative(),
  lastSyncAt: EpochMs.nullable()
})
export type CacheInfo = z.infer<typeof CacheInfo>

export const AppInfo = z.object({
  version: z.string(),
  electron: z.string().nullable(),
  platform: z.string(),
  /** The OS locale, e.g. "tr-TR". */
  locale: z.string(),
  systemZone: z.string(),
  darkMode: z.boolean()
})
export type AppInfo = z.infer<typeof AppInfo>
