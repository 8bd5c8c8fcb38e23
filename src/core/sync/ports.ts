import type { CallRecord, RateLimit } from '../../shared/domain'
import type { GetCallsParams } from '../client'
import type { CallCache } from '../cache'
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

/** The part of the cache the engine writes through. */
export type SyncStore = Pick<
  CallCache,
  | 'ensureScope'
  | 'getCheckpoint'
  | 'setCheckpoint'
  | 'writePages'
  | 'addCoverage'
  | 'coverage'
  | 'markScopeSuccess'
  | 'startRun'
  | 'finishRun'
  | 'callTypes'
  | 'upsertCallTypes'
  | 'optimizeIndex'
>

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
}
