export { createSearch, type ExportIteration, type LocalSearch, type WarmUp } from './local-search'
export { choosePlan, WALK_FACTOR, type Plan, type PlanKind } from './plan'
export { compileQuery, scopesFor, textErrors, type CompiledQuery, type QueryCatalog } from './compile'
