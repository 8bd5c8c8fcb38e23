/** Sync scopes, progress and status. */
import { z } from 'zod'
import { AppErrorInfo } from '../errors'
import { DEFAULT_RESULTS, ResultsFilter } from './search'
import { EpochMs } from './time'

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

/** A run in one of these phases has ended: nothing more will come of it. */
export function syncEnded(phase: SyncPhase): boolean {
  return phase === 'done' || phase === 'failed' || phase === 'cancelled'
}

/** The pace of the tenant's requests against its configured limit, shared by every client of the tenant. */
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
  error: AppErrorInfo.optional(),
  /** What the pass has left to fetch (a cancelled run's "Continue" says it); absent until it can be estimated. */
  remaining: z.object({ calls: z.number().int().nonnegative(), requests: z.number().int().nonnegative() }).optional(),
  /** How long the run has taken (to its end once finished); absent in progress from before it was reported. */
  elapsedSeconds: z.number().nonnegative().optional()
})
export type SyncProgress = z.infer<typeof SyncProgress>

/** A run's progress before its first event (the app and the screen both show it at once). */
export function planningProgress(runId: string, from: number, to: number): SyncProgress {
  return {
    runId,
    phase: 'planning',
    stored: 0,
    requests: 0,
    windowsDone: 0,
    position: null,
    from,
    to,
    requestsPerMinute: 0,
    recordsPerSecond: 0,
    etaSeconds: null,
    waitSeconds: null,
    warnings: []
  }
}

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
  calls: z.number().int().nonnegative(),
  /**
   * A scope whose first pass was stopped has no coverage yet; the stretch its checkpoint
   * says is stored (from its end back to where it stopped, newest first) is shown instead.
   */
  partialFrom: EpochMs.nullable().optional(),
  partialTo: EpochMs.nullable().optional()
})
export type ScopeStatus = z.infer<typeof ScopeStatus>

/**
 * The range and filters of the account's latest run, as the user chose them: the sync screen's
 * form starts from it, so coming back after a cancel offers the run to continue, not a default.
 */
export const LastRunScope = z.object({
  from: EpochMs,
  to: EpochMs,
  filters: ScopeStatus.shape.filters
})
export type LastRunScope = z.infer<typeof LastRunScope>
