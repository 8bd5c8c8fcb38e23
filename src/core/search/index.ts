export {
  createSearch,
  searchTuning,
  type Explained,
  type ExportIteration,
  type LocalSearch,
  type PageTrace,
  type SearchKnobs,
  type SearchParts,
  type SearchStrategies,
  type WarmUp
} from './local-search'
export { sortedPage, type SortedPager } from './paging/sorted-page'
export { choosePlan, WALK_FACTOR, type Plan, type PlanKind } from './plan/plan'
export { compileQuery, scopesFor, textErrors, type CompiledQuery, type QueryCatalog } from './query/compile'
