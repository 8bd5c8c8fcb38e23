import type pg from 'pg'
import type { CallCache } from '../cache'
import type { OutboxEntry, PushOutcome } from '../cache/review/share-store'
import { CallsightError, isCallsightError } from '../errors'
import { mapPgError, q } from './connection'
import { schemaVersion } from './pg-migrations'
import { kindOf } from './review-kinds'
import { analystGroup } from './pg-migration-5'
import { restoreRefused } from './review-tombstones'
import { restoreRemovals, type RefusedRemoval } from './review-removals'
import { inTransaction } from './pg-transaction'

export interface PushOptions {
  pool: pg.Pool
  schema: string
  cache: CallCache
  /** Changes per transaction; default 200. */
  batchSize?: number
  /** Give up after this many batches (a bound on one call; the rest waits for the next). */
  maxBatches?: number
  /**
   * Where the removals refused and restored go, as each batch is done: a caller that tells the
   * user keeps them when a later batch fails (the calls are back either way).
   */
  refusedRemovals?: RefusedRemoval[]
}

export interface PushResult {
  pushed: number
  conflicts: number
  /** Changes the team cache already had (a push retried after its answer was lost). */
  duplicates: number
  /** Evaluations older than the one the team cache holds (pushed from another workstation later). */
  stale: number
  /** Still waiting here after the push. */
  waiting: number
  role: string
  /**
   * Removals of calls from a list the team cache refused (not a lead's): the list and how
   * many calls, put back here in the same push. The app says so on the Review screen.
   */
  refusedRemovals: RefusedRemoval[]
}

/** Review data needs schema version 5: a team cache set up before has no review tables. */
export async function checkReviewSchema(db: pg.Pool | pg.ClientBase, schema: string): Promise<void> {
  const v = await schemaVersion(db, schema)
  if (v < 5) {
    throw new CallsightError('Storage', `The team cache schema "${schema}" keeps no review data (version ${v}; review needs 5).`, {
      hint: 'Run callsight team init as the database owner with this version.'
    })
  }
}

/** The refusal of queued changes by the team cache: what happened and that nothing is lost. */
function refusal(role: string, count: number, e: CallsightError): CallsightError {
  const why =
    e.code === 'InvalidCredentials'
      ? `The team cache refused the login of role "${role}" (removed, or its password changed)`
      : `The team cache refused role "${role}" writing review data (no longer an analyst)`
  return new CallsightError(
    e.code === 'InvalidCredentials' ? 'InvalidCredentials' : 'Forbidden',
    `${why}: ${count} change(s) stay on this computer, marked refused.`,
    {
      cause: e,
      hint: 'Export them with callsight annotations export; once the role is restored (or another analyst login set up), push with --retry-refused.'
    }
  )
}

/**
 * Sends the outbox to the team cache: batches in save order, each one transaction under the
 * review write lock, each change recorded by its id in `review_applied` first — a change the
 * team cache has already (a push whose answer was lost to a crash or a cut connection) is
 * skipped, so a retry never applies anything twice. The outbox entries leave only after the
 * commit. PostgreSQL unreachable: nothing changes here, and the queue waits for the next push.
 */
export async function pushReview(opts: PushOptions): Promise<PushResult> {
  const { pool, schema, cache } = opts
  const size = Math.max(1, opts.batchSize ?? 200)
  const result: PushResult = {
    pushed: 0,
    conflicts: 0,
    duplicates: 0,
    stale: 0,
    waiting: 0,
    role: '',
    refusedRemovals: opts.refusedRemovals ?? []
  }
  if (!cache.review.share.enabled) cache.review.share.enable(Date.now())
  let c: pg.PoolClient
  try {
    c = await pool.connect()
  } catch (e) {
    const err = mapPgError(e)
    if (err.code === 'InvalidCredentials') {
      const user = String((pool as unknown as { options?: { user?: string } }).options?.user ?? 'this role')
      const queued = cache.review.share.pending(Number.MAX_SAFE_INTEGER)
      if (queued.length > 0) {
        cache.review.share.refuse(
          queued.map((q) => q.changeId),
          err.message
        )
        throw refusal(user, queued.length, err)
      }
    }
    throw err
  }
  try {
    await checkReviewSchema(c, schema)
    const version = await schemaVersion(c, schema)
    const who = await c.query<{ u: string; analyst: boolean }>(
      "SELECT current_user AS u, pg_has_role(current_user, $1, 'MEMBER') AS analyst",
      [analystGroup(schema)]
    )
    const role = who.rows[0]!.u
    // The shared reader (or any login outside the analysts) only reads: its queue waits here,
    // not refused, for an analyst's login to take it.
    if (!who.rows[0]!.analyst) {
      throw new CallsightError(
        'Forbidden',
        `Role "${role}" is not an analyst of the team cache: review changes stay queued on this computer.`,
        {
          hint: 'Log in with your own analyst role (callsight team add-analyst) to share review work.'
        }
      )
    }
    result.role = role
    cache.review.share.setValue('role', role)
    for (let batch = 0; batch < (opts.maxBatches ?? Number.MAX_SAFE_INTEGER); batch++) {
      const entries = cache.review.share.pending(size)
      if (entries.length === 0) break
      let outcomes: PushOutcome[]
      try {
        outcomes = await pushBatch(c, schema, version, entries)
      } catch (e) {
        const err = mapPgError(e)
        if (err.code === 'Forbidden') {
          cache.review.share.refuse(
            cache.review.share.pending(Number.MAX_SAFE_INTEGER).map((x) => x.changeId),
            err.message
          )
          throw refusal(role, cache.review.share.refusedCount(), err)
        }
        throw err
      }
      cache.review.share.pushed(entries, outcomes, role)
      const refused = new Set(outcomes.filter((o) => o.result === 'refused').map((o) => o.changeId))
      if (refused.size > 0) {
        const undone = entries.filter((e) => refused.has(e.changeId))
        await restoreRefused(c, schema, cache, role, undone)
        result.refusedRemovals.push(...(await restoreRemovals(c, schema, cache, role, undone)))
      }
      for (const o of outcomes) {
        if (o.result === 'conflict') result.conflicts++
        else if (o.result === 'duplicate') result.duplicates++
        else if (o.result === 'stale' || o.result === 'refused') result.stale++
        else result.pushed++
      }
    }
  } finally {
    c.release()
    result.waiting = cache.review.share.waiting()
  }
  return result
}

async function pushBatch(c: pg.ClientBase, schema: string, version: number, entries: readonly OutboxEntry[]): Promise<PushOutcome[]> {
  const outcomes: PushOutcome[] = []
  try {
    return await inTransaction(c, async () => {
      await c.query(`LOCK TABLE ${q(schema)}.review_write_lock IN EXCLUSIVE MODE`)
      for (const e of entries) {
        const kind = kindOf(e.kind)
        if (!kind) throw new CallsightError('Storage', `A queued review change has an unknown kind (${e.kind}).`)
        // A team cache set up before this kind's table: the change stays this workstation's own.
        if ((kind.since ?? 5) > version) {
          outcomes.push({ changeId: e.changeId, result: 'stale' })
          continue
        }
        const fresh = await c.query(`INSERT INTO ${q(schema)}.review_applied (change_id) VALUES ($1) ON CONFLICT DO NOTHING`, [e.changeId])
        if ((fresh.rowCount ?? 0) === 0) {
          outcomes.push({ changeId: e.changeId, result: 'duplicate' })
          continue
        }
        outcomes.push(await kind.push(c, schema, e))
      }
      return outcomes
    })
  } catch (e) {
    throw isCallsightError(e) ? e : mapPgError(e)
  }
}
