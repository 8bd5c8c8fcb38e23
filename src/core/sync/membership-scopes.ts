import {
  DEFAULT_DIRECTIONS,
  type CallType,
  type DirectionSetting,
  type MembershipPass,
  type SyncScope,
  type SyncScopeInput
} from '../../shared/domain'

/** A synced range the passes run over; `to` exclusive. */
export interface MembershipRange {
  from: number
  to: number
}

/**
 * The passes of a range, in the order they run: every call type of the catalog (by Value),
 * answered only, new requests, each direction of the list. Types and directions partition
 * the calls, so each group reads the range about once.
 */
export function membershipPasses(
  catalog: readonly CallType[],
  directions: readonly DirectionSetting[] = DEFAULT_DIRECTIONS
): MembershipPass[] {
  const types = [...new Set(catalog.map((t) => t.value))].sort()
  const dirs = [...new Map(directions.map((d) => [d.value, d])).values()]
  return [
    ...types.map((value): MembershipPass => ({ kind: 'type', value })),
    { kind: 'answered' },
    { kind: 'newRequest' },
    ...dirs.map((d): MembershipPass => ({ kind: 'direction', value: d.value, name: d.name }))
  ]
}

/**
 * The scope of a pass: one filter value, every other filter open (all results), without
 * analysis. A scope with no other filter holds every call of its value, so the coverage
 * judge can intersect it with the others (a type pass and a direction pass answer "type
 * and direction").
 */
export function passScope(pass: MembershipPass, range: MembershipRange): SyncScopeInput {
  const base = { from: range.from, to: range.to, includeAnalysis: false, results: 'all' as const }
  switch (pass.kind) {
    case 'type':
      return { ...base, callTypes: [pass.value] }
    case 'answered':
      return { ...base, results: 'answered' }
    case 'newRequest':
      return { ...base, hasNewRequest: true }
    case 'direction':
      return { ...base, direction: pass.value }
  }
}

/**
 * Whether a scope's range is one the passes can run over: it holds every call (all types,
 * all results, no direction, no new-request filter). With analysis or without.
 */
export function holdsEveryCall(scope: Pick<SyncScope, 'callTypes' | 'direction' | 'results' | 'hasNewRequest'>): boolean {
  return scope.callTypes.length === 0 && scope.direction === null && scope.results === 'all' && scope.hasNewRequest === null
}
