import type { CallRecord, CallType, RateLimit, SyncOutcome, SyncPace } from '../../shared/domain'
import type { AppErrorInfo } from '../../shared/errors'
import type { GetCallsParams } from '../client'
import type { ScopeFilters, WritePageInput } from '../cache'
import type { Clock, Logger } from '../platform'

/**
 * What the engine asks the service client for: one page of get-calls, the client's own
 * parameters (range in epoch ms, `to` exclusive). Session.getCalls satisfies SyncSource.
 */
export type SyncPageRequest = GetCallsParams

export interface SyncPage {
  records: CallRecord[]
  /** From the envelope when the service sent one. */
  totalCount: number | null
  /** Records the client could not use; they still took a position in the page. */
  malformed: ReadonlyArray<{ index: number; reason: string }>
  /** Items in the response, usable or not: what advances skip. */
  returned: number
}

export interface SyncSource {
  getCalls(params: SyncPageRequest, signal?: AbortSignal): Promise<SyncPage>
}

type Awaitable<T> = T | Promise<T>

/**
 * Where the engine writes: the SQLite cache (CallCache, synchronous) or the team cache on
 * PostgreSQL (asynchronous). Every method may return a promise; the engine awaits each one,
 * so a synchronous store costs a microtask and nothing else.
 */
export interface SyncStore {
  ensureScope(scopeKey: string, filters: ScopeFilters): Awaitable<void>
  getCheckpoint(scopeKey: string): Awaitable<unknown>
  setCheckpoint(scopeKey: string, checkpoint: unknown): Awaitable<void>
  /** Each page's records, membership, checkpoint and run counts; all pages in one transaction. */
  writePages(inputs: readonly WritePageInput[]): Awaitable<unknown>
  addCoverage(scopeKey: string, from: number, to: number): Awaitable<void>
  coverage(scopeKey: string): Awaitable<Array<[number, number]>>
  markScopeSuccess(scopeKey: string, at: number): Awaitable<void>
  /** Records a run; under `runId` when given (the app reports progress under it before it starts). */
  startRun(scopeKey: string, params: unknown, runId?: string): Awaitable<string>
  finishRun(runId: string, outcome: SyncOutcome, counts: { stored: number; requests: number }, error?: AppErrorInfo): Awaitable<void>
  callTypes(): Awaitable<CallType[]>
  upsertCallTypes(list: readonly CallType[]): Awaitable<void>
  /**
   * Housekeeping after a run that stored `written` calls (SQLite merges its full-text index:
   * whole after a run that wrote a large share of it, else only its small segments).
   */
  settleIndex(written: number): Awaitable<void>
  /**
   * After a whole pass over [from, to) of a scope: annotated member calls the pass did not
   * return are marked dropped by the service (docs/review.md). Only stores with annotations.
   */
  markServiceDropped?(scopeKey: string, from: number, to: number, seen: ReadonlySet<string>, at: number): Awaitable<unknown>
  /** Whether any call is annotated: without annotations a pass keeps no set of the ids it saw. */
  hasAnnotations?(): Awaitable<boolean>
}

/** Something that reports how long the next request must wait (the tenant limiter's onWait). */
export interface WaitSource {
  subscribe(listener: (waitMs: number) => void): () => void
}

export interface SyncEngineDeps {
  source: SyncSource
  cache: SyncStore
  clock: Clock
  logger: Logger
  /** The tenant's limit: the ETA follows from it. */
  rateLimit: RateLimit
  /** Incremental runs re-fetch this much before the covered end; default 48. */
  lookbackHours?: number
  waits?: WaitSource
  /** The tenant limiter's pace now, for the progress. */
  pace?: () => SyncPace
}
