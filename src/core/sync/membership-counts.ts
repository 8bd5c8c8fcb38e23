import type { CallCache } from '../cache'
import type { MembershipCountSource } from './membership-estimate'

/** The SQLite cache's counts for the membership estimate (bounded by the range asked for). */
export function cacheCounts(cache: CallCache): MembershipCountSource {
  const counts = cache.rangeCounts()
  return {
    countCalls: (from, to) => counts.calls(from, to),
    countMembers: (key, from, to) => counts.members(key, from, to),
    coverage: (key) => cache.coverage(key)
  }
}
