import type pg from 'pg'
import { z } from 'zod'
import type { CallCache } from '../cache'
import type { OutboxEntry, PushOutcome } from '../cache/review/share-store'
import { isCallsightError } from '../errors'
import { q } from './connection'
import { basics, need, type ApplyContext, type PulledReviewRow } from './review-apply'
import { pulledColumns, type SharedKind } from './review-kind-parts'
import { TEAM_WORK_KINDS } from './review-kinds-team'
import { TOMBSTONE_KINDS, type TombstoneKind } from './pg-migration-9'
import { LIST_CALL } from './pg-migration-10'
import { done, pushStep } from './push-step'

/**
 * The deletion of a review list or a calibration round (schema 9's `review_tombstones`,
 * pg-migration-9.ts): pushed as a tombstone with the deletion of the rows in one savepoint,
 * applied by every pull as a local delete. Only leads may delete: an analyst's deletion is
 * refused by the team cache, and the list or round comes back here from the team cache.
 */

const Kind = z.enum(TOMBSTONE_KINDS)
const TABLE: Record<TombstoneKind, string> = { list: 'team_review_lists', calibration: 'team_calibrations' }

async function pushTombstone(c: pg.ClientBase, schema: string, e: OutboxEntry): Promise<PushOutcome> {
  const kind = Kind.parse(e.field)
  const s = q(schema)
  return pushStep(c, e, 'refused', async () => {
    const r = await c.query(`INSERT INTO ${s}.review_tombstones (kind, id, deleted_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, [
      kind,
      e.callId,
      e.at
    ])
    await c.query(`DELETE FROM ${s}.${TABLE[kind]} WHERE id = $1`, [e.callId])
    return done(e, r)
  })
}

function applyTombstone(ctx: ApplyContext, row: PulledReviewRow): void {
  const { callId: id } = basics(ctx, row)
  need(row, z.string().uuid(), id, 'id')
  const kind = need(row, Kind, row.a, 'kind')
  if (kind === 'list') {
    if (ctx.cache.review.reviewLists.exists(id)) ctx.cache.review.reviewLists.delete(id)
  } else if (ctx.cache.review.calibration.exists(id)) ctx.cache.review.calibration.delete(id)
}

export const TOMBSTONE_KIND: SharedKind = {
  kind: 'tombstone',
  pgTable: 'review_tombstones',
  localTable: 'review_lists / calibration_sessions (deleted)',
  key: ['kind', 'id'],
  fields: ['deleted_at'],
  merge: 'lead-writes',
  since: 9,
  push: pushTombstone,
  pullSql: (schema) =>
    `SELECT ${pulledColumns('tombstone', { callId: 'id::text', a: 'kind', b: 'NULL::text', c: 'NULL::text', author: 'author', at: 'deleted_at', meta: 'NULL::text' })} FROM ${q(schema)}.review_tombstones WHERE seq > $1 AND kind <> '${LIST_CALL}'`,
  apply: applyTombstone
}

/** node-postgres gives bigint as text: the numbers a pull's rows carry. */
export const numbers = (r: PulledReviewRow): PulledReviewRow => {
  const out: Record<string, unknown> = { ...r }
  for (const k of Object.keys(out)) if (k === 'seq' || k === 'at' || k.endsWith('_bytes')) out[k] = Number(out[k])
  return out as unknown as PulledReviewRow
}

/** What brings a list or a round back: its own row first, then the rows that hang on it (the column holding its id). */
const RESTORE: Record<TombstoneKind, Array<[kind: string, column: 'call_id' | 'b']>> = {
  list: [
    ['list', 'call_id'],
    ['assignment', 'b']
  ],
  calibration: [
    ['calibration', 'call_id'],
    ['calibration-answer', 'b'],
    ['calibration-submit', 'call_id']
  ]
}

/**
 * The team cache refused these deletions (not a lead): the lists and rounds, as this role may
 * read them there, are written here again. Rows a pull would refuse are skipped alike.
 */
export async function restoreRefused(
  c: pg.ClientBase,
  schema: string,
  cache: CallCache,
  role: string,
  refused: readonly OutboxEntry[]
): Promise<number> {
  let restored = 0
  for (const e of refused) {
    const kind = Kind.safeParse(e.field)
    if (!kind.success) continue
    const rows: PulledReviewRow[] = []
    for (const [name, column] of RESTORE[kind.data]) {
      const k = TEAM_WORK_KINDS.find((x) => x.kind === name)!
      const found = await c.query<PulledReviewRow>(`SELECT * FROM (${k.pullSql(schema)}) AS t WHERE t.${column} = $2 ORDER BY t.seq`, [
        0,
        e.callId
      ])
      rows.push(...found.rows.map(numbers))
    }
    const ctx = { cache, role, now: Date.now() }
    cache.review.share.transact(() => {
      for (const row of rows) {
        try {
          TEAM_WORK_KINDS.find((x) => x.kind === row.kind)!.apply(ctx, row)
          restored++
        } catch (err) {
          if (!isCallsightError(err)) throw err
        }
      }
    })
  }
  return restored
}
