import { z } from 'zod'
import {
  AccountEntry,
  AnalysisKeyInfo,
  AppInfo,
  Breakdown,
  CacheInfo,
  CallRecord,
  CallType,
  EpochMs,
  MembershipEstimate,
  MembershipProgress,
  LastRunScope,
  QueryCoverage,
  ColumnInfo,
  ColumnSort,
  ExportProgress,
  ExportDownload,
  ExportRequest,
  Facets,
  ValueSuggestions,
  IanaZone,
  RemotePage,
  ResultColumn,
  SavedSearch,
  ScopeStatus,
  SearchPage,
  TeamCount,
  TeamCountMode,
  SearchQuery,
  SessionState,
  Settings,
  SettingsPatch,
  SignInRequest,
  SyncProgress,
  SyncScope,
  Trend,
  TrendBucket,
  TrendMeasure
} from '../domain'
import type { Result } from '../errors'
import { MAX_TAKE, SERVICE_WINDOW } from '../service-limits'
import { ReviewQueue, TeamCacheSource, TeamPullProgress, TeamSchedule, TeamStatus, TeamWindow } from '../team'
import {
  Annotation,
  AnnotationPatch,
  Answers,
  ListSource,
  ReviewListInfo,
  ReviewListItem,
  ReviewStats,
  Scorecard,
  ScorecardDefinition
} from '../review'
import {
  AssignmentProgress,
  CalibrationCreate,
  CalibrationInfo,
  CalibrationView,
  LeadStats,
  MyAssignments,
  ReviewerName,
  SpreadRequest
} from '../review-team'
import type { ChannelName, EventName } from './names'

const Empty = z.object({}).strict()
const Ok = z.object({ ok: z.literal(true) })
const CallIdRequest = z.object({ callId: z.string().min(1).max(200) }).strict()
const ListId = z.string().min(1).max(100)
const ListName = z.string().trim().min(1).max(200)
const CallIds = z.array(z.string().min(1).max(200)).min(1).max(100_000)

