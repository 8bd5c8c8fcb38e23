export { SyncEngine, foldPage, type SyncMode, type SyncRunOptions, type FoldedPage } from './sync-engine'
export type { SyncEngineDeps, SyncPage, SyncPageRequest, SyncSource, SyncStore, WaitSource } from './ports'
export { WaitFeed } from './wait-feed'
export { scopeFilters, scopeKey, type ScopeFilters } from './scope-key'
export { Checkpoint, PagerState, DenseFinding, readCheckpoint } from './checkpoint'
export { applyPage, initialPager, isNewestFirst, nextSlice, secondOf, type PageOutcome } from './window-pager'
export { planRun, passStart, newPass, rememberCallTypes, type RunPlan } from './plan-window'
export { FetchPipeline, PIPELINE_DEPTH, following, pageRequest, type Slice } from './fetch-pipeline'
export { StoreGroup, MAX_GROUP } from './store-group'
export { RunReport, denseError } from './run-report'
export {
  PASS_CONCURRENCY,
  runMembershipPasses,
  type MembershipRunOptions,
  type MembershipResult,
  type PassOutcome
} from './membership-pass'
export { membershipPasses, passScope, holdsEveryCall, type MembershipRange } from './membership-scopes'
export {
  estimateMemberships,
  estimateFrom,
  groupRequests,
  secondsFor,
  type MembershipCountSource,
  type GroupLoad
} from './membership-estimate'
export { cacheCounts } from './membership-counts'
