import type pg from 'pg'
import { z } from 'zod'
import type { CallCache } from '../cache'
import type { OutboxEntry, PushOutcome } from '../cache/review/share-store'
import { isCallsightError } from '../errors'
import { CallId } from '../review/import-checks'
import { q } from './connection'
import { LIST_CALL } from './pg-migration-10'
import { basics, need, text, type ApplyContext, type PulledReviewRow } from './review-apply'
import { pulledColumns, type SharedKind } from './review-kind-parts'
import { TEAM_WORK_KINDS } from './review-kinds-team'
import { numbers } from './review-tombstones'
import { done, pushStep } from './push-step'

/**
 * Calls removed from a review list (schema 10's `list-call` tombstones, pg-migration-10.ts):
 * pushed as one tombstone per call with the deletion of the list's rows of those calls, in
 * one savepoint; applied by every pull as a local removal. Only leads may remove, as only
 * they add: an analyst's removal is refused by the team cache, and the calls (with their
 * assignments) come back here from the team cache.
 */

/** What a queued removal holds (written by review/team-share.ts). */
export const RemovalValue = z.object({ callIds: z.array(CallId).min(1).max(100_000) })

async function pushRemoval(c: pg.ClientBase, schema: string, e: OutboxEntry): Promise<PushOutcome> {
  const { callIds } = RemovalValue.parse(JSON.parse(e.value))
  const s = q(schema)
  return pushStep(c, e, 'refused', async () => {
    const r = await c.query(
      `INSERT INTO ${s}.review_tombstones (kind, id, call_id, deleted_at)
       SELECT $1, $2, c, $4 FROM unnest($3::text[]) AS c ON CONFLICT DO NOTHING`,
      [LIST_CALL, e.callId, callIds, e.at]
    )
    await c.query(`DELETE FROM ${s}.team_review_list_items WHERE list_id = $1 AND call_id = ANY($2::text[])`, [e.callId, callIds])
    return done(e, r)
  })
}

function applyRemoval(ctx: ApplyContext, row: PulledReviewRow): void {
  const { callId } = basics(ctx, row)
  const listId = need(row, z.string().uuid(), text(row, 'b'), 'list')
  if (ctx.cache.review.reviewLists.exists(listId)) ctx.cache.review.reviewLists.dropCalls(listId, [callId])
}

export const LIST_REMOVAL_KIND: SharedKind = {
  kind: 'list-removal',
  pgTable: 'review_tombstones',
  localTable: 'review_list_items / review_assignments (removed)',
  key: ['kind', 'id', 'call_id'],
  fields: ['deleted_at'],
  merge: 'lead-writes',
  since: 10,
  push: pushRemoval,
  pullSql: (schema) =>
    `SELECT ${pulledColumns('list-removal', { callId: 'call_id', a: 'NULL::text', b: 'id::text', c: 'NULL::text', author: 'author', at: 'deleted_at', meta: 'NULL::text' })} FROM ${q(schema)}.review_tombstones WHERE seq > $1 AND kind = '${LIST_CALL}'`,
  apply: applyRemoval
}

/** A refused removal: the list, and how many of its calls the removal named. */
export interface RefusedRemoval {
  listId: string
  calls: number
}

/**
 * The team cache refused these removals (not a lead): the calls, as the team cache holds them
 * in the list (position and assignee), are put back here. Rows a pull would refuse are skipped
 * alike. Returns each refused removal, for the app to say it was undone.
 */
export async function restoreRemovals(
  c: pg.ClientBase,
  schema: string,
  cache: CallCache,
  role: string,
  refused: readonly OutboxEntry[]
): Promise<RefusedRemoval[]> {
  const assignment = TEAM_WORK_KINDS.find((x) => x.kind === 'assignment')!
  const undone: RefusedRemoval[] = []
  for (const e of refused) {
    if (e.kind !== 'list-removal') continue
    const value = RemovalValue.safeParse(JSON.parse(e.value))
    if (!value.success) continue
    undone.push({ listId: e.callId, calls: value.data.callIds.length })
    const found = await c.query<PulledReviewRow>(
      `SELECT * FROM (${assignment.pullSql(schema)}) AS t WHERE t.b = $2 AND t.call_id = ANY($3::text[]) ORDER BY t.seq`,
      [0, e.callId, value.data.callIds]
    )
    const ctx = { cache, role, now: Date.now() }
    cache.review.share.transact(() => {
      for (const row of found.rows.map(numbers)) {
        try {
          assignment.apply(ctx, row)
        } catch (err) {
          if (!isCallsightError(err)) throw err
        }
      }
    })
  }
  return undone
}