/** Every request/response pair the renderer can invoke. Requests are validated in main. */
export const contract = {
  'app.info': { request: Empty, response: AppInfo },
  'session.get': { request: Empty, response: SessionState },
  'session.signIn': { request: SignInRequest, response: SessionState },
  'session.startDemo': { request: Empty, response: SessionState },
  'session.signOut': { request: z.object({ forget: z.boolean().default(false) }).strict(), response: SessionState },
  'settings.get': { request: Empty, response: Settings },
  'settings.update': { request: SettingsPatch, response: Settings },
  'accounts.remove': { request: z.object({ id: z.string().min(1) }).strict(), response: Settings },
  /** The accounts set up here, the active one marked; tokens stay in main. */
  'accounts.list': { request: Empty, response: z.object({ accounts: z.array(AccountEntry) }) },
  /**
   * Makes another account active without signing any out: its own cache opens, the one left
   * closes, and a sync or team pull of the account left is cancelled (docs/shell.md).
   */
  'accounts.switch': { request: z.object({ id: z.string().min(1).max(100) }).strict(), response: SessionState },
  'catalog.callTypes': { request: Empty, response: z.array(CallType) },
  /** A catalog file's text (JSON or CSV of {Value, Description}), read by the renderer from a file the user picked. */
  'catalog.import': {
    request: z.object({ name: z.string().max(260), text: z.string().max(2_000_000) }).strict(),
    response: z.object({ added: z.number().int(), updated: z.number().int(), merged: z.number().int(), types: z.array(CallType) })
  },
  /** Settings' edited catalog, the whole list. */
  'catalog.save': {
    request: z
      .object({ types: z.array(z.object({ value: z.string().trim().min(1).max(200), description: z.string().trim().max(200) })).max(1000) })
      .strict(),
    response: z.array(CallType)
  },
  'sync.start': {
    request: z.object({ scope: SyncScope, mode: z.enum(['full', 'incremental']).default('incremental') }).strict(),
    response: z.object({ runId: z.string() })
  },
  'sync.cancel': { request: z.object({ runId: z.string().min(1) }).strict(), response: Ok },
  'sync.scopes': {
    request: Empty,
    response: z.object({
      scopes: z.array(ScopeStatus),
      active: SyncProgress.nullable(),
      /** The active account's latest run, running or finished (the sync screen's panel), also from before a restart; null before one. */
      last: SyncProgress.nullable(),
      /** The range and filters of the active account's latest run; null before one. */
      lastScope: LastRunScope.nullable().optional()
    })
  },
  /** Membership passes over a range a sync of everything holds: the estimate before, then the run. */
  'sync.membershipEstimate': {
    request: z.object({ from: EpochMs, to: EpochMs }).strict(),
    response: z.object({
      estimate: MembershipEstimate,
      /** A sync of everything (all types, all results, no other filter) holds the range's calls. */
      cached: z.boolean()
    })
  },
  'sync.memberships': {
    request: z.object({ from: EpochMs, to: EpochMs, mode: z.enum(['full', 'incremental']).default('incremental') }).strict(),
    response: z.object({ runId: z.string() })
  },
  'search.page': {
    request: z
      .object({
        query: SearchQuery,
        offset: z.number().int().min(0).max(100_000_000),
        limit: z.number().int().min(1).max(500),
        /** Sort by a chosen column instead of the query's own order. */
        sortBy: ColumnSort.nullable().default(null),
        /** The chosen columns whose values the rows should carry. */
        columns: z.array(ResultColumn).max(30).default([])
      })
      .strict(),
    response: SearchPage
  },
  /** The total, and whether synced scopes answer the whole query (the banner over the results). */
  'search.count': {
    request: z.object({ query: SearchQuery }).strict(),
    response: z.object({ total: z.number().int(), coverage: QueryCoverage })
  },
  'search.columns': { request: Empty, response: z.array(ColumnInfo) },
  'search.facets': {
    request: z
      .object({ query: SearchQuery, analysisKey: z.string().min(1).max(200).nullable().default(null), zone: IanaZone.optional() })
      .strict(),
    response: Facets
  },
  'search.analysisKeys': { request: Empty, response: z.array(AnalysisKeyInfo) },
  /** Insight: the query's calls per value of a column (agent, team, type, any analysis key). */
  'insight.breakdown': {
    request: z.object({ query: SearchQuery, column: ResultColumn }).strict(),
    response: Breakdown
  },
  /** Insight: a column over time, the mean of a numeric one or the share of one value, per day or week. */
  'insight.trend': {
    request: z
      .object({ query: SearchQuery, column: ResultColumn, measure: TrendMeasure, bucket: TrendBucket, zone: IanaZone.optional() })
      .strict(),
    response: Trend
  },
  'search.values': {
    request: z.object({ query: SearchQuery, key: z.string().min(1).max(200), contains: z.string().max(200).optional() }).strict(),
    response: ValueSuggestions
  },
  'calls.get': { request: z.object({ callId: z.string().min(1).max(200) }).strict(), response: CallRecord.nullable() },
  'remote.search': {
    request: z
      .object({
        query: SearchQuery,
        skip: z.number().int().min(0).max(SERVICE_WINDOW),
        take: z.number().int().min(1).max(MAX_TAKE),
        includeAnalysis: z.boolean().default(false)
      })
      .strict(),
    response: RemotePage
  },
  'savedSearches.save': {
    request: z
      .object({
        name: z.string().trim().min(1).max(200),
        query: SearchQuery,
        relativeDays: z.number().int().min(1).max(3660).optional(),
        id: z.string().optional()
      })
      .strict(),
    response: z.array(SavedSearch)
  },
  'savedSearches.remove': { request: z.object({ id: z.string().min(1) }).strict(), response: z.array(SavedSearch) },
  'export.start': {
    request: ExportRequest,
    response: z.discriminatedUnion('started', [
      z.object({
        started: z.literal(true),
        exportId: z.string(),
        file: z.string(),
        /** Browser mode, a CSV: the download to start now; the browser receives the file while it is written. */
        download: ExportDownload.optional()
      }),
      z.object({ started: z.literal(false) })
    ])
  },
  'export.cancel': { request: z.object({ exportId: z.string().min(1) }).strict(), response: Ok },
  /** Desktop: a finished export opened, or shown in its folder. Only a file this run exported. */
  'export.reveal': { request: z.object({ exportId: z.string().min(1).max(100), how: z.enum(['open', 'folder']) }).strict(), response: Ok },
  'cache.info': { request: Empty, response: CacheInfo },
  'cache.clear': {
    // Annotations and review lists are the user's work: kept unless asked otherwise.
    request: z.object({ keepAnnotations: z.boolean().default(true) }).strict(),
    response: CacheInfo
  },
  'shell.openExternal': { request: z.object({ url: z.string().url().max(4096) }).strict(), response: Ok },
  // The team cache (docs/team.md): an account whose calls are pulled from PostgreSQL.
  'team.connect': {
    request: z
      .object({
        team: TeamCacheSource,
        password: z.string().min(1).max(1024),
        baseUrl: SignInRequest.shape.baseUrl,
        username: SignInRequest.shape.username,
        zone: IanaZone.optional()
      })
      .strict(),
    response: SessionState
  },
  'team.pull': { request: Empty, response: z.object({ runId: z.string() }) },
  'team.cancel': { request: z.object({ runId: z.string().min(1) }).strict(), response: Ok },
  'team.status': { request: Empty, response: TeamStatus },
  /** Holds this window of the team cache from now on and pulls (drops what left it, fetches what it gained). */
  'team.window': { request: TeamWindow.strict(), response: z.object({ runId: z.string() }) },
  /**
   * The query answered by the team cache in place (read-only, as this account's team login),
   * for calls this workstation does not hold: a page, newest or oldest first, and the count
   * when asked: `estimate` (a sample, quick) then `exact` (within its budget, else still an
   * estimate). Relevance order, review and record-field filters are refused there.
   */
  'team.search': {
    request: z
      .object({
        query: SearchQuery,
        offset: z.number().int().min(0).max(100_000_000),
        limit: z.number().int().min(1).max(500),
        count: TeamCountMode.nullable().default(null)
      })
      .strict(),
    response: z.object({ page: SearchPage, total: TeamCount.nullable(), unindexed: z.boolean() })
  },
  /** One call of the team cache, masked, for the detail pane; null when it has none. */
  'team.call': { request: CallIdRequest, response: CallRecord.nullable() },
  // Review (docs/review.md): annotations, scorecards, review lists.
  'annotations.get': { request: CallIdRequest, response: Annotation.nullable() },
  'annotations.save': { request: AnnotationPatch, response: Annotation },
  /** Undoes the latest change of one call (or of any, callId null). */
  'annotations.undo': { request: z.object({ callId: z.string().min(1).max(200).nullable() }).strict(), response: Annotation.nullable() },
  'annotations.tags': { request: Empty, response: z.array(z.object({ tag: z.string(), count: z.number().int() })) },
  /** A person resolves a conflict of a team field: the conflicting change's value ('mine') or the team's ('theirs'). */
  'annotations.resolveConflict': {
    request: z.object({ conflictId: z.string().min(1).max(100), choice: z.enum(['mine', 'theirs']) }).strict(),
    response: Annotation
  },
  'scorecards.list': { request: Empty, response: z.array(Scorecard) },
  'scorecards.save': {
    request: z.object({ id: z.string().min(1).max(64).optional(), definition: ScorecardDefinition }).strict(),
    response: Scorecard
  },
  'scorecards.import': { request: z.object({ json: z.string().min(1).max(1_000_000) }).strict(), response: z.array(Scorecard) },
  'scorecards.export': {
    request: z.object({ ids: z.array(z.string().min(1).max(64)).max(200).optional() }).strict(),
    response: z.object({ json: z.string() })
  },
  'reviewLists.list': { request: Empty, response: z.array(ReviewListInfo) },
  'reviewLists.create': { request: z.object({ name: ListName, source: ListSource }).strict(), response: ReviewListInfo },
  'reviewLists.add': { request: z.object({ id: ListId, callIds: CallIds }).strict(), response: ReviewListInfo },
  'reviewLists.removeCalls': { request: z.object({ id: ListId, callIds: CallIds }).strict(), response: ReviewListInfo },
  'reviewLists.delete': { request: z.object({ id: ListId }).strict(), response: Ok },
  'reviewLists.items': {
    request: z.object({ id: ListId, offset: z.number().int().min(0).max(1_000_000), limit: z.number().int().min(1).max(1000) }).strict(),
    response: z.object({ list: ReviewListInfo, items: z.array(ReviewListItem) })
  },
  'reviewLists.nextUnreviewed': {
    request: z.object({ id: ListId, index: z.number().int().min(-1).max(1_000_000) }).strict(),
    response: ReviewListItem.nullable()
  },
  'review.stats': { request: z.object({ zone: IanaZone.optional() }).strict(), response: ReviewStats },
  // Team review (docs/review.md): assignments, calibration, the lead's view.
  'review.reviewer': { request: Empty, response: z.object({ reviewer: z.string() }) },
  'review.leadStats': { request: z.object({ zone: IanaZone.optional() }).strict(), response: LeadStats },
  'assignments.assign': {
    request: z.object({ listId: ListId, callIds: CallIds, reviewer: ReviewerName }).strict(),
    response: z.object({ changed: z.number().int() })
  },
  'assignments.spread': {
    request: SpreadRequest.strict(),
    response: z.array(z.object({ reviewer: z.string(), count: z.number().int() }))
  },
  'assignments.unassign': {
    request: z.object({ listId: ListId, callIds: CallIds }).strict(),
    response: z.object({ changed: z.number().int() })
  },
  'assignments.ofList': {
    request: z.object({ listId: ListId }).strict(),
    response: z.array(z.object({ callId: z.string(), reviewer: z.string().nullable() }))
  },
  'assignments.mine': { request: Empty, response: MyAssignments },
  'assignments.progress': { request: Empty, response: AssignmentProgress },
  'calibration.list': { request: Empty, response: z.array(CalibrationInfo) },
  'calibration.create': { request: CalibrationCreate.strict(), response: CalibrationInfo },
  'calibration.get': { request: z.object({ id: ListId }).strict(), response: CalibrationView },
  'calibration.answer': {
    request: z.object({ id: ListId, callId: z.string().min(1).max(200), answers: Answers }).strict(),
    response: CalibrationView
  },
  'calibration.submit': { request: z.object({ id: ListId }).strict(), response: CalibrationView },
  'calibration.reference': {
    request: z.object({ id: ListId, callId: z.string().min(1).max(200), answers: Answers }).strict(),
    response: CalibrationView
  },
  'calibration.delete': { request: z.object({ id: ListId }).strict(), response: Ok }
} as const satisfies Record<ChannelName, { request: z.ZodType; response: z.ZodType }>

