export { CallCache, openCache, type ScopeFilters, type SyncRunInfo, type WritePageInput } from './call-cache'
export type { PageCounts } from './ingest'
export { migrate, migrations, SCHEMA_VERSION, type Migration } from './migrations'
export { parseNumeric } from './numeric'
