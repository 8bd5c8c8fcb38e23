import type { CallType, ScopeStatus, SyncOutcome, SyncProgress } from '../../shared/domain'
import type { AppErrorInfo } from '../../shared/errors'
import type { SyncStore } from '../sync/ports'
import type { PageCounts } from './ingest/ingest'
import type { ReviewStores } from './review/review-stores'
import type { SyncRuns, SyncRunInfo } from './sync-state/sync-runs'
import type { ScopeFilters, SyncScopes } from './sync-state/sync-scopes'
import type { WritePageInput } from './call-cache'

/** What the cache gives its sync-store facet: its scope and run tables, its writes and reads. */
export interface CacheSyncHost {
  scopeRows: SyncScopes
  runs: SyncRuns
  review: ReviewStores
  now(): number
  /** Counts a write search must follow (coverage, read once per data version). */
  wrote(): void
  ensureScope(scopeKey: string, filters: ScopeFilters): void
  writePages(inputs: readonly WritePageInput[]): PageCounts[]
  coverage(scopeKey: string): Array<[number, number]>
  callTypes(): CallType[]
  upsertCallTypes(list: readonly CallType[]): void
  settleIndex(written: number): unknown
}

/**
 * `cache.sync`: the sync engine's store port (SyncStore, src/core/sync/ports.ts) on this
 * cache. It owns what only a sync writes and reads — each scope's checkpoint and coverage
 * marks, the runs and their saved progress, the service-dropped mark after a whole pass —
 * and passes the cache's own writes (pages, scopes, the catalog, the index merge) through,
 * since pulls, the CLI and search use those too.
 */
export class CacheSyncStore implements SyncStore {
  constructor(private readonly host: CacheSyncHost) {}

  ensureScope(scopeKey: string, filters: ScopeFilters): void {
    this.host.ensureScope(scopeKey, filters)
  }

  writePages(inputs: readonly WritePageInput[]): PageCounts[] {
    return this.host.writePages(inputs)
  }

  coverage(scopeKey: string): Array<[number, number]> {
    return this.host.coverage(scopeKey)
  }

  callTypes(): CallType[] {
    return this.host.callTypes()
  }

  upsertCallTypes(list: readonly CallType[]): void {
    this.host.upsertCallTypes(list)
  }

  settleIndex(written: number): void {
    this.host.settleIndex(written)
  }

  /** A scope's stored checkpoint as it was written (the sync reads it through its own schema). */
  getCheckpoint(scopeKey: string): unknown {
    return this.host.scopeRows.checkpoint(scopeKey)
  }

  setCheckpoint(scopeKey: string, checkpoint: unknown): void {
    this.host.scopeRows.setCheckpoint(this.host.scopeRows.id(scopeKey), checkpoint)
  }

  addCoverage(scopeKey: string, from: number, to: number): void {
    this.host.scopeRows.addCoverage(scopeKey, from, to)
    // Search reports coverage from the scopes it reads once per data version.
    this.host.wrote()
  }

  markScopeSuccess(scopeKey: string, at: number): void {
    this.host.scopeRows.markSuccess(scopeKey, at)
  }

  /** Records a run as running; `id` is the caller's when it already names the run (the app's task id). */
  startRun(scopeKey: string, params: unknown, id?: string): string {
    return this.host.runs.start(scopeKey, params, this.host.now(), id)
  }

  finishRun(runId: string, outcome: SyncOutcome, counts: { stored: number; requests: number }, error?: AppErrorInfo): void {
    this.host.runs.finish(runId, outcome, counts, error, this.host.now())
  }

  /** The sync screen's panel of a run that ended (sync-runs.ts). */
  saveRunProgress(runId: string, progress: SyncProgress): void {
    this.host.runs.saveProgress(runId, progress)
  }

  lastEndedRun(): SyncProgress | null {
    return this.host.runs.lastEnded()
  }

  recentRuns(limit: number): SyncRunInfo[] {
    return this.host.runs.recent(limit)
  }

  scopeStatuses(): ScopeStatus[] {
    return this.host.scopeRows.statuses()
  }

  hasAnnotations(): boolean {
    return this.host.review.annotations.count() > 0
  }

  /** The sync's hook after a whole pass (SyncStore.markServiceDropped): see AnnotationStore. */
  markServiceDropped(scopeKey: string, from: number, to: number, seen: ReadonlySet<string>, at: number): string[] {
    return this.host.review.annotations.markServiceDropped(scopeKey, from, to, seen, at)
  }
}
