import type { CallCache } from '../cache'
import type { MembershipCountSource } from './membership-estimate'

/**
 * The SQLite cache's counts for the membership estimate: calls by the date index, members of
 * a scope through its membership index (both bounded by the range asked for).
 */
export function cacheCounts(cache: CallCache): MembershipCountSource {
  const calls = cache.db.prepare('SELECT count(*) FROM calls WHERE call_at >= ? AND call_at < ?').pluck()
  const members = cache.db
    .prepare(
      `SELECT count(*) FROM scope_members m JOIN calls c ON c.id = m.call
       WHERE m.scope = (SELECT id FROM sync_scopes WHERE scope_key = ?) AND c.call_at >= ? AND c.call_at < ?`
    )
    .pluck()
  return {
    countCalls: (from, to) => calls.get(from, to) as number,
    countMembers: (key, from, to) => members.get(key, from, to) as number,
    coverage: (key) => cache.coverage(key)
  }
}
