export {
  createPool,
  isPostgresUrl,
  mapPgError,
  poolConfig,
  passwordInUrl,
  redactUrl,
  RoleName,
  SchemaName,
  SslMode,
  SSL_MODES,
  type TeamDbOptions
} from './connection'
export { readGeneration, resetGeneration } from './generation'
export {
  checkPgSchema,
  lockKey,
  migratePg,
  minReaderVersion,
  PG_MIN_READER_VERSION,
  PG_SCHEMA_VERSION,
  pgMigrations,
  schemaVersion,
  type PgMigration
} from './pg-migrations'
export { analysisJson, PgSyncStore, type PgPageCounts } from './pg-store'
export { knownScopes, resolveScopes, sameScopes } from './pull-scopes'
export { lastChange, OPTIMIZE_AFTER, pullTeamCache, type PullOptions, type PullPhase, type PullProgress, type PullTimings } from './pull'
export { DAY_MS, planWindow, backfillDone, windowStart, systemPullClock, type PullClock, type WindowState } from './window'
export { readWorkerState, type WorkerScopeState } from './worker-state'
export { scramVerifier, teamInit, type TeamInitOptions, type TeamInitResult } from './roles'
export { scopeAt, TeamWorker, WorkerConfig, WorkerScopeConfig, type WorkerDeps } from './worker'
export { TeamPasswordVault } from './password-vault'
export { addAnalyst, listAnalysts, removeAnalyst, type AnalystInfo } from './analysts'
export { analystGroup, leadGroup } from './pg-migration-5'
export { checkReviewSchema, pushReview, type PushOptions, type PushResult } from './review-push'
export { pullReview, type ReviewPullOptions, type ReviewPullResult } from './review-pull'
export { SHARED_KINDS, type SharedKind } from './review-kinds'
export { isAnalystLogin, syncReview } from './review-sync'
export { backfillSearch } from './pg-migration-6'
export { disableTeamSearch, enableTeamSearch, teamSearchState, type TeamSearchState } from './pg-migration-8'
export { searchTeamCache, teamCall, type TeamSearchOptions, type TeamSearchRequest, type TeamSearchResult } from './team-search'
export { DEFAULT_EXACT_BUDGET_MS, DEFAULT_SAMPLE_ROWS, estimateCount, exactCount } from './team-count'
export { ReviewLive, type ReviewLiveOptions } from './review-live'
export { REVIEW_CHANNEL } from './pg-migration-7'
