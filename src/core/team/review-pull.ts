import type pg from 'pg'
import { z } from 'zod'
import type { AppErrorInfo } from '../../shared/errors'
import type { CallCache } from '../cache'
import { type CallsightError, isCallsightError, toErrorInfo } from '../errors'
import { mapPgError, q } from './connection'
import { Int8 } from './pull-batch'
import { refusedRow, type PulledReviewRow } from './review-apply'
import { SHARED_KINDS, kindOf } from './review-kinds'
import { schemaVersion } from './pg-migrations'
import { checkReviewSchema } from './review-push'
import { inTransaction } from './pg-transaction'

export interface ReviewPullOptions {
  pool: pg.Pool
  schema: string
  cache: CallCache
  /** Rows per batch; default 2,000. */
  batchSize?: number
  now?: () => number
}

export interface ReviewPullResult {
  applied: number
  refused: number
  refusals: AppErrorInfo[]
  cursor: number
}

const Row = z.object({
  kind: z.string(),
  seq: Int8,
  call_id: z.string().nullable(),
  call_id_bytes: Int8,
  a: z.string().nullable(),
  a_bytes: Int8,
  b: z.string().nullable(),
  b_bytes: Int8,
  c: z.string().nullable(),
  c_bytes: Int8,
  author: z.string().nullable(),
  author_bytes: Int8,
  at: Int8,
  meta: z.string().nullable(),
  meta_bytes: Int8
})

/**
 * Brings the review rows others (and this role elsewhere) wrote since the last pull: every
 * shared kind's rows numbered after the local cursor, in change-number order, a batch per
 * REPEATABLE READ snapshot, each batch applied to the local cache in one transaction with
 * the cursor that follows it. Review rows are numbered under a lock taken by the numbering
 * trigger itself (pg-migration-5.ts), so a snapshot never shows a number above one it lacks.
 * Its own cursor (`review_share`), apart from the calls': a pull of calls never waits for it.
 */
export async function pullReview(opts: ReviewPullOptions): Promise<ReviewPullResult> {
  const { pool, schema, cache } = opts
  const size = Math.max(1, opts.batchSize ?? 2000)
  const now = opts.now ?? Date.now
  const result: ReviewPullResult = { applied: 0, refused: 0, refusals: [], cursor: 0 }
  const c = await pool.connect().catch((e: unknown) => {
    throw mapPgError(e)
  })
  try {
    await checkReviewSchema(c, schema)
    const role = (await c.query<{ u: string }>('SELECT current_user AS u')).rows[0]!.u
    const cacheId = (await c.query<{ v: string }>(`SELECT value AS v FROM ${q(schema)}.meta WHERE key = 'cache_id'`)).rows[0]?.v ?? ''
    const share = cache.review.share
    // Another team cache (or one set up anew): its change numbers mean nothing here.
    if (share.getValue('cache_id') !== cacheId) share.setValue('cursor', '0')
    share.setValue('cache_id', cacheId)
    let cursor = Number(share.getValue('cursor') ?? '0')
    const version = await schemaVersion(c, schema)
    const kinds = SHARED_KINDS.filter((k) => (k.since ?? 5) <= version)
    const sql = `${kinds.map((k) => `(${k.pullSql(schema)} ORDER BY seq LIMIT $2)`).join(' UNION ALL ')} ORDER BY seq LIMIT $2`
    for (;;) {
      const rows: PulledReviewRow[] = await inTransaction(
        c,
        async () => (await c.query(sql, [cursor, size])).rows.map((r) => Row.parse(r)),
        'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY'
      )
      if (rows.length === 0) break
      const ctx = { cache, role, now: now() }
      const refusals: CallsightError[] = []
      const last = rows[rows.length - 1]!.seq
      cache.review.share.transact(() => {
        for (const row of rows) {
          try {
            const kind = kindOf(row.kind)
            if (!kind) throw refusedRow(row, 'its kind is unknown')
            kind.apply(ctx, row)
          } catch (e) {
            if (!isCallsightError(e)) throw e
            refusals.push(e)
          }
        }
        share.setValue('cursor', String(last))
      })
      result.applied += rows.length - refusals.length
      result.refused += refusals.length
      for (const r of refusals) if (result.refusals.length < 20) result.refusals.push(toErrorInfo(r))
      cursor = last
      if (rows.length < size) break
    }
    result.cursor = cursor
    return result
  } catch (e) {
    throw isCallsightError(e) ? e : mapPgError(e)
  } finally {
    c.release()
  }
}
