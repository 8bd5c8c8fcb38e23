export { createSearch, type ExportIteration, type LocalSearch } from './local-search'
export { parseText, toMatch, type FtsElement, type ParsedText } from './fts-query'
export { choosePlan, WALK_FACTOR, type PlanKind } from './plan'
export { scopesFor } from './compile'
