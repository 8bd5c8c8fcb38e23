export { createSearch, type ExportIteration, type LocalSearch } from './local-search'
export { parseText, toMatch, type FtsElement, type ParsedText } from './fts-query'
export { choosePlan, WALK_FACTOR, type Plan, type PlanKind } from './plan'
export { compileQuery, scopesFor, type CompiledQuery, type QueryCatalog } from './compile'