export const MenuCommand = z.enum([
  'focusSearch',
  'openSearch',
  'openSync',
  'openReview',
  'openInsight',
  'openSettings',
  'exportSelection',
  'selectAll',
  'showShortcuts'
])
export type MenuCommand = z.infer<typeof MenuCommand>

/** Every event main sends to the renderer. */
export const events = {
  'session.changed': SessionState,
  'sync.progress': SyncProgress,
  'connectivity.changed': z.object({ online: z.boolean(), checkedAt: z.number().int() }),
  'export.progress': ExportProgress,
  'menu.command': z.object({ command: MenuCommand }),
  'theme.changed': z.object({ dark: z.boolean() }),
  'team.progress': TeamPullProgress,
  'team.schedule': TeamSchedule,
  'review.queue': ReviewQueue,
  'sync.membershipProgress': MembershipProgress.extend({ runId: z.string() }),
  /** A live search waits for the service's limit: the seconds left, null when the wait is over. */
  'search.rateWait': z.object({ secondsLeft: z.number().int().min(0).nullable() })
} as const satisfies Record<EventName, z.ZodType>

export type Contract = typeof contract
export type Request<C extends ChannelName> = z.input<Contract[C]['request']>
export type ParsedRequest<C extends ChannelName> = z.output<Contract[C]['request']>
export type Response<C extends ChannelName> = z.output<Contract[C]['response']>
export type EventPayload<E extends EventName> = z.output<(typeof events)[E]>

/** What the preload exposes as window.api: one method per channel, plus event listening. */
export type CallsightApi = {
  invoke<C extends ChannelName>(channel: C, request: Request<C>): Promise<Result<Response<C>>>
  on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void
}
