import type pg from 'pg'
import type { ReviewQueue } from '../../shared/team'
import type { CallCache } from '../cache'
import { toErrorInfo } from '../errors'
import { analystGroup } from './pg-migration-5'
import { schemaVersion } from './pg-migrations'
import { pullReview } from './review-pull'
import { pushReview, type PushOptions } from './review-push'
import type { RefusedRemoval } from './review-removals'

/** Whether this login is one of the tenant's analysts (schema 5 and later; the shared reader is not). */
export async function isAnalystLogin(pool: pg.Pool, schema: string): Promise<boolean> {
  if ((await schemaVersion(pool, schema)) < 5) return false
  const r = await pool.query<{ analyst: boolean }>("SELECT pg_has_role(current_user, $1, 'MEMBER') AS analyst", [analystGroup(schema)])
  return r.rows[0]?.analyst === true
}

/**
 * The app's review sync after a pull of calls: an analyst's login pushes the outbox and
 * pulls the team's review changes; the shared reader only pulls them; a team cache set up
 * before review data (schema < 5) is left alone. Never throws: the calls were pulled, and
 * the failure is said beside the queue (the changes stay queued).
 */
export async function syncReview(
  pool: pg.Pool,
  schema: string,
  cache: CallCache,
  push: Pick<PushOptions, 'batchSize'> = {}
): Promise<ReviewQueue> {
  let error: ReviewQueue['error'] = null
  let arrived = 0
  // Filled batch by batch: a removal undone before a later batch failed is still said.
  const refusedRemovals: RefusedRemoval[] = []
  try {
    if ((await schemaVersion(pool, schema)) >= 5) {
      if (await isAnalystLogin(pool, schema)) await pushReview({ pool, schema, cache, refusedRemovals, ...push })
      arrived = (await pullReview({ pool, schema, cache })).applied
    }
  } catch (e) {
    error = toErrorInfo(e)
  }
  const queue: ReviewQueue = { waiting: cache.review.share.waiting(), refused: cache.review.share.refusedCount(), error, arrived }
  return refusedRemovals.length > 0 ? { ...queue, refusedRemovals: refusedRemovals.slice(0, 1000) } : queue
}
