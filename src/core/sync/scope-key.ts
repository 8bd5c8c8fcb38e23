import { createHash } from 'node:crypto'
import type { ScopeStatus, SyncScope } from '../../shared/domain'

export type ScopeFilters = ScopeStatus['filters']

/** The filters of a scope in one canonical form: order and duplicates of lists do not matter. */
export function scopeFilters(scope: SyncScope): ScopeFilters {
  const results = Array.isArray(scope.results) ? [...new Set(scope.results)].sort((a, b) => a - b) : scope.results
  return {
    callTypes: [...new Set(scope.callTypes)].sort(),
    direction: scope.direction,
    results,
    hasNewRequest: scope.hasNewRequest,
    includeAnalysis: scope.includeAnalysis
  }
}

/**
 * A stable name for the filters (not the range: the range is the scope's coverage). Two
 * runs with the same filters share membership, coverage and checkpoint.
 */
export function scopeKey(filters: ScopeFilters): string {
  const canonical = JSON.stringify([filters.callTypes, filters.direction, filters.results, filters.hasNewRequest, filters.includeAnalysis])
  return `s1-${createHash('sha256').update(canonical).digest('hex').slice(0, 20)}`
}
